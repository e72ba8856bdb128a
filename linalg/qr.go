package linalg

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// QR returns the reduced QR factorization a = q r of an m x n matrix, as
// numpy.linalg.qr(a) (mode "reduced"): q of shape [m, k] with orthonormal
// columns and r of shape [k, n] upper triangular (trapezoidal), k =
// min(m, n). It takes float32, float64, complex64 and complex128 arrays
// and computes in the element type.
//
// Signs: the factorization is unique only up to the sign (for complex
// matrices the phase) of each column of q and the matching row of r.
// QR normalizes it so that r's diagonal is real and nonnegative, which is
// not always LAPACK's (NumPy's) choice: to compare with NumPy, multiply
// column i of NumPy's q and row i of its r by the sign (phase) of its
// r[i, i]. For a matrix of full column rank this r is the unique one with
// a positive diagonal (the Cholesky factor of aᴴa).
//
// # Algorithm and communication
//
// TSQR (Demmel, Grigori, Hoemmen and Langou, 2012) over row blocks: each
// rank factors its own rows (Householder reflections, LAPACK's geqr2),
// the ranks' R factors (min(rows, n) x n each) are gathered on every rank
// (one all-gather, at most p·n² elements received), every rank factors
// their stack, and each rank's q block is its local q times its block of
// the stack's q (a GEMM). One collective in all, and about 2mn²/p +
// 2pn³ flops per rank: meant for tall-skinny matrices (n small against
// m/p), where it moves far less than a 2-D factorization.
//
// Layouts: an a split along axis 0 (any block sizes, ghost layers or not)
// is used where it is; another a is first redistributed to even row
// blocks (one all-to-all; none for a replicated a). q is split along axis
// 0 with those blocks, except that for m >= n (q of a's shape) and an a of
// another layout q is redistributed to a's layout (without ghost layers);
// r is replicated. Both are on a's backend; a device block is copied to
// the host for the factorization (recorded). a not 2-D, and a freed a,
// are errors.
func QR[T backend.Inexact](a *dist.Array[T]) (q, r *dist.Array[T], err error) {
	const op = "QR"
	if a.Freed() {
		return nil, nil, freed(op, a.Comm())
	}
	sh := a.Shape()
	if len(sh) != 2 {
		return nil, nil, fmt.Errorf("linalg: QR of shape %v: a must be a matrix (2-D)", sh)
	}
	if err := check(op, a); err != nil {
		return nil, nil, err
	}
	c := a.Comm()
	m, n := sh[0], sh[1]
	ar, own, err := rowsOf(a)
	if err != nil {
		return nil, nil, err
	}
	if own {
		defer ar.Free()
	}
	cnt := ar.Layout().Counts()
	x, err := hostCopy(ar)
	if err = mpi.Agree(c, err); err != nil {
		return nil, nil, err
	}
	me := c.Rank()
	q1, r1 := localQR(x, cnt[me], n, true)
	rs, qs, k, err := tsqr(c, r1, cnt, n, true)
	if err != nil {
		return nil, nil, err
	}
	// This rank's q: its local q (mr x kr) times its rows of the stack's q.
	mr, kr := cnt[me], min(cnt[me], n)
	off := 0
	for p := 0; p < me; p++ {
		off += min(cnt[p], n)
	}
	qr := make([]T, mr*k)
	gemm(mr, k, kr, q1, max(kr, 1), qs[off*k:], max(k, 1), qr, max(k, 1))
	be := a.Local().Backend()
	ql := dist.NewLayoutCounts([]int{m, k}, 0, cnt)
	q, err = newFrom(c, ql, be, qr)
	if err != nil {
		return nil, nil, err
	}
	r, err = newFrom(c, dist.NewLayout([]int{k, n}, dist.Replicated, c.Size()), be, rs)
	if err != nil {
		q.Free()
		return nil, nil, err
	}
	if own && k == n {
		q2, err := dist.Redistribute(q, a.Layout())
		q.Free()
		if err != nil {
			r.Free()
			return nil, nil, err
		}
		q = q2
	}
	return q, r, nil
}

// tsqr returns the R factor (k x n, k = min(m, n), diagonal real and
// nonnegative) of the matrix whose row blocks (cnt[q] rows of n columns)
// the ranks hold, and, if wantQ, the q of the stack
// of the ranks' local R factors (K x k, K the sum of min(cnt[q], n)),
// with the same normalization. r1 is this rank's local R factor
// (min(cnt[me], n) x n). It is collective: one all-gather.
func tsqr[T backend.Inexact](c mpi.Comm, r1 []T, cnt []int, n int, wantQ bool) (r, qs []T, k int, err error) {
	p := c.Size()
	rows := make([]int, p)
	for q := range rows {
		rows[q] = min(cnt[q], n)
	}
	counts, displs, total := countsDispls(rows, n)
	stack := make([]T, total)
	if err := mpi.Allgatherv(c, r1, stack, counts, displs); err != nil {
		return nil, nil, 0, err
	}
	K := total / max(n, 1)
	if n == 0 {
		K = 0
	}
	qs, r = localQR(stack, K, n, wantQ)
	k = min(K, n)
	// Make r's diagonal real and nonnegative: row i of r times conj(d),
	// column i of qs times d, d the phase of r[i, i].
	for i := 0; i < k; i++ {
		v := toC128(r[i*n+i])
		a := cmplx.Abs(v)
		if a == 0 || v == complex(a, 0) || math.IsNaN(a) {
			continue
		}
		d := v / complex(a, 0)
		cd := fromC128[T](cmplx.Conj(d))
		for j := i; j < n; j++ {
			r[i*n+j] *= cd
		}
		r[i*n+i] = fromC128[T](complex(a, 0))
		if wantQ {
			dd := fromC128[T](d)
			for s := 0; s < K; s++ {
				qs[s*k+i] *= dd
			}
		}
	}
	return r, qs, k, nil
}

// LstsqResult is what Lstsq returns, as numpy.linalg.lstsq's four values.
type LstsqResult[T backend.Inexact] struct {
	// X is the solution, of shape [n] or [n, k] as b's, replicated, on b's
	// backend.
	X *dist.Array[T]
	// Residuals holds the sums of squared residuals |b - a x|² of each
	// column of b (one for a 1-D b), where m > n; empty otherwise, as
	// NumPy's.
	Residuals []float64
	// Rank is the rank of a: n (a rank-deficient a is an error).
	Rank int
	// S holds a's singular values, largest first.
	S []float64
}

// Lstsq returns the least-squares solution x minimizing |b - a x|₂ for an
// m x n matrix a of full column rank, m >= n, and b of shape [m] or [m,
// k], as numpy.linalg.lstsq(a, b) with its default rcond (eps·max(m, n)):
// x, the residuals, the rank and a's singular values. It takes float32,
// float64, complex64 and complex128 arrays and computes in the element
// type (the singular values in float64).
//
// A rank-deficient a (a singular value at or below rcond times the
// largest) is an error, a *RankError wrapping ErrRankDeficient that
// reports the rank and the singular values: NumPy returns the
// minimum-norm solution there, which needs the SVD of the whole matrix.
// A wide a (m < n, an underdetermined system) is refused likewise. Shapes
// that do not fit, arrays on different communicators and freed arrays
// (dist.ErrFreed) are errors.
//
// # Algorithm and communication
//
// TSQR (see QR) of the augmented matrix [a | b]: its R factor holds R
// (n x n, a's), Qᴴb (n x k) and, below, the part of b that a's columns do
// not reach, whose column norms are the residuals; x = inv(R) Qᴴb, and
// a's singular values are R's (an SVD of R, n x n, on every rank). q is
// never formed. b is redistributed to a's row blocks (one all-to-all where
// it is not on them; a is redistributed to row blocks first where it is
// not split along axis 0, as by QR); then one all-gather of at most
// p·(n+k)² elements. Meant for tall-skinny a and few right-hand sides.
func Lstsq[T backend.Inexact](a, b *dist.Array[T]) (*LstsqResult[T], error) {
	const op = "Lstsq"
	if anyFreed(a, b) {
		return nil, freed(op, a.Comm())
	}
	as, bs := a.Shape(), b.Shape()
	if len(as) != 2 {
		return nil, fmt.Errorf("linalg: Lstsq: a of shape %v: a must be a matrix (2-D)", as)
	}
	m, n := as[0], as[1]
	if (len(bs) != 1 && len(bs) != 2) || bs[0] != m {
		return nil, fmt.Errorf("linalg: Lstsq: b of shape %v for a of shape %v: b must be of shape [%d] or [%d, k]", bs, as, m, m)
	}
	if m < n {
		return nil, fmt.Errorf("linalg: Lstsq: a of shape %v has fewer rows than columns (an underdetermined system): Lstsq takes tall matrices of full column rank (m >= n); the minimum-norm solution needs an SVD, which it does not compute", as)
	}
	if a.Comm() != b.Comm() {
		return nil, fmt.Errorf("linalg: Lstsq: a and b are on different communicators")
	}
	if err := check(op, a, b); err != nil {
		return nil, err
	}
	c := a.Comm()
	nrhs := 1
	if len(bs) == 2 {
		nrhs = bs[1]
	}
	aw, bw, cnt, err := hostRows(c, a, b)
	if err != nil {
		return nil, err
	}
	mr, nc := cnt[c.Rank()], n+nrhs
	w := make([]T, mr*nc)
	for i := 0; i < mr; i++ {
		copy(w[i*nc:], aw[i*n:(i+1)*n])
		copy(w[i*nc+n:], bw[i*nrhs:(i+1)*nrhs])
	}
	_, w1 := localQR(w, mr, nc, false)
	ra, _, k, err := tsqr(c, w1, cnt, nc, false)
	if err != nil {
		return nil, err
	}
	// R11 = ra[:n, :n] (k >= n since m >= n).
	r11 := make([]T, n*n)
	for i := 0; i < n; i++ {
		copy(r11[i*n:], ra[i*nc:i*nc+n])
	}
	s, ok := singularValues(r11, n, n)
	if !ok {
		return nil, fmt.Errorf("linalg: Lstsq: the SVD of R (%d x %d) did not converge", n, n)
	}
	rank := 0
	if n > 0 {
		cut := eps[T]() * float64(max(m, n)) * s[0]
		for _, v := range s {
			if v > cut {
				rank++
			}
		}
	}
	if rank < n {
		return nil, &RankError{Rank: rank, Cols: n, S: s}
	}
	x := make([]T, n*nrhs)
	for i := 0; i < n; i++ {
		copy(x[i*nrhs:], ra[i*nc+n:(i+1)*nc])
	}
	trsm(false, n, nrhs, r11, max(n, 1), x, max(nrhs, 1))
	res := []float64{}
	if m > n {
		res = make([]float64, nrhs)
		for j := 0; j < nrhs; j++ {
			for i := n; i < k; i++ {
				v := toC128(ra[i*nc+n+j])
				res[j] += real(v)*real(v) + imag(v)*imag(v)
			}
		}
	}
	xa, err := newFrom(c, dist.NewLayout(slicesOf(bs, n), dist.Replicated, c.Size()), b.Local().Backend(), x)
	if err != nil {
		return nil, err
	}
	return &LstsqResult[T]{X: xa, Residuals: res, Rank: rank, S: s}, nil
}

// slicesOf returns b's shape with its first axis n.
func slicesOf(bs []int, n int) []int {
	s := append([]int(nil), bs...)
	s[0] = n
	return s
}
