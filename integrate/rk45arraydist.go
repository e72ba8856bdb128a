package integrate

import (
	"errors"
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// DistArrayBatchResult is the outcome of SolveIVPBatchDist.
type DistArrayBatchResult struct {
	// Y is the state of every system where it stopped, with y0's layout
	// and backend: a new array that the caller frees.
	Y *dist.Array[float64]
	// Lo is the index of this rank's first system; TFinal, Steps,
	// Rejected, Status, Stiff and Err are this rank's systems' (system
	// Lo+k at k), as in ArrayBatchResult.
	Lo                      int
	TFinal                  []float64
	Steps, Rejected, Status []int
	Stiff                   []bool
	Err                     []error
	// NumFailed counts the failed systems of all ranks (the same on every
	// rank).
	NumFailed int
	// Calls, Rounds, ToDevice and ToHost are this rank's, as in
	// ArrayBatchResult.
	Calls, Rounds, ToDevice, ToHost int
}

// Free frees the result's array.
func (r *DistArrayBatchResult) Free() {
	if r != nil && r.Y != nil {
		r.Y.Free()
		r.Y = nil
	}
}

// SolveIVPBatchDist is SolveIVPBatchArray over a distributed array of
// systems: y0 has the global shape (nsys, dim) split along axis 0 (or
// replicated), or (nsys) for systems of one equation, so that every rank
// holds whole systems, and every rank integrates its own block of systems
// (y0.Local()) on the block's device with SolveIVPBatchArray's kernels,
// calling f on its own (f is not collective: it gets this rank's block,
// with t and dydt, and holds this rank's blocks of the parameter arrays).
// The ranks do not communicate while they integrate (each runs its own
// loop of steps until its systems are done); at the end one allreduce
// counts the failures. Every system gets the steps and the bits that
// SolveIVPBatch gives it, so the results are the same, bit for bit, at
// every rank count.
//
// It is collective: an error of f or a device on one rank is returned on
// every rank, with a nil result. The returned error, the same on every
// rank, joins one error per kind of failure that some system had (saying
// how many, wrapping ErrStepTooSmall, ErrNonFiniteState, ErrStiff or
// ErrMaxSteps); each rank's systems' own errors are in Err. opts is as for
// SolveIVPBatchArray. A layout split along another axis, or a grid
// layout, panics.
func SolveIVPBatchDist(f ArrayODEFunc, t0, tf float64, y0 *dist.Array[float64], opts *IVPOptions) (*DistArrayBatchResult, error) {
	if y0 == nil {
		panic("integrate: SolveIVPBatchDist without a state")
	}
	l := y0.Layout()
	shape := l.Shape()
	if len(shape) < 1 || len(shape) > 2 || l.Axis() != 0 && l.Axis() != dist.Replicated {
		panic(fmt.Sprintf("integrate: SolveIVPBatchDist with a state of layout %v: want shape (nsys, dim) split along axis 0", l))
	}
	c := y0.Comm()
	rank := c.Rank()
	dim := 1
	if len(shape) == 2 {
		dim = shape[1]
	}
	local := y0.Local()
	nsys := 0
	if dim > 0 {
		nsys = local.Len() / dim
	} else if l.Axis() == dist.Replicated {
		nsys = shape[0]
	} else {
		nsys = l.LocalShape(rank)[0]
	}
	lo := 0
	if l.Axis() == 0 {
		start, _ := l.Block(rank)
		lo = start[0]
	}
	o := checkBatchArray("SolveIVPBatchDist", f, nsys, dim, t0, tf, local, opts)
	r, err := solveBatchArray(f, nsys, dim, t0, tf, local, o)
	if err = mpi.Agree(c, err); err != nil {
		r.Free()
		return nil, err
	}
	kinds := []error{ErrStepTooSmall, ErrNonFiniteState, ErrStiff, ErrMaxSteps}
	counts := make([]int64, len(kinds))
	for _, e := range r.Err {
		for j, k := range kinds {
			if errors.Is(e, k) {
				counts[j]++
			}
		}
	}
	if l.Axis() == 0 && c.Size() > 1 {
		err = mpi.AllreduceInPlace(c, counts, mpi.Sum)
		if err = mpi.Agree(c, err); err != nil {
			r.Free()
			return nil, err
		}
	}
	res := &DistArrayBatchResult{
		Y:  dist.FromLocal(c, l, r.Y),
		Lo: lo, TFinal: r.TFinal, Steps: r.Steps, Rejected: r.Rejected, Status: r.Status, Stiff: r.Stiff, Err: r.Err,
		Calls: r.Calls, Rounds: r.Rounds, ToDevice: r.ToDevice, ToHost: r.ToHost,
	}
	var errs []error
	for j, k := range kinds {
		if counts[j] > 0 {
			res.NumFailed += int(counts[j])
			errs = append(errs, fmt.Errorf("integrate: SolveIVPBatchDist: %d systems: %w", counts[j], k))
		}
	}
	return res, errors.Join(errs...)
}
