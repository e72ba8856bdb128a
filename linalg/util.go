package linalg

import (
	"errors"
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// ErrSingular is wrapped by Solve's error for an exactly singular matrix
// (a *SingularError says which pivot column).
var ErrSingular = errors.New("singular matrix")

// ErrRankDeficient is wrapped by Lstsq's error for a matrix whose rank is
// below its number of columns (a *RankError says the rank).
var ErrRankDeficient = errors.New("rank-deficient matrix")

// SingularError is Solve's error for a matrix that is exactly singular:
// LU with partial pivoting met a zero pivot, as LAPACK's getrf reports
// info > 0. Column is the 0-based column of the zero pivot (getrf's info
// is Column+1). It wraps ErrSingular.
type SingularError struct {
	Op     string
	Column int
}

func (e *SingularError) Error() string {
	return fmt.Sprintf("linalg: %s: singular matrix: the pivot of column %d is exactly zero (LAPACK getrf info %d)", e.Op, e.Column, e.Column+1)
}

// Unwrap returns ErrSingular.
func (e *SingularError) Unwrap() error { return ErrSingular }

// RankError is Lstsq's error for a matrix of rank below its number of
// columns: Rank singular values of the n (Cols) are above the cutoff,
// rcond times the largest, with rcond NumPy's default eps*max(m, n). S
// holds the singular values, largest first, as numpy.linalg.lstsq's s.
// It wraps ErrRankDeficient.
type RankError struct {
	Rank, Cols int
	S          []float64
}

func (e *RankError) Error() string {
	return fmt.Sprintf("linalg: Lstsq: rank-deficient matrix: rank %d of %d columns (singular values %v); the minimum-norm solution of a rank-deficient system needs the SVD of the whole matrix, which Lstsq does not compute: drop dependent columns, or regularize", e.Rank, e.Cols, e.S)
}

// Unwrap returns ErrRankDeficient.
func (e *RankError) Unwrap() error { return ErrRankDeficient }

// freed returns the error of op on a freed array (wrapping dist.ErrFreed),
// after the checking mode's check of the call, as package dist does.
func freed(op string, c mpi.Comm) error {
	err := backend.FreedError("linalg", op)
	if mpi.Checking() {
		if cerr := mpi.CheckCollective(c, "linalg."+op, mpi.Arg{Name: "freed array", Value: 1}); cerr != nil {
			return fmt.Errorf("%w (%w)", err, cerr)
		}
	}
	return err
}

// anyFreed reports whether one of xs is freed.
func anyFreed[T backend.Numeric](xs ...*dist.Array[T]) bool {
	for _, x := range xs {
		if x.Freed() {
			return true
		}
	}
	return false
}

// check joins the checking mode's check of op: every rank passes the same
// shapes and layouts.
func check[T backend.Numeric](op string, xs ...*dist.Array[T]) error {
	if !mpi.Checking() {
		return nil
	}
	args := []mpi.Arg{{Name: "dtype", Value: int64(backend.DTypeOf[T]()), Text: backend.DTypeOf[T]().String()}}
	for i, x := range xs {
		l := x.Layout()
		h := int64(l.Axis())
		for _, d := range l.Shape() {
			h = h*1000003 + int64(d)
		}
		args = append(args, mpi.Arg{Name: fmt.Sprintf("array %d", i), Value: h, Text: l.String()})
	}
	return mpi.CheckCollective(xs[0].Comm(), "linalg."+op, args...)
}

// rowsOf returns x split along axis 0: x itself where it is, otherwise a
// new array redistributed to even row blocks (one all-to-all; none for a
// replicated x, whose ranks cut their rows out of their own copy), which
// the caller frees (own).
func rowsOf[T backend.Numeric](x *dist.Array[T]) (y *dist.Array[T], own bool, err error) {
	l := x.Layout()
	if l.Axis() == 0 {
		return x, false, nil
	}
	y, err = dist.Redistribute(x, dist.NewLayout(l.Shape(), 0, l.Ranks()))
	return y, err == nil, err
}

// toCounts returns x (split along axis 0, or any layout) laid out along
// axis 0 with the given block sizes: x itself where it already is.
func toCounts[T backend.Numeric](x *dist.Array[T], counts []int) (y *dist.Array[T], own bool, err error) {
	l := dist.NewLayoutCounts(x.Shape(), 0, counts)
	if x.Layout().Equal(l) {
		return x, false, nil
	}
	y, err = dist.Redistribute(x, l)
	return y, err == nil, err
}

// hostRows returns this rank's rows of a and b in host memory, a split by
// rows (redistributed where it is not) and b by the same row counts, and
// the row counts of every rank: the first step of Solve and Lstsq. It is
// collective; a failure to copy on any rank is every rank's error.
func hostRows[T backend.Numeric](c mpi.Comm, a, b *dist.Array[T]) (aw, bw []T, counts []int, err error) {
	ar, own, err := rowsOf(a)
	if err != nil {
		return nil, nil, nil, err
	}
	if own {
		defer ar.Free()
	}
	counts = ar.Layout().Counts()
	br, ownb, err := toCounts(b, counts)
	if err != nil {
		return nil, nil, nil, err
	}
	if ownb {
		defer br.Free()
	}
	aw, err = hostCopy(ar)
	if err == nil {
		bw, err = hostCopy(br)
	}
	if err = mpi.Agree(c, err); err != nil {
		return nil, nil, nil, err
	}
	return aw, bw, counts, nil
}

// hostCopy returns a copy of this rank's block of x in host memory (a
// device block is copied to the host, recorded).
func hostCopy[T backend.Numeric](x *dist.Array[T]) ([]T, error) {
	h, err := backend.ToHost(x.Local())
	if err != nil {
		return nil, err
	}
	return slices.Clone(h.Data()), nil
}

// newFrom returns a new array of layout l on c and backend be whose block
// is data (copied, to the device for a device backend). It is collective;
// a failure on any rank is every rank's.
func newFrom[T backend.Numeric](c mpi.Comm, l dist.Layout, be backend.Backend, data []T) (*dist.Array[T], error) {
	out, err := dist.New[T](c, l, dist.OnBackend(be))
	if err != nil {
		return nil, err
	}
	if len(data) > 0 {
		err = backend.CopyFromHostSlice(out.Local(), data)
	}
	if err = mpi.Agree(c, err); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// counts returns the number of elements each rank sends, n per row, for
// rows[q] rows of rank q, and the displacements.
func countsDispls(rows []int, n int) (counts, displs []int, total int) {
	counts, displs = make([]int, len(rows)), make([]int, len(rows))
	for q, r := range rows {
		counts[q], displs[q] = r*n, total
		total += r * n
	}
	return counts, displs, total
}
