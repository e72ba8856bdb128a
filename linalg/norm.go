package linalg

import (
	"fmt"
	"math"
	"strconv"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Ord is the order of a norm, NumPy's ord argument of numpy.linalg.norm:
// OrdDefault (NumPy's None), OrdFro, OrdNuc, or a number (OrdP: 2, 1, 0,
// -1, -2, math.Inf(1), math.Inf(-1), or any p for vectors).
type Ord struct {
	kind ordKind
	p    float64
}

type ordKind int

const (
	ordDefault ordKind = iota
	ordNumber
	ordFro
	ordNuc
)

// The orders that are not numbers.
var (
	// OrdDefault is NumPy's ord=None: the 2-norm of a vector, the
	// Frobenius norm of a matrix, the 2-norm of the flattened array when
	// no axes are given.
	OrdDefault = Ord{}
	// OrdFro is the Frobenius norm of a matrix ('fro').
	OrdFro = Ord{kind: ordFro}
	// OrdNuc is the nuclear norm of a matrix ('nuc'), the sum of its
	// singular values.
	OrdNuc = Ord{kind: ordNuc}
)

// OrdP is the order p, a number: for vectors sum(|x|^p)^(1/p), with 0
// (the count of nonzero elements), math.Inf(1) (max |x|) and math.Inf(-1)
// (min |x|); for matrices 1, -1, 2, -2, math.Inf(1) and math.Inf(-1), as
// NumPy's.
func OrdP(p float64) Ord { return Ord{kind: ordNumber, p: p} }

func (o Ord) String() string {
	switch o.kind {
	case ordDefault:
		return "None"
	case ordFro:
		return "'fro'"
	case ordNuc:
		return "'nuc'"
	}
	return strconv.FormatFloat(o.p, 'g', -1, 64)
}

// Norm returns the norm of x of order ord along axes, as
// numpy.linalg.norm(x, ord, axis): with one axis a vector norm of each
// line along it, with two axes a matrix norm of each matrix they span
// (row axis first), with none the vector norm of a 1-D x, the matrix norm
// of a 2-D x, or for OrdDefault the 2-norm of all of x's elements. The
// result has the axes removed, shape [1] where none is left (NumPy's 0-d
// array), and x's element type (NumPy's float32 for float32 input);
// NormComplex takes complex arrays, and an integer array is converted
// first (dist.Astype[float64], as NumPy converts it). Negative axes count
// from the end.
//
// The orders are NumPy's. Vectors: OrdDefault and OrdP(2), sqrt(sum
// |x|²); OrdP(1), sum |x|; OrdP(±Inf), max and min |x|; OrdP(0), the
// number of nonzero elements; any other p, sum(|x|^p)^(1/p); OrdFro and
// OrdNuc are errors, as NumPy's. Matrices: OrdDefault and OrdFro, the
// Frobenius norm; OrdP(1) and OrdP(-1), the largest and smallest column
// sum of |x|; OrdP(Inf) and OrdP(-Inf), the largest and smallest row sum;
// OrdP(2), OrdP(-2) and OrdNuc, the largest and smallest singular value
// and their sum, for a 2-D x only (a stack of matrices, x of more than
// two axes, is refused for them, naming the order); any other order is an
// error. The max and min norms of an empty line are errors wrapping
// dist.ErrEmpty (NumPy's "zero-size array" error); the sums of an empty
// line are 0. More than two axes, an axis out of range or given twice, and
// an x of more than two axes with a numeric ord and no axes, are errors.
// A freed x is an error wrapping dist.ErrFreed.
//
// # Layouts and communication
//
// Every layout: the vector norms and the Frobenius, 1 and Inf matrix
// norms are dist's elementwise operations and axis reductions (dist.Abs,
// dist.PowScalar, dist.SumAxis, dist.MaxAxis, dist.NormAxis), run where
// the blocks are (on their device): a reduction along the split axis is
// one all-reduce of the result's size, one along an unsplit axis none,
// and an array on a process grid is first redistributed (one all-to-all)
// as dist's axis reductions do. Sums are taken in float64, as dist's. The
// singular values (OrdP(±2), OrdNuc) come from TSQR's R factor (see QR)
// of x, or of its transpose when x is wide (dist.Transpose, one
// all-to-all): one all-gather of at most p·k² elements and an SVD of k x k
// on every rank, k the smaller dimension, so cheap for tall-skinny
// matrices and of k² memory per rank in general.
func Norm[T backend.Float](x *dist.Array[T], ord Ord, axes ...int) (*dist.Array[T], error) {
	if x.Freed() {
		return nil, freed("Norm", x.Comm())
	}
	if err := check("Norm", x); err != nil {
		return nil, err
	}
	return norm(x, ord, axes, "Norm")
}

// NormComplex is Norm of a complex array: every norm of the moduli |x|
// (dist.AbsComplex), but the singular values (OrdP(±2), OrdNuc), which are
// those of x itself. The result is of the real type R of T's parts
// (float64 for complex128, float32 for complex64), as NumPy's.
func NormComplex[R backend.Float, T backend.Complex](x *dist.Array[T], ord Ord, axes ...int) (_ *dist.Array[R], err error) {
	if x.Freed() {
		return nil, freed("NormComplex", x.Comm())
	}
	if backend.DTypeOf[R]().Size()*2 != backend.DTypeOf[T]().Size() {
		return nil, fmt.Errorf("linalg: NormComplex: a result of %v for %v: R must be the type of T's parts (float64 for complex128, float32 for complex64)", backend.DTypeOf[R](), backend.DTypeOf[T]())
	}
	if err := check("NormComplex", x); err != nil {
		return nil, err
	}
	plan, err := planNorm(x.Shape(), ord, axes)
	if err != nil {
		return nil, fmt.Errorf("linalg: NormComplex: %w", err)
	}
	if plan.svd {
		return svdNorm[R](x, plan)
	}
	ax, err := dist.AbsComplex[R](x)
	if err != nil {
		return nil, err
	}
	defer ax.Free()
	return norm(ax, ord, axes, "NormComplex")
}

// normPlan is what a norm computes: a vector norm along axes[0], or a
// matrix norm along axes[0] (rows) and axes[1] (columns), or the 2-norm
// of everything (all).
type normPlan struct {
	ord    Ord
	axes   []int
	matrix bool
	all    bool
	svd    bool // OrdP(±2) or OrdNuc of a matrix
}

func planNorm(shape []int, ord Ord, axes []int) (normPlan, error) {
	nd := len(shape)
	pl := normPlan{ord: ord}
	if len(axes) == 0 {
		switch {
		case ord.kind == ordDefault:
			pl.all = true
			return pl, nil
		case nd == 1:
			axes = []int{0}
		case nd == 2:
			axes = []int{0, 1}
		default:
			return pl, fmt.Errorf("ord %v of an array of %d axes with no axes given: improper number of dimensions to norm (give one axis for vector norms or two for matrix norms)", ord, nd)
		}
	}
	if len(axes) > 2 {
		return pl, fmt.Errorf("axes %v: improper number of dimensions to norm (one axis for vector norms, two for matrix norms)", axes)
	}
	for i, a := range axes {
		if a < -nd || a >= nd {
			return pl, fmt.Errorf("axis %d out of range for an array of %d axes", a, nd)
		}
		if a < 0 {
			a += nd
		}
		pl.axes = append(pl.axes, a)
		if i == 1 && pl.axes[0] == a {
			return pl, fmt.Errorf("axes %v: duplicate axes given", axes)
		}
	}
	if len(pl.axes) == 1 {
		if ord.kind == ordFro || ord.kind == ordNuc {
			return pl, fmt.Errorf("invalid norm order %v for vectors", ord)
		}
		return pl, nil
	}
	pl.matrix = true
	switch {
	case ord.kind == ordDefault, ord.kind == ordFro:
	case ord.kind == ordNuc, ord.kind == ordNumber && math.Abs(ord.p) == 2:
		if nd != 2 {
			return pl, fmt.Errorf("matrix norm of order %v of a stack of matrices (an array of %d axes): the singular values are computed for a 2-D array only; take the norm of each matrix (Slice) or another order", ord, nd)
		}
		pl.svd = true
	case ord.kind == ordNumber && (math.Abs(ord.p) == 1 || math.IsInf(ord.p, 0)):
	default:
		return pl, fmt.Errorf("invalid norm order %v for matrices (1, -1, 2, -2, Inf, -Inf, 'fro', 'nuc')", ord)
	}
	return pl, nil
}

// norm is Norm of a real x, checked.
func norm[T backend.Float](x *dist.Array[T], ord Ord, axes []int, op string) (_ *dist.Array[T], err error) {
	pl, err := planNorm(x.Shape(), ord, axes)
	if err != nil {
		return nil, fmt.Errorf("linalg: %s: %w", op, err)
	}
	if pl.svd {
		return svdNorm[T](x, pl)
	}
	var y *dist.Array[T]
	switch {
	case pl.all:
		y, err = sumSqrtAll(x)
	case !pl.matrix:
		y, err = vectorNorm(x, ord, pl.axes[0])
	default:
		y, err = matrixNorm(x, ord, pl.axes[0], pl.axes[1])
	}
	if err != nil {
		return nil, fmt.Errorf("linalg: %s: %w", op, err)
	}
	return y, nil
}

// sumSqrtAll is the 2-norm of all of x: 2-norms along one axis after
// another.
func sumSqrtAll[T backend.Float](x *dist.Array[T]) (*dist.Array[T], error) {
	y, err := dist.NormAxis(x, 0)
	for err == nil && len(x.Shape()) > 1 {
		x = y
		y, err = dist.NormAxis(x, 0)
		x.Free()
	}
	return y, err
}

// abs returns a new |x|.
func abs[T backend.Float](x *dist.Array[T]) (*dist.Array[T], error) {
	y, err := dist.ZerosLike(x)
	if err != nil {
		return nil, err
	}
	if err := dist.Abs(y, x); err != nil {
		y.Free()
		return nil, err
	}
	return y, nil
}

// reduce applies an axis reduction to x and frees x if own.
func reduce[T backend.Float](x *dist.Array[T], own bool, axis int, f func(*dist.Array[T], int) (*dist.Array[T], error)) (*dist.Array[T], error) {
	if own {
		defer x.Free()
	}
	return f(x, axis)
}

// extremum is MaxAxis (max) or MinAxis, with the empty axis an error.
func extremum[T backend.Float](max bool) func(*dist.Array[T], int) (*dist.Array[T], error) {
	return func(x *dist.Array[T], axis int) (*dist.Array[T], error) {
		if x.Shape()[axis] == 0 {
			what := "minimum"
			if max {
				what = "maximum"
			}
			return nil, fmt.Errorf("a %s of a zero-size axis (axis %d of shape %v), which has no identity: %w", what, axis, x.Shape(), dist.ErrEmpty)
		}
		if max {
			return dist.MaxAxis(x, axis)
		}
		return dist.MinAxis(x, axis)
	}
}

func vectorNorm[T backend.Float](x *dist.Array[T], ord Ord, axis int) (*dist.Array[T], error) {
	if ord.kind == ordDefault || ord.p == 2 {
		return dist.NormAxis(x, axis)
	}
	p := ord.p
	if p == 0 {
		nz, err := dist.NotEqualScalar(x, 0)
		if err != nil {
			return nil, err
		}
		f, err := dist.Astype[T](nz)
		nz.Free()
		if err != nil {
			return nil, err
		}
		return reduce(f, true, axis, dist.SumAxis[T])
	}
	ax, err := abs(x)
	if err != nil {
		return nil, err
	}
	switch {
	case math.IsInf(p, 1):
		return reduce(ax, true, axis, extremum[T](true))
	case math.IsInf(p, -1):
		return reduce(ax, true, axis, extremum[T](false))
	case p == 1:
		return reduce(ax, true, axis, dist.SumAxis[T])
	}
	if err := dist.PowScalar(ax, ax, T(p)); err != nil {
		ax.Free()
		return nil, err
	}
	s, err := reduce(ax, true, axis, dist.SumAxis[T])
	if err != nil {
		return nil, err
	}
	if err := dist.PowScalar(s, s, T(1/p)); err != nil {
		s.Free()
		return nil, err
	}
	return s, nil
}

func matrixNorm[T backend.Float](x *dist.Array[T], ord Ord, ra, ca int) (*dist.Array[T], error) {
	if ord.kind == ordDefault || ord.kind == ordFro {
		y, err := dist.NormAxis(x, ra)
		if err != nil {
			return nil, err
		}
		if ca > ra {
			ca--
		}
		return reduce(y, true, ca, dist.NormAxis[T])
	}
	// NumPy: 1 and -1 sum along the row axis, then the max or min along
	// the column axis; Inf and -Inf the other way round.
	first, second := ra, ca
	if math.IsInf(ord.p, 0) {
		first, second = ca, ra
	}
	ax, err := abs(x)
	if err != nil {
		return nil, err
	}
	s, err := reduce(ax, true, first, dist.SumAxis[T])
	if err != nil {
		return nil, err
	}
	if second > first {
		second--
	}
	return reduce(s, true, second, extremum[T](ord.p > 0))
}

// svdNorm is the 2, -2 or nuclear norm of a 2-D x from its singular
// values (those of TSQR's R of x, or of its transpose for a wide x),
// replicated, of shape [1], of type R.
func svdNorm[R backend.Float, T backend.Inexact](x *dist.Array[T], pl normPlan) (*dist.Array[R], error) {
	c := x.Comm()
	sh := x.Shape()
	y := x
	if sh[0] < sh[1] {
		if x.Layout().Axis() == dist.Grid {
			// dist.Transpose takes arrays split on one axis.
			xr, _, err := rowsOf(x)
			if err != nil {
				return nil, err
			}
			defer xr.Free()
			x = xr
		}
		t, err := dist.Transpose(x)
		if err != nil {
			return nil, err
		}
		defer t.Free()
		y = t
	}
	yr, own, err := rowsOf(y)
	if err != nil {
		return nil, err
	}
	if own {
		defer yr.Free()
	}
	n := yr.Shape()[1]
	cnt := yr.Layout().Counts()
	w, err := hostCopy(yr)
	if err = mpi.Agree(c, err); err != nil {
		return nil, err
	}
	_, r1 := localQR(w, cnt[c.Rank()], n, false)
	r, _, k, err := tsqr(c, r1, cnt, n, false)
	if err != nil {
		return nil, err
	}
	s, ok := singularValues(r, k, n)
	if !ok {
		return nil, fmt.Errorf("linalg: Norm: the SVD of R (%d x %d) did not converge", k, n)
	}
	var v float64
	switch {
	case len(s) == 0 && pl.ord.kind == ordNuc:
	case len(s) == 0:
		return nil, fmt.Errorf("linalg: Norm: order %v of an empty matrix (shape %v): no singular values: %w", pl.ord, sh, dist.ErrEmpty)
	case pl.ord.kind == ordNuc:
		for _, e := range s {
			v += e
		}
	case pl.ord.p > 0:
		v = s[0]
	default:
		v = s[len(s)-1]
	}
	return newFrom(c, dist.NewLayout([]int{1}, dist.Replicated, c.Size()), x.Local().Backend(), []R{R(v)})
}
