package bench

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers/cg"
	"github.com/xpmpi/xpmpi/solvers/heat"
)

// CalibrateOptions are the settings of Calibrate.
type CalibrateOptions struct {
	// Small divides the workloads' sizes as `xpmpi bench --small` does.
	Small bool
	// Reps is the number of repetitions of each measurement; the median
	// is used. Default 3.
	Reps int
	// Progress, if not nil, gets rank 0's progress lines.
	Progress io.Writer
}

// PingSize is one message size of the ping-pong fit: the median one-way
// time, half a round trip.
type PingSize struct {
	Bytes  int
	OneWay float64 // seconds
	Fitted float64 // the fitted LinkCost's time for Bytes
}

// ModelCheck compares a measured time per iteration with the model's.
type ModelCheck struct {
	Workload  string
	Ranks     int
	N         int
	Measured  float64 // seconds per iteration
	Predicted Prediction
}

// Error returns (predicted - measured) / measured.
func (c ModelCheck) Error() float64 { return (c.Predicted.Total() - c.Measured) / c.Measured }

// Calibration is what Calibrate measured on this machine at one rank
// count, and the model of this machine it gives.
type Calibration struct {
	Ranks     int
	Link      LinkCost // fitted to the ping-pong between ranks 0 and 1; zero at 1 rank
	Pings     []PingSize
	Allreduce float64      // measured 8-byte allreduce, seconds
	Costs     Costs        // measured with every rank sweeping its block at once
	Checks    []ModelCheck // W3 and W4 measured against the model of this machine
}

// Here returns the model of this machine as Calibrate measured it: every
// rank on one node, messages at the fitted cost.
func (c *Calibration) Here() Model {
	return Model{Machine: Machine{Name: "this machine (shared memory)", Intra: c.Link, Inter: c.Link}, Costs: c.Costs}
}

// pingSizes are the message sizes of the fit, 8 bytes to 4 MiB.
var pingSizes = []int{8, 1 << 10, 16 << 10, 128 << 10, 1 << 20, 4 << 20}

// Calibrate measures, at the rank count of world, the costs the scaling
// model needs: one-way message times between ranks 0 and 1 at sizes from
// 8 bytes to 4 MiB (fitted to a LinkCost), the 8-byte allreduce, the
// compute cost per point of a Jacobi sweep and of a CG iteration with
// every rank sweeping a block of its share at once (so that the ranks
// share the memory bandwidth as in the real run), and W4's iteration
// count. It then runs W3 and W4 themselves (heat.Solve and cg.Solve) and
// compares their time per iteration with the model's prediction for this
// machine. It is collective.
func Calibrate(world mpi.Comm, o CalibrateOptions) (*Calibration, error) {
	if o.Reps <= 0 {
		o.Reps = 3
	}
	sz := sizesFor(o.Small)
	e := newBenchEnv(world, nil, Options{Reps: o.Reps, Small: o.Small})
	if world.Rank() == 0 {
		e.progress = o.Progress
	}
	p := world.Size()
	cal := &Calibration{Ranks: p}
	med := func(f func() (float64, error)) (float64, error) {
		v := make([]float64, o.Reps)
		for i := range v {
			t, err := f()
			if err != nil {
				return 0, err
			}
			v[i] = t
		}
		return median(v), nil
	}

	if p >= 2 {
		e.say("ping-pong between ranks 0 and 1, %d sizes", len(pingSizes))
		var xs, ys []float64
		for _, b := range pingSizes {
			trips := max(4, min(1000, (64<<20)/max(b, 1)/8))
			t, err := med(func() (float64, error) {
				s, err := e.pingPong(b, trips)
				return s.Seconds / float64(2*trips), err
			})
			if err != nil {
				return nil, err
			}
			cal.Pings = append(cal.Pings, PingSize{Bytes: b, OneWay: t})
			xs, ys = append(xs, float64(b)), append(ys, t)
		}
		cal.Link = FitLink(xs, ys)
		for i := range cal.Pings {
			cal.Pings[i].Fitted = cal.Link.Time(float64(cal.Pings[i].Bytes))
		}
	}
	calls := sz.AllreduceCalls
	t, err := med(func() (float64, error) {
		s, err := e.allreduce(calls)
		return s.Seconds / float64(calls), err
	})
	if err != nil {
		return nil, err
	}
	cal.Allreduce = t

	e.say("compute cost per point, all %d ranks at once", p)
	jn, cn := sz.JacobiN, sz.CGN
	if cal.Costs.JacobiPoint, err = med(func() (float64, error) { return sweepCost(world, jn, 20, false) }); err != nil {
		return nil, err
	}
	if cal.Costs.CGPoint, err = med(func() (float64, error) { return sweepCost(world, cn, 20, true) }); err != nil {
		return nil, err
	}

	e.say("W3 and W4 themselves at %d ranks", p)
	here := cal.Here()
	w3, err := med(func() (float64, error) {
		res, err := heat.Solve(world, heat.Config{N: jn, Iters: sz.JacobiIters / 4})
		return res.PerIter, err
	})
	if err != nil {
		return nil, err
	}
	cal.Checks = append(cal.Checks, ModelCheck{Workload: "W3", Ranks: p, N: jn, Measured: w3, Predicted: here.Jacobi(p, jn, false)})
	var iters int
	w4, err := med(func() (float64, error) {
		res, err := cg.Solve(world, cg.Config{N: cn, Tol: sz.CGTol})
		iters = res.Iters
		return res.PerIter, err
	})
	if err != nil {
		return nil, err
	}
	cal.Costs.CGN, cal.Costs.CGIters = cn, iters
	here = cal.Here()
	cal.Checks = append(cal.Checks, ModelCheck{Workload: "W4", Ranks: p, N: cn, Measured: w4, Predicted: here.CG(p, cn, false)})
	return cal, nil
}

// sweepCost returns the seconds per point of iters sweeps over every
// rank's block of an n x n grid in row blocks, all ranks at once and with
// no communication: Jacobi sweeps, or, with cgIter, a CG iteration's
// local work (the 5-point operator, two dot products, two axpys and the
// update of p). The slowest rank's time counts.
func sweepCost(world mpi.Comm, n, iters int, cgIter bool) (float64, error) {
	p, me := world.Size(), world.Rank()
	rows := n / p
	if me < n%p {
		rows++
	}
	cols := n + 2
	b := backend.Current()
	alloc := func(k int) (*backend.Array[float64], error) { return backend.NewOn[float64](b, k) }
	u, err := alloc((rows + 2) * cols)
	if err != nil {
		return 0, err
	}
	defer u.Free()
	v, err := alloc((rows + 2) * cols)
	if err != nil {
		return 0, err
	}
	defer v.Free()
	backend.Fill(u, 1)
	m := rows * cols
	var x, r *backend.Array[float64]
	if cgIter {
		if x, err = alloc(m); err != nil {
			return 0, err
		}
		defer x.Free()
		if r, err = alloc(m); err != nil {
			return 0, err
		}
		defer r.Free()
		backend.Fill(r, 1)
	}
	// One untimed round first: the new arrays' first touch (page faults and
	// the kernel's zeroing, slow on a virtual machine) is not the sweep's
	// cost, and the solvers touch their arrays before their clocks start.
	backend.Fill(v, 0)
	if cgIter {
		backend.Fill(x, 0)
		backend.Jacobi5(v, u, rows+2, cols)
	}
	if err := backend.Synchronize(u, v); err != nil {
		return 0, err
	}
	if err := world.Barrier(); err != nil {
		return 0, err
	}
	start := world.Wtime()
	acc := 0.0
	for k := 0; k < iters; k++ {
		if !cgIter {
			backend.Jacobi5(v, u, rows+2, cols)
			u, v = v, u
			continue
		}
		backend.Laplace5(v, u, rows+2, cols)
		pb, ap := u.Slice(cols, cols+m), v.Slice(cols, cols+m)
		pap := backend.Dot(pb, ap)
		backend.Axpy(1e-9, pb, x)
		backend.Axpy(-1e-9, ap, r)
		rr := backend.Dot(r, r)
		backend.Axpby(1, r, 0.5, pb)
		acc += pap + rr
	}
	if err := backend.Synchronize(u); err != nil {
		return 0, err
	}
	secs := world.Wtime() - start
	if math.IsNaN(acc) {
		return 0, fmt.Errorf("bench: the CG sweep gave NaN")
	}
	secs, err = mpi.AllreduceValue(world, secs, mpi.Max)
	if err != nil {
		return 0, err
	}
	pts := float64(n/p+min(1, n%p)) * float64(n) // the largest block's interior points
	return secs / float64(iters) / pts, nil
}

// WriteText writes the calibration: the fitted link, the ping-pong
// sizes, the compute costs and the checks of the model against W3 and W4.
func (c *Calibration) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "measured at %d ranks\n", c.Ranks)
	if c.Ranks >= 2 {
		fmt.Fprintf(tw, "link (ranks 0-1): alpha %.3g us, beta %.4g ns/B (%.2f GB/s)\n", c.Link.Alpha*1e6, c.Link.Beta*1e9, c.Link.GBs())
		fmt.Fprintln(tw, "bytes\tone-way (us)\tfitted (us)\t")
		for _, s := range c.Pings {
			fmt.Fprintf(tw, "%d\t%.4g\t%.4g\t\n", s.Bytes, s.OneWay*1e6, s.Fitted*1e6)
		}
	} else {
		fmt.Fprintln(tw, "link: no ping-pong at 1 rank (run at 2 or more)")
	}
	fmt.Fprintf(tw, "allreduce 8 B: measured %.3g us, modelled %.3g us\n", c.Allreduce*1e6, c.Here().Allreduce(c.Ranks)*1e6)
	fmt.Fprintf(tw, "compute: Jacobi %.3g ns/point, CG %.3g ns/point per iteration; CG %d iterations at %d x %d\n",
		c.Costs.JacobiPoint*1e9, c.Costs.CGPoint*1e9, c.Costs.CGIters, c.Costs.CGN, c.Costs.CGN)
	fmt.Fprintln(tw, "\ncheck\tranks\tgrid\tmeasured (ms/iter)\tmodel (ms/iter)\tof which comm\terror\t")
	for _, k := range c.Checks {
		fmt.Fprintf(tw, "%s\t%d\t%d x %d\t%.4g\t%.4g\t%.0f%%\t%+.0f%%\t\n", k.Workload, k.Ranks, k.N, k.N, k.Measured*1e3,
			k.Predicted.Total()*1e3, 100*k.Predicted.CommShare(), 100*k.Error())
	}
	return tw.Flush()
}
