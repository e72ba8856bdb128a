package integrate

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/exactsum"
	"github.com/xpmpi/xpmpi/mpi"
)

// DistFunc is the right-hand side of a distributed system (a method of
// lines): it writes f(t, y) into dydt, two arrays with the layout of the
// initial state. It is collective: every rank calls it, so it may exchange
// halos or reduce. An error on any rank is returned on every rank.
type DistFunc func(t float64, y, dydt *dist.Array[float64]) error

// DistResult is the solution of SolveIVPDist, the same on every rank.
type DistResult struct {
	// T are the output times: IVPOptions.TEval, or the final time only.
	// Y[k] is the state at T[k], a new array with y0's layout.
	T []float64
	Y []*dist.Array[float64]
	// Steps, Rejected, NFev, Stiff, StiffAt, Status and Err are as in
	// IVPResult.
	Steps, Rejected, NFev int
	Stiff                 bool
	StiffAt               float64
	Status                int
	Err                   error
}

// distVec is vecOps over dist arrays: the stepper's buffers are the local
// blocks of arrays with y0's layout, and the norms are reduced exactly
// (exactsum.Sum) across ranks, so that every rank, at every rank count, takes
// the same steps and gets the same bits.
type distVec struct {
	f      DistFunc
	comm   mpi.Comm
	like   *dist.Array[float64]
	arrays map[*float64]*dist.Array[float64]
	n      int
	nfev   int
	maxFev int
}

// alloc makes a new array with y0's layout and returns its local block,
// remembered so that eval can hand f the arrays. An empty block gets a
// slice of capacity 1 of its own, so that every buffer has an address.
func (v *distVec) alloc() ([]float64, error) {
	a, err := dist.ZerosLike(v.like)
	if err != nil {
		return nil, err
	}
	s := a.LocalData()
	if len(s) == 0 {
		s = make([]float64, 0, 1)
	}
	v.arrays[unsafe.SliceData(s)] = a
	return s, nil
}

func (v *distVec) array(s []float64) *dist.Array[float64] {
	a, ok := v.arrays[unsafe.SliceData(s)]
	if !ok {
		panic("integrate: internal error: a buffer that is no array")
	}
	return a
}

func (v *distVec) eval(t float64, y, dy []float64) error {
	// nfev is the same on every rank: every rank stops here together.
	if v.nfev >= v.maxFev {
		return fmt.Errorf("%w (%d)", ErrMaxFev, v.maxFev)
	}
	v.nfev++
	err := v.f(t, v.array(y), v.array(dy))
	return mpi.Agree(v.comm, err)
}

func (v *distVec) sumSq(x []float64) (float64, error) {
	var acc exactsum.Sum
	for _, e := range x {
		acc.Add(e * e)
	}
	if v.like.Layout().Axis() != dist.Replicated {
		if err := acc.Allreduce(v.comm); err != nil {
			return 0, err
		}
	}
	return acc.Value(), nil
}

func (v *distVec) size() int { return v.n }

func (v *distVec) free() {
	for _, a := range v.arrays {
		a.Free()
	}
}

// SolveIVPDist integrates one large system whose state is a distributed
// array, as a method of lines does: RK45 with SciPy's step-size control,
// on each rank's block, with the error norm (and the stiffness test's)
// reduced across the ranks, so that every rank takes the same steps. The
// reduction is exact (a sum in integer bins, independent of the order and
// the division among ranks), so the steps and the results are the same, bit
// for bit, at every rank count, as long as f computes each element the same
// way at every rank count.
//
// It is collective. y0 must live on the host (the CPU backend); it is not
// modified. opts is as for SolveIVP with scalar tolerances only: Method
// Auto or RK45 (there is no distributed implicit method: a stiff problem
// stops with ErrStiff, unless IgnoreStiffness), no Events, Jac, Dense or
// per-component tolerances (these panic). The arrays of the result are new;
// the caller frees them.
func SolveIVPDist(f DistFunc, t0, tf float64, y0 *dist.Array[float64], opts *IVPOptions) (*DistResult, error) {
	if opts == nil {
		opts = &IVPOptions{}
	}
	if opts.Method != Auto && opts.Method != RK45 || opts.Events != nil || opts.Jac != nil || opts.RelTols != nil || opts.AbsTols != nil || opts.Dense {
		panic("integrate: SolveIVPDist supports RK45 with scalar tolerances only, without events or Dense")
	}
	if !isFinite(t0) || !isFinite(tf) {
		panic(fmt.Sprintf("integrate: SolveIVPDist from %g to %g", t0, tf))
	}
	checkTEval(opts.TEval, t0, tf)
	maxStep := opts.MaxStep
	if maxStep == 0 {
		maxStep = math.Inf(1)
	}
	local := y0.LocalData()
	tol := opts.tolerances(len(local))
	v := &distVec{f: f, comm: y0.Comm(), like: y0, arrays: map[*float64]*dist.Array[float64]{}, n: y0.Len(), maxFev: opts.maxFev()}
	defer v.free()
	res := &DistResult{StiffAt: math.NaN()}
	var allocErr error
	next := func() []float64 {
		s, err := v.alloc()
		if err != nil && allocErr == nil {
			allocErr = err
		}
		if s == nil {
			s = make([]float64, len(local))
		}
		return s
	}
	fail := func(err error) (*DistResult, error) {
		res.Status, res.Err = -1, err
		return res, err
	}
	s, err := newRK45(v, t0, tf, local, tol, maxStep, opts.FirstStep, next)
	if allocErr != nil {
		return fail(allocErr)
	}
	if err != nil {
		return fail(err)
	}
	direction := s.direction
	te := opts.TEval
	teI := 0
	output := func(t float64, fill func(out []float64)) error {
		a, err := dist.ZerosLike(y0)
		if err != nil {
			return err
		}
		fill(a.LocalData())
		res.T = append(res.T, t)
		res.Y = append(res.Y, a)
		return nil
	}
	// TEval points at t0.
	for te != nil && teI < len(te) && te[teI] == t0 {
		if err := output(t0, func(out []float64) { copy(out, local) }); err != nil {
			return fail(err)
		}
		teI++
	}
	for s.t != tf {
		if opts.MaxSteps > 0 && res.Steps >= opts.MaxSteps {
			err = ErrMaxSteps
			break
		}
		if err = s.step(); err != nil {
			break
		}
		res.Steps++
		for te != nil && teI < len(te) && direction*(te[teI]-s.t) <= 0 {
			tk := te[teI]
			if err := output(tk, func(out []float64) {
				if tk == s.t {
					copy(out, s.y)
				} else {
					s.dense(tk, out)
				}
			}); err != nil {
				return fail(err)
			}
			teI++
		}
		if s.stiff {
			res.Stiff, res.StiffAt = true, s.stiffAt
			if !opts.IgnoreStiffness && s.t != tf {
				err = fmt.Errorf("%w (stiffness detected at t = %g)", ErrStiff, s.stiffAt)
				break
			}
		}
	}
	res.Rejected, res.NFev = s.rejected, v.nfev
	if te == nil {
		if err2 := output(s.t, func(out []float64) { copy(out, s.y) }); err2 != nil && err == nil {
			err = err2
		}
	}
	if err != nil {
		return fail(err)
	}
	return res, nil
}
