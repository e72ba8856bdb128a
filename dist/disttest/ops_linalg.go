package disttest

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/linalg"
)

// Package linalg's operations: Outer (every type), Solve, QR, Lstsq (the
// inexact types), Norm (float) and NormComplex (complex), against plain
// serial loops (Gaussian elimination with partial pivoting, modified
// Gram-Schmidt, Jacobi's eigenvalue iteration) on the global input.

func linalgNumericOps[T backend.Numeric]() []op[T] {
	return []op[T]{{fn: "linalg.Outer", family: "linalg", applies: dims(1), run: func(in *input[T]) error {
		d, err := linalg.Outer(in.x, in.y)
		n := in.shape[0]
		want := make([]T, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				want[i*n+j] = in.gx[i] * in.gy[j]
			}
		}
		return result(in, d, err, []int{n, n}, want, 0)
	}}}
}

func linalgElementOps[T backend.Element]() []op[T] { return nil }

func linalgFloatOps[T backend.Float]() []op[T] {
	ops := inexactLinalgOps[T]()
	vec := func(o *input[T], ord linalg.Ord, axes ...int) (*dist.Array[T], error) {
		return linalg.Norm(o.x, ord, axes...)
	}
	ops = append(ops, normOps(vec, "linalg.Norm")...)
	ops = append(ops, op[T]{fn: "linalg.Norm", variant: "ord=inf,axes=(0,1)", family: "linalg", applies: dims(2, 3),
		refuse: func(lk string, shape []int, p int) string {
			if shape[0] == 0 {
				return "zero-size|has no identity"
			}
			return ""
		}, run: func(in *input[T]) error {
			d, err := linalg.Norm(in.x, linalg.OrdP(math.Inf(1)), 0, 1)
			// The max over axis 0 of the sums of |x| over axis 1.
			s, sh := refAxis(refMap(in.gx, func(v T) float64 { return cmplx.Abs(toC(v)) }), in.shape, 1, func(v []float64) float64 {
				t := 0.0
				for _, x := range v {
					t += x
				}
				return t
			})
			m, _ := refAxis(s, sh, 0, func(v []float64) float64 {
				r := math.Inf(-1)
				for _, x := range v {
					r = math.Max(r, x)
				}
				return r
			})
			return result(in, d, err, without(in.shape[1:], 0), refMap(m, func(v float64) T { return T(v) }), in.tol)
		}}, op[T]{fn: "linalg.Norm", variant: "ord=2", family: "linalg", applies: dims(2),
		refuse: func(lk string, shape []int, p int) string {
			if prod(shape) == 0 {
				return "empty matrix"
			}
			return ""
		}, run: func(in *input[T]) error {
			d, err := linalg.Norm(in.x, linalg.OrdP(2))
			return result(in, d, err, []int{1}, []T{T(refSpectral(refMap(in.gx, toC[T]), in.shape[0], in.shape[1]))}, in.tol)
		}})
	return ops
}

func linalgComplexOps[T backend.Complex]() []op[T] {
	ops := inexactLinalgOps[T]()
	return append(ops, normOps(func(in *input[T], ord linalg.Ord, axes ...int) (*dist.Array[T], error) {
		// NormComplex's real result, as T (its imaginary part zero).
		var z T
		switch any(z).(type) {
		case complex128:
			r, err := linalg.NormComplex[float64](any(in.x).(*dist.Array[complex128]), ord, axes...)
			if err != nil {
				return nil, err
			}
			defer r.Free()
			c, err := dist.Astype[complex128](r)
			return any(c).(*dist.Array[T]), err
		default:
			r, err := linalg.NormComplex[float32](any(in.x).(*dist.Array[complex64]), ord, axes...)
			if err != nil {
				return nil, err
			}
			defer r.Free()
			c, err := dist.Astype[complex64](r)
			return any(c).(*dist.Array[T]), err
		}
	}, "linalg.NormComplex")...)
}

// normOps are the vector norms of every shape: the 2-norm of all
// elements, and the 1-norm along the last axis.
func normOps[T backend.Inexact](f func(in *input[T], ord linalg.Ord, axes ...int) (*dist.Array[T], error), name string) []op[T] {
	abs := func(v T) float64 { return cmplx.Abs(toC(v)) }
	return []op[T]{{fn: name, variant: "ord=None", family: "linalg", run: func(in *input[T]) error {
		d, err := f(in, linalg.OrdDefault)
		return result(in, d, err, []int{1}, []T{fromC[T](complex(refNorm(in.gx), 0))}, in.tol)
	}}, {fn: name, variant: "ord=1,axis=-1", family: "linalg", run: func(in *input[T]) error {
		d, err := f(in, linalg.OrdP(1), -1)
		want, sh := refAxis(in.gx, in.shape, len(in.shape)-1, func(v []T) T {
			s := 0.0
			for _, x := range v {
				s += abs(x)
			}
			return fromC[T](complex(s, 0))
		})
		return result(in, d, err, sh, want, in.tol)
	}}}
}

// sysMatrix is the n x n matrix of Solve's cells: the matrix's data with a
// diagonal large enough to make it well conditioned.
func sysMatrix[T backend.Inexact](n int) []T {
	g := make([]T, n*n)
	for i := range g {
		g[i] = value[T](i, 3)
		if i/n == i%n {
			g[i] += fromC[T](complex(float64(8*n+8), 0))
		}
	}
	return g
}

func inexactLinalgOps[T backend.Inexact]() []op[T] {
	return []op[T]{{fn: "linalg.Solve", family: "linalg", applies: dims(1, 2), run: func(in *input[T]) error {
		// a is n x n in the cell's kind of layout, b the cell's x.
		n := in.shape[0]
		ga := sysMatrix[T](n)
		a, err := dist.FromFunc(in.c, []int{n, n}, func(idx []int) T { return ga[idx[0]*n+idx[1]] }, in.opts([]int{n, n})...)
		if err != nil {
			return fmt.Errorf("making a: %v", err)
		}
		defer a.Free()
		x, err := linalg.Solve(a, in.x)
		k := 1
		if len(in.shape) == 2 {
			k = in.shape[1]
		}
		want := refMap(refSolve(refMap(ga, toC[T]), refMap(in.gx, toC[T]), n, k), fromC[T])
		return result(in, x, err, in.shape, want, in.tol)
	}}, {fn: "linalg.QR", family: "linalg", applies: dims(2), run: func(in *input[T]) error {
		q, r, err := linalg.QR(in.x)
		if err != nil {
			return opErr(err)
		}
		defer q.Free()
		defer r.Free()
		return checkQR(in, q, r)
	}}, {fn: "linalg.Lstsq", family: "linalg", applies: dims(2), refuse: func(lk string, shape []int, p int) string {
		if shape[0] < shape[1] {
			return "fewer rows than columns|m >= n"
		}
		return ""
	}, run: func(in *input[T]) error {
		res, err := linalg.Lstsq(in.x, in.y)
		if err != nil {
			return opErr(err)
		}
		defer res.X.Free()
		m, n := in.shape[0], in.shape[1]
		ga, gb := refMap(in.gx, toC[T]), refMap(in.gy, toC[T])
		q, r, full := refQR(ga, m, n)
		if !full {
			return fmt.Errorf("the input is rank-deficient: no reference")
		}
		// x = inv(R) Qᴴ b.
		x := make([]complex128, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for l := 0; l < m; l++ {
					x[i*n+j] += cmplx.Conj(q[l*n+i]) * gb[l*n+j]
				}
			}
		}
		for j := 0; j < n; j++ {
			for i := n - 1; i >= 0; i-- {
				s := x[i*n+j]
				for l := i + 1; l < n; l++ {
					s -= r[i*n+l] * x[l*n+j]
				}
				x[i*n+j] = s / r[i*n+i]
			}
		}
		if err := checkArr(in.rank, res.X, []int{n, n}, refMap(x, fromC[T]), in.tol); err != nil {
			return err
		}
		if m == n {
			if len(res.Residuals) != 0 {
				return fmt.Errorf("residuals %v of a square system, want none", res.Residuals)
			}
			return nil
		}
		for j := 0; j < n; j++ {
			s, bb := 0.0, 0.0
			for l := 0; l < m; l++ {
				v := gb[l*n+j]
				for i := 0; i < n; i++ {
					v -= ga[l*n+i] * x[i*n+j]
				}
				s += real(v)*real(v) + imag(v)*imag(v)
				bb += real(gb[l*n+j])*real(gb[l*n+j]) + imag(gb[l*n+j])*imag(gb[l*n+j])
			}
			if math.Abs(res.Residuals[j]-s) > 100*in.tol*math.Max(1, bb) {
				return fmt.Errorf("residual %d: got %v, want %v", j, res.Residuals[j], s)
			}
		}
		return nil
	}}}
}

// checkQR holds q and r to: r upper triangular with a real nonnegative
// diagonal, qᴴq = I, qr = a, and, where a has full rank, to the modified
// Gram-Schmidt factors (then unique).
func checkQR[T backend.Inexact](in *input[T], q, r *dist.Array[T]) error {
	m, n := in.shape[0], in.shape[1]
	k := min(m, n)
	gq, err := dist.Allgather(q)
	if err != nil {
		return fmt.Errorf("gathering q: %v", err)
	}
	gr, err := dist.Allgather(r)
	if err != nil {
		return fmt.Errorf("gathering r: %v", err)
	}
	if len(gq) != m*k || len(gr) != k*n {
		return fmt.Errorf("q of shape %v and r of %v, want [%d %d] and [%d %d]", q.Shape(), r.Shape(), m, k, k, n)
	}
	tol, scale := in.tol*10*float64(max(m, n, 1)), 1.0
	for _, v := range in.gx {
		scale = math.Max(scale, cmplx.Abs(toC(v)))
	}
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			v := toC(gr[i*n+j])
			if (j < i && v != 0) || (j == i && (imag(v) != 0 || real(v) < 0)) {
				return fmt.Errorf("r[%d, %d] = %v: r must be upper triangular with a real nonnegative diagonal", i, j, v)
			}
		}
		for j := 0; j < k; j++ {
			var s complex128
			for l := 0; l < m; l++ {
				s += cmplx.Conj(toC(gq[l*k+i])) * toC(gq[l*k+j])
			}
			if i == j {
				s--
			}
			if cmplx.Abs(s) > tol {
				return fmt.Errorf("(qᴴq - I)[%d, %d] = %v", i, j, s)
			}
		}
	}
	for l := 0; l < m; l++ {
		for j := 0; j < n; j++ {
			s := toC(in.gx[l*n+j])
			for i := 0; i < k; i++ {
				s -= toC(gq[l*k+i]) * toC(gr[i*n+j])
			}
			if cmplx.Abs(s) > tol*scale {
				return fmt.Errorf("(a - qr)[%d, %d] = %v", l, j, s)
			}
		}
	}
	wq, wr, full := refQR(refMap(in.gx, toC[T]), m, n)
	if !full {
		return nil
	}
	if err := checkArr(in.rank, q, []int{m, k}, refMap(wq, fromC[T]), tol); err != nil {
		return fmt.Errorf("q: %v", err)
	}
	if err := checkArr(in.rank, r, []int{k, n}, refMap(wr, fromC[T]), tol*scale); err != nil {
		return fmt.Errorf("r: %v", err)
	}
	return nil
}

// refSolve solves a x = b (a n x n, b n x k) by Gaussian elimination
// with partial pivoting.
func refSolve(a, b []complex128, n, k int) []complex128 {
	a, x := append([]complex128(nil), a...), append([]complex128(nil), b...)
	for j := 0; j < n; j++ {
		p := j
		for i := j + 1; i < n; i++ {
			if cmplx.Abs(a[i*n+j]) > cmplx.Abs(a[p*n+j]) {
				p = i
			}
		}
		for c := 0; c < n; c++ {
			a[j*n+c], a[p*n+c] = a[p*n+c], a[j*n+c]
		}
		for c := 0; c < k; c++ {
			x[j*k+c], x[p*k+c] = x[p*k+c], x[j*k+c]
		}
		for i := j + 1; i < n; i++ {
			l := a[i*n+j] / a[j*n+j]
			for c := j; c < n; c++ {
				a[i*n+c] -= l * a[j*n+c]
			}
			for c := 0; c < k; c++ {
				x[i*k+c] -= l * x[j*k+c]
			}
		}
	}
	for j := n - 1; j >= 0; j-- {
		for c := 0; c < k; c++ {
			s := x[j*k+c]
			for l := j + 1; l < n; l++ {
				s -= a[j*n+l] * x[l*k+c]
			}
			x[j*k+c] = s / a[j*n+j]
		}
	}
	return x
}

// refQR is the modified Gram-Schmidt QR of a (m x n): q (m x k) and r (k
// x n), k = min(m, n), r's diagonal positive; full is false where a
// column of the first k is (nearly) dependent on those before it.
func refQR(a []complex128, m, n int) (q, r []complex128, full bool) {
	k := min(m, n)
	q, r = make([]complex128, m*k), make([]complex128, k*n)
	v := append([]complex128(nil), a...) // columns being orthogonalized
	full = true
	for i := 0; i < k; i++ {
		nrm, col := 0.0, 0.0
		for l := 0; l < m; l++ {
			nrm += real(v[l*n+i])*real(v[l*n+i]) + imag(v[l*n+i])*imag(v[l*n+i])
			col += cmplx.Abs(a[l*n+i]) * cmplx.Abs(a[l*n+i])
		}
		nrm = math.Sqrt(nrm)
		if nrm <= 1e-8*math.Sqrt(col) || nrm == 0 {
			return q, r, false
		}
		r[i*n+i] = complex(nrm, 0)
		for l := 0; l < m; l++ {
			q[l*k+i] = v[l*n+i] / complex(nrm, 0)
		}
		for j := i + 1; j < n; j++ {
			var s complex128
			for l := 0; l < m; l++ {
				s += cmplx.Conj(q[l*k+i]) * v[l*n+j]
			}
			r[i*n+j] = s
			for l := 0; l < m; l++ {
				v[l*n+j] -= s * q[l*k+i]
			}
		}
	}
	return q, r, full
}

// refSpectral is the largest singular value of the real m x n matrix a:
// the square root of the largest eigenvalue of aᵀa, by Jacobi's rotations.
func refSpectral(a []complex128, m, n int) float64 {
	s := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < m; l++ {
				s[i*n+j] += real(a[l*n+i]) * real(a[l*n+j])
			}
		}
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				off += s[p*n+q] * s[p*n+q]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				if s[p*n+q] == 0 {
					continue
				}
				th := (s[q*n+q] - s[p*n+p]) / (2 * s[p*n+q])
				t := math.Copysign(1, th) / (math.Abs(th) + math.Sqrt(th*th+1))
				c := 1 / math.Sqrt(t*t+1)
				sn := t * c
				for l := 0; l < n; l++ {
					sp, sq := s[l*n+p], s[l*n+q]
					s[l*n+p], s[l*n+q] = c*sp-sn*sq, sn*sp+c*sq
				}
				for l := 0; l < n; l++ {
					sp, sq := s[p*n+l], s[q*n+l]
					s[p*n+l], s[q*n+l] = c*sp-sn*sq, sn*sp+c*sq
				}
			}
		}
	}
	mx := 0.0
	for i := 0; i < n; i++ {
		mx = math.Max(mx, s[i*n+i])
	}
	return math.Sqrt(mx)
}
