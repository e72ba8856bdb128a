package integrate

import (
	"math"
	"math/cmplx"
)

// luReal is the LU factorization with partial pivoting of an n×n
// row-major matrix, in place.
type luReal struct {
	n    int
	a    []float64
	piv  []int
	sing bool
}

func (lu *luReal) factor(n int, a []float64) {
	lu.n, lu.a = n, a
	if len(lu.piv) < n {
		lu.piv = make([]int, n)
	}
	lu.sing = false
	for k := 0; k < n; k++ {
		p := k
		best := math.Abs(a[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := math.Abs(a[i*n+k]); v > best {
				p, best = i, v
			}
		}
		lu.piv[k] = p
		if p != k {
			for j := 0; j < n; j++ {
				a[k*n+j], a[p*n+j] = a[p*n+j], a[k*n+j]
			}
		}
		d := a[k*n+k]
		if d == 0 {
			lu.sing = true
			continue
		}
		for i := k + 1; i < n; i++ {
			m := a[i*n+k] / d
			a[i*n+k] = m
			if m != 0 {
				ri, rk := a[i*n+k+1:i*n+n], a[k*n+k+1:k*n+n]
				for j := range ri {
					ri[j] -= m * rk[j]
				}
			}
		}
	}
}

// solve overwrites b with the solution of A x = b.
func (lu *luReal) solve(b []float64) {
	n, a := lu.n, lu.a
	for k := 0; k < n; k++ {
		if p := lu.piv[k]; p != k {
			b[k], b[p] = b[p], b[k]
		}
	}
	for i := 1; i < n; i++ {
		s := b[i]
		for j := 0; j < i; j++ {
			s -= a[i*n+j] * b[j]
		}
		b[i] = s
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= a[i*n+j] * b[j]
		}
		b[i] = s / a[i*n+i]
	}
}

// luComplex is luReal for complex matrices.
type luComplex struct {
	n    int
	a    []complex128
	piv  []int
	sing bool
}

func (lu *luComplex) factor(n int, a []complex128) {
	lu.n, lu.a = n, a
	if len(lu.piv) < n {
		lu.piv = make([]int, n)
	}
	lu.sing = false
	for k := 0; k < n; k++ {
		p := k
		best := cmplx.Abs(a[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := cmplx.Abs(a[i*n+k]); v > best {
				p, best = i, v
			}
		}
		lu.piv[k] = p
		if p != k {
			for j := 0; j < n; j++ {
				a[k*n+j], a[p*n+j] = a[p*n+j], a[k*n+j]
			}
		}
		d := a[k*n+k]
		if d == 0 {
			lu.sing = true
			continue
		}
		for i := k + 1; i < n; i++ {
			m := a[i*n+k] / d
			a[i*n+k] = m
			if m != 0 {
				ri, rk := a[i*n+k+1:i*n+n], a[k*n+k+1:k*n+n]
				for j := range ri {
					ri[j] -= m * rk[j]
				}
			}
		}
	}
}

func (lu *luComplex) solve(b []complex128) {
	n, a := lu.n, lu.a
	for k := 0; k < n; k++ {
		if p := lu.piv[k]; p != k {
			b[k], b[p] = b[p], b[k]
		}
	}
	for i := 1; i < n; i++ {
		s := b[i]
		for j := 0; j < i; j++ {
			s -= a[i*n+j] * b[j]
		}
		b[i] = s
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= a[i*n+j] * b[j]
		}
		b[i] = s / a[i*n+i]
	}
}
