package integrate

import (
	"math"
	"math/cmplx"
)

// luFact is the LU factorization with partial pivoting of an n×n row-major
// matrix, in place, real (luReal) or complex (luComplex).
type luFact[T float64 | complex128] struct {
	n    int
	a    []T
	piv  []int
	sing bool
}

func (lu *luFact[T]) factor(n int, a []T) {
	lu.n, lu.a = n, a
	if len(lu.piv) < n {
		lu.piv = make([]int, n)
	}
	lu.sing = false
	for k := 0; k < n; k++ {
		p := k
		best := magnitude(a[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := magnitude(a[i*n+k]); v > best {
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
func (lu *luFact[T]) solve(b []T) {
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

type (
	luReal    = luFact[float64]
	luComplex = luFact[complex128]
)

// magnitude is |v|, the pivot's size.
func magnitude[T float64 | complex128](v T) float64 {
	switch v := any(v).(type) {
	case float64:
		return math.Abs(v)
	case complex128:
		return cmplx.Abs(v)
	}
	panic("unreachable")
}
