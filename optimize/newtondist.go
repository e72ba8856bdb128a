package optimize

import (
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// DistNewtonResult is the outcome of NewtonDist. The arrays have x0's
// layout; the slices hold this rank's block (element k of a slice is
// element lo+k of the array, lo from x0.Range()); the counts are over all
// ranks, the same on every rank.
type DistNewtonResult struct {
	// Root and Residual are as in NewtonResult, new arrays that the
	// caller frees.
	Root, Residual *dist.Array[float64]
	// Converged, ZeroDer and Iterations are this rank's block of
	// NewtonResult's.
	Converged, ZeroDer []bool
	Iterations         []int
	// NumConverged, NumZeroDer and NumFailed count over all ranks;
	// MaxIterations is the most steps any element took.
	NumConverged, NumZeroDer, NumFailed int
	MaxIterations                       int
	// Calls, Evals and DerivEvals count this rank's calls, element
	// evaluations of f, and of the derivatives (as NewtonResult's).
	Calls, Evals, DerivEvals int
	// Method is "newton", "halley" or "secant".
	Method string
}

// NewtonDist is Newton over a distributed array: every rank solves the
// equations of its own block, calling f, fprime and FPrime2 on its own
// (they are not collective, and idx holds indices into the rank's block:
// element lo+idx[k] of the array, lo from x0.Range()). There is no
// communication until the end, where one allreduce counts the converged,
// zero-derivative and failed elements and the most iterations. Each
// element's result is the one Newton gives it alone, so the roots are the
// same, bit for bit, at every rank count.
//
// It is collective (for the final reduction). x0 must be on the host (CPU
// backend) and is not modified. The error, the same on every rank, is as
// Newton's from the global counts, or the reduction's.
func NewtonDist(f, fprime BatchFunc, x0 *dist.Array[float64], opts *NewtonOptions) (*DistNewtonResult, error) {
	if f == nil {
		panic("optimize: NewtonDist without a function")
	}
	o := opts.defaults()
	if o.FPrime2 != nil && fprime == nil {
		panic("optimize: NewtonDist with FPrime2 but no fprime")
	}
	return newtonDist(funcs{f: f, fprime: fprime}, x0, &o)
}

// NewtonDistFDF is NewtonDist with the function and its derivative from
// one callback, as NewtonFDF: each rank calls fdf on its own block, and
// the roots are NewtonDist's, bit for bit, where fdf gives the values of
// f and fprime. It is collective (for the final reduction).
func NewtonDistFDF(fdf BatchFDF, x0 *dist.Array[float64], opts *NewtonOptions) (*DistNewtonResult, error) {
	if fdf == nil {
		panic("optimize: NewtonDistFDF without a function")
	}
	o := opts.defaults()
	return newtonDist(funcs{fdf: fdf}, x0, &o)
}

// newtonDist solves the equations of this rank's block of x0 and reduces
// the counts over the ranks.
func newtonDist(fs funcs, x0 *dist.Array[float64], o *NewtonOptions) (*DistNewtonResult, error) {
	r := new(NewtonResult)
	solveBatch(r, fs, x0.LocalData(), o)
	maxIt := 0
	for _, it := range r.Iterations {
		maxIt = max(maxIt, it)
	}
	counts := []int64{int64(r.NumConverged), int64(r.NumZeroDer), int64(r.NumFailed)}
	c := x0.Comm()
	replicated := x0.Layout().Axis() == dist.Replicated
	var err error
	if !replicated && c.Size() > 1 {
		err = mpi.AllreduceInPlace(c, counts, mpi.Sum)
		if err == nil {
			var m int64
			m, err = mpi.AllreduceValue(c, int64(maxIt), mpi.Max)
			maxIt = int(m)
		}
	}
	if err = mpi.Agree(c, err); err != nil {
		return nil, err
	}
	res := &DistNewtonResult{
		Converged: r.Converged, ZeroDer: r.ZeroDer, Iterations: r.Iterations,
		NumConverged: int(counts[0]), NumZeroDer: int(counts[1]), NumFailed: int(counts[2]),
		MaxIterations: maxIt, Calls: r.Calls, Evals: r.Evals, DerivEvals: r.DerivEvals, Method: r.Method,
	}
	if res.Root, err = arrayFrom(x0, r.Root); err != nil {
		return nil, err
	}
	if res.Residual, err = arrayFrom(x0, r.Residual); err != nil {
		res.Root.Free()
		return nil, err
	}
	return res, newtonErr(res.NumConverged, res.NumZeroDer, res.NumFailed, o.MaxIter)
}

// arrayFrom makes a new array with like's layout holding local as this
// rank's block. Collective.
func arrayFrom(like *dist.Array[float64], local []float64) (*dist.Array[float64], error) {
	a, err := dist.ZerosLike(like)
	if err != nil {
		return nil, err
	}
	copy(a.LocalData(), local)
	return a, nil
}
