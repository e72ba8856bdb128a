package integrate

import (
	"errors"
	"fmt"
	"math"
)

// BatchFunc evaluates the integrands of a batch: y[i] = f(p[i], x[i]) for
// every i, where p[i] is the index of the problem (the interval, or the
// parameter set) that x[i] belongs to. x and y have the same length, and
// must not be kept after the call.
type BatchFunc func(p []int, x, y []float64)

// QuadBatch integrates many problems at once: problem i is the integral
// of f(i, x) from a[i] to b[i], each with its own adaptive partition and
// the same algorithm, tolerances and results as Quad. The problems advance
// together: each round gathers the rule's nodes of every unfinished problem
// (21 per subinterval, two subintervals per round after the first, or 15
// per subinterval with qagi's substitution, twice that for (-inf, inf)) and
// calls f once for all of them; a finished problem asks for nothing more.
//
// This single call per round is what QuadBatchArray runs on a device: one
// kernel over all nodes per round, whatever the number of problems. The
// bookkeeping (errors, partitions, extrapolation) is a few hundred bytes
// per problem and stays on the host.
//
// The returned error joins the errors of the problems that failed, each
// naming its index (errors.Is finds the sentinels); every result is
// returned either way. a and b of different lengths panic.
func QuadBatch(f BatchFunc, a, b []float64, opts *QuadOptions) ([]QuadResult, error) {
	if f == nil {
		panic("integrate: QuadBatch without a function")
	}
	out, err, _ := quadBatch("QuadBatch", func(p []int, x, y []float64) error { f(p, x, y); return nil }, a, b, opts)
	return out, err
}

// quadBatch is QuadBatch with the evaluation of a round's nodes given as
// eval. It returns the results and the problems' joined errors, or an
// error of eval (and nothing else) as envErr.
func quadBatch(name string, eval func(p []int, x, y []float64) error, a, b []float64, opts *QuadOptions) (_ []QuadResult, _ error, envErr error) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("integrate: %s with %d lower and %d upper bounds", name, len(a), len(b)))
	}
	epsabs, epsrel, limit := opts.values()
	n := len(a)
	probs := make([]problem, n)
	states := make([]*qagsState, n)
	for i := range a {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) {
			panic(fmt.Sprintf("integrate: %s problem %d from %g to %g", name, i, a[i], b[i]))
		}
		probs[i] = newProblem(a[i], b[i])
		if opts != nil && opts.Points != nil {
			probs[i].setPoints(opts.Points, limit)
		}
		states[i] = newQags(probs[i], epsabs, epsrel, limit)
	}
	var (
		pidx   []int
		x, y   []float64
		starts []int // offset in x of each wanted interval, per problem
		res    []ruleResult
	)
	active := make([]int, 0, n)
	for i, s := range states {
		if !s.done {
			active = append(active, i)
		}
	}
	for len(active) > 0 {
		pidx, x, starts = pidx[:0], x[:0], starts[:0]
		for _, i := range active {
			for _, iv := range states[i].want() {
				starts = append(starts, len(x))
				x = probs[i].nodes(x, iv.a, iv.b)
				for len(pidx) < len(x) {
					pidx = append(pidx, i)
				}
			}
		}
		if cap(y) < len(x) {
			y = make([]float64, len(x))
		}
		y = y[:len(x)]
		if err := eval(pidx, x, y); err != nil {
			return nil, nil, err
		}
		k := 0
		next := active[:0]
		for _, i := range active {
			s := states[i]
			ivs := s.want()
			res = res[:0]
			for _, iv := range ivs {
				lo := starts[k]
				hi := len(x)
				if k+1 < len(starts) {
					hi = starts[k+1]
				}
				res = append(res, probs[i].apply(iv.a, iv.b, x[lo:hi], y[lo:hi]))
				k++
			}
			s.give(res)
			if !s.done {
				next = append(next, i)
			}
		}
		active = next
	}
	out := make([]QuadResult, n)
	var errs []error
	for i, s := range states {
		out[i] = s.quadResult()
		if out[i].Err != nil {
			errs = append(errs, fmt.Errorf("problem %d: %w", i, out[i].Err))
		}
	}
	return out, errors.Join(errs...), nil
}
