package integrate

import (
	"errors"
	"fmt"
	"iter"
	"math"
)

// evalReq is one evaluation a system's coroutine waits for.
type evalReq struct {
	t     float64
	y, dy []float64
}

// errStopped unwinds a coroutine whose driver stopped early (a panic in f).
var errStopped = errors.New("integrate: batch stopped")

// solveCoroutines is SolveIVPBatch's general path: SolveIVP for each
// system, as a coroutine whose right-hand side yields its evaluation; the
// driver gathers the pending evaluations of all systems into one call of f.
func solveCoroutines(f BatchODEFunc, nsys, dim int, t0, tf float64, y0 []float64, opts *IVPOptions) (*BatchResult, error) {
	type system struct {
		next    func() (evalReq, bool)
		stop    func()
		res     *IVPResult
		req     evalReq
		pending bool
	}
	sys := make([]system, nsys)
	for s := range sys {
		y0s := y0[s*dim : (s+1)*dim]
		seq := func(yield func(evalReq) bool) {
			defer func() {
				if r := recover(); r != nil && r != errStopped {
					panic(r)
				}
			}()
			fs := func(t float64, y, dy []float64) {
				if !yield(evalReq{t, y, dy}) {
					panic(errStopped)
				}
			}
			sys[s].res, _ = SolveIVP(fs, t0, tf, y0s, opts)
		}
		sys[s].next, sys[s].stop = iter.Pull(seq)
	}
	defer func() {
		for s := range sys {
			sys[s].stop()
		}
	}()
	n := nsys * dim
	tv := make([]float64, nsys)
	yb := make([]float64, n)
	dyb := make([]float64, n)
	copy(yb, y0)
	for s := range tv {
		tv[s] = t0
	}
	res := &BatchResult{}
	active := 0
	for s := range sys {
		sys[s].req, sys[s].pending = sys[s].next()
		if sys[s].pending {
			active++
		}
	}
	for active > 0 {
		for s := range sys {
			if sys[s].pending {
				tv[s] = sys[s].req.t
				copy(yb[s*dim:(s+1)*dim], sys[s].req.y)
			}
		}
		f(tv, yb, dyb)
		res.Calls++
		for s := range sys {
			if !sys[s].pending {
				continue
			}
			copy(sys[s].req.dy, dyb[s*dim:(s+1)*dim])
			sys[s].req, sys[s].pending = sys[s].next()
			if !sys[s].pending {
				active--
			}
		}
	}
	// Assemble the outputs.
	res.Systems = make([]*IVPResult, nsys)
	res.TFinal = make([]float64, nsys)
	res.Steps, res.Rejected, res.Status = make([]int, nsys), make([]int, nsys), make([]int, nsys)
	res.Stiff, res.Err = make([]bool, nsys), make([]error, nsys)
	te := opts.TEval
	if te == nil {
		res.T = []float64{t0, tf}
		res.Y = [][]float64{append([]float64(nil), y0...), make([]float64, n)}
	} else {
		res.T = append([]float64(nil), te...)
		res.Y = make([][]float64, len(te))
		for k := range res.Y {
			res.Y[k] = make([]float64, n)
		}
	}
	var errs []error
	for s, x := range sys {
		r := x.res
		res.Systems[s] = r
		res.TFinal[s] = r.tEnd
		res.Steps[s], res.Rejected[s], res.Status[s] = r.Steps, r.Rejected, r.Status
		res.Stiff[s], res.Err[s] = r.Stiff, r.Err
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("system %d: %w", s, r.Err))
		}
		if te == nil {
			copy(res.Y[1][s*dim:(s+1)*dim], r.Y[len(r.Y)-1])
			continue
		}
		for k := range te {
			out := res.Y[k][s*dim : (s+1)*dim]
			if k < len(r.Y) {
				copy(out, r.Y[k])
			} else {
				for i := range out {
					out[i] = math.NaN()
				}
			}
		}
	}
	return res, errors.Join(errs...)
}
