package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/integrate"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/optimize"
	"github.com/xpmpi/xpmpi/rng"
	"github.com/xpmpi/xpmpi/solvers/cg"
	"github.com/xpmpi/xpmpi/solvers/heat"
)

// benchSizes are the sizes of the workloads (docs/BENCH.md's, or --small's).
type benchSizes struct {
	TriadN, TriadSweeps  int // W1: elements per rank, timed sweeps
	DotN, Dots           int // W2: global elements, dots
	JacobiN, JacobiIters int // W3: interior side, iterations
	CGN                  int // W4: interior side
	CGTol                float64
	SortN                int // W5: global keys
	AllreduceCalls       int // W6: allreduce calls per repetition
	PingBytes, PingTrips int // W6: message size, round trips per repetition
	FileN                int // W7: global elements written and read
	KeplerN              int // W10: Kepler equations in all
	ODEN                 int // W10: oscillators in all
	MatMulN              int // W9: the side of the square matrices
	FFTN                 int // W8: the side of the square array
}

// sizesFor returns docs/BENCH.md's sizes, or about 1/64 of the work for small.
func sizesFor(small bool) benchSizes {
	s := benchSizes{
		TriadN: 1 << 24, TriadSweeps: 20,
		DotN: 1 << 24, Dots: 200,
		JacobiN: 2048, JacobiIters: 200,
		CGN: 1024, CGTol: 1e-8,
		SortN:          1 << 23,
		AllreduceCalls: 20000,
		PingBytes:      4 << 20, PingTrips: 100,
		FileN:   1 << 26,
		KeplerN: 1000000,
		ODEN:    100000,
		MatMulN: 2048,
		FFTN:    2048,
	}
	if small {
		s.TriadN, s.DotN, s.SortN = s.TriadN/64, s.DotN/64, s.SortN/64
		s.JacobiN, s.CGN = s.JacobiN/8, s.CGN/8
		s.AllreduceCalls /= 64
		s.PingBytes /= 64
		s.FileN /= 64
		s.KeplerN /= 64
		s.ODEN /= 64
		s.MatMulN /= 4 // 1/64 of the flops
		s.FFTN /= 8    // about 1/64 of the work
	}
	return s
}

// benchSeed is the seed of W5's keys.
const benchSeed = 20240917

// tolSum is the relative tolerance of the checksums that are float sums
// (W3, W4's sum of x, W5). W1, W2 and W6 compute with dyadic values whose
// sums are exact in any order: their checksums must be equal, as must W4's
// iteration counts. W4's iterates depend on the order of every dot's
// additions, which conjugate gradients carry through the iterations: at
// 1024^2 unknowns (1898 iterations) the sums of x of the two sides differed
// by 3e-12 to 5e-12 (relative) in our runs, well inside tolSum.
const tolSum = 1e-10

// targets of issue 4, as the largest ratio (xpmpi time / reference time)
// that meets them.
const (
	targetTriad     = 1 / 0.95 // at least 0.95 of C's GB/s
	targetDot       = 1.05
	targetJacobi    = 1.10
	targetCG        = 1.10
	targetAllreduce = 1.3
	targetPingPong  = 1 / 0.95
	targetFile      = 1 / 0.8 // at least 0.8 of a sequential write's GB/s
	targetSort      = 1.0     // issue 15: W5 no slower than C's radix sample sort
)

func (e *benchEnv) runWorkload(id string) ([]Row, error) {
	switch id {
	case "W1":
		return e.benchTriad()
	case "W2":
		return e.benchDot()
	case "W3":
		return e.benchJacobi()
	case "W4":
		return e.benchCG()
	case "W4F":
		return e.benchCGFused()
	case "W5":
		return e.benchSort()
	case "W6":
		return e.benchMPI()
	case "W7":
		return e.benchFile()
	case "W10":
		rows, err := e.benchNewton()
		if err != nil {
			return rows, err
		}
		more, err := e.benchRK45()
		return append(rows, more...), err
	case "W11":
		return e.benchOrder() // bench/order.go
	case matmulID:
		return e.benchMatMul()
	case fftID:
		return e.benchFFT()
	}
	return nil, fmt.Errorf("bench: no workload %s", id)
}

// withThreads runs f with the host thread budget set to n.
func withThreads[T any](n int, f func() (T, error)) (T, error) {
	prev := backend.SetThreads(n)
	defer backend.SetThreads(prev)
	return f()
}

// withBLASThreads runs f, a PETSc row, with OpenBLAS at xpmpi's threads
// per rank, and then gives OpenBLAS back the count it had. PETSc's BLAS is
// the process's OpenBLAS, which otherwise runs a thread per CPU: PETSc's
// VecDot at one rank took 8.5 ms per dot on two threads against 15.2 ms on
// one, set beside xpmpi and C on one thread each.
func (e *benchEnv) withBLASThreads(f func() (Sample, error)) (Sample, error) {
	prev, err := e.ref.Call("xpref_blas_threads", Params{Threads: int64(e.threads)})
	if err != nil {
		return Sample{}, err
	}
	s, err := f()
	if _, rerr := e.ref.Call("xpref_blas_threads", Params{Threads: int64(prev.Extra[0])}); err == nil {
		err = rerr
	}
	return s, err
}

// timed runs f between a barrier and the slowest rank's end, and returns
// the slowest rank's seconds.
func (e *benchEnv) timed(f func() error) (float64, error) {
	if err := e.world.Barrier(); err != nil {
		return 0, err
	}
	start := e.world.Wtime()
	if err := f(); err != nil {
		return 0, err
	}
	return mpi.AllreduceValue(e.world, e.world.Wtime()-start, mpi.Max)
}

// ---- W1: triad ----

func (e *benchEnv) benchTriad() ([]Row, error) {
	p := e.world.Size()
	if p > 1 {
		e.note("W1 (triad) runs at one rank only (docs/BENCH.md): skipped at %d ranks", p)
		return nil, nil
	}
	n, sweeps := e.sizes.TriadN, e.sizes.TriadSweeps
	gbs := func(s Sample) float64 { return 24 * float64(n) * float64(sweeps) / s.Seconds / 1e9 }
	var rows []Row
	for _, threads := range []int{1, e.budget} {
		if threads == 1 && len(rows) > 0 {
			break // a budget of one thread: one row
		}
		e.say("W1 triad, %d elements, %d sweeps, %d thread(s)", n, sweeps, threads)
		xp := func() (Sample, error) {
			return withThreads(threads, func() (Sample, error) { return e.triad(n, sweeps) })
		}
		ref := func() (Sample, error) {
			return e.ref.Call("xpref_triad", Params{N: int64(n), Iters: int64(sweeps), Threads: int64(threads)})
		}
		xs, rs, err := e.interleave(xp, ref)
		if err != nil {
			return nil, err
		}
		what := fmt.Sprintf("sum of y, %d thread(s)", threads)
		c := compareChecksums("W1", what, xs, rs, 0, nil)
		e.checks = append(e.checks, c)
		metric := "triad, 1 thread vs C"
		if threads > 1 {
			metric = fmt.Sprintf("triad, %d threads vs C+OpenMP", threads)
		}
		rows = append(rows, newRow("W1", p, e.be, metric, "GB/s", KindRate, targetTriad, figures(xs, gbs), figures(rs, gbs), c.OK))
	}
	return rows, nil
}

// triad is xpmpi's side of W1: backend.Axpy on two arrays of the CPU
// backend, one untimed sweep then sweeps timed ones.
func (e *benchEnv) triad(n, sweeps int) (Sample, error) {
	x, err := backend.New[float64](n)
	if err != nil {
		return Sample{}, err
	}
	y, err := backend.New[float64](n)
	if err != nil {
		return Sample{}, err
	}
	xd, yd := x.Data(), y.Data()
	for i := range xd {
		xd[i] = float64(i%1024) / 1024
		yd[i] = 1
	}
	const a = 0.5
	backend.Axpy(a, x, y)
	start := e.world.Wtime()
	for s := 0; s < sweeps; s++ {
		backend.Axpy(a, x, y)
	}
	elapsed := e.world.Wtime() - start
	return Sample{Seconds: elapsed, Checksum: backend.Sum(y), OK: true}, nil
}

// ---- W2: distributed dot ----

func (e *benchEnv) benchDot() ([]Row, error) {
	n, dots := e.sizes.DotN, e.sizes.Dots
	e.say("W2 dot, %d elements, %d dots", n, dots)
	perDot := func(s Sample) float64 { return s.Seconds / float64(dots) * 1e6 }
	xp := func() (Sample, error) {
		return withThreads(e.threads, func() (Sample, error) { return e.dot(n, dots, nil) })
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_dot", Params{N: int64(n), Iters: int64(dots), Threads: 1})
	}
	// In a -tags petsc build, PETSc's VecDot over the same arrays runs in
	// every repetition, right after ours.
	var ps []Sample
	run := xp
	if petscHooks != nil {
		if err := petscHooks.start(e.world); err != nil {
			return nil, err
		}
		run = func() (Sample, error) {
			return withThreads(e.threads, func() (Sample, error) {
				s, err := e.dot(n, dots, func(x, y *dist.Array[float64]) error {
					runtime.GC()
					p, err := e.withBLASThreads(func() (Sample, error) { return petscHooks.dot(x, y, dots, e.timed) })
					ps = append(ps, p)
					return err
				})
				return s, err
			})
		}
	}
	xs, rs, err := e.interleave(run, ref)
	if err != nil {
		return nil, err
	}
	c := compareChecksums("W2", "dot", xs, rs, 0, nil)
	e.checks = append(e.checks, c)
	p := e.world.Size()
	rows := []Row{newRow("W2", p, e.be, "dot + allreduce", "us/dot", KindTime, targetDot, figures(xs, perDot), figures(rs, perDot), c.OK)}
	if ps != nil {
		pc := compareChecksums("W2 PETSc", "dot", ps, rs, 0, nil)
		e.checks = append(e.checks, pc)
		rows = append(rows, newRow("W2", p, e.be, "dot + allreduce, PETSc VecDot", "us/dot", KindTime, 0, figures(ps, perDot), figures(rs, perDot), pc.OK))
	}
	return rows, nil
}

// dot is xpmpi's side of W2: dist.Dot of two distributed arrays. then,
// if not nil, is called with the arrays after the timed dots (PETSc's
// VecDot of the same arrays).
func (e *benchEnv) dot(n, dots int, then func(x, y *dist.Array[float64]) error) (Sample, error) {
	x, err := dist.Zeros[float64](e.world, []int{n})
	if err != nil {
		return Sample{}, err
	}
	y, err := dist.Zeros[float64](e.world, []int{n})
	if err != nil {
		return Sample{}, err
	}
	lo, _ := x.Range()
	xd, yd := x.LocalData(), y.LocalData()
	for i := range xd {
		g := lo + i
		xd[i] = float64(g%8) / 8
		yd[i] = float64(g%16) / 16
	}
	var d float64
	secs, err := e.timed(func() error {
		for k := 0; k < dots; k++ {
			var err error
			if d, err = dist.Dot(x, y); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && then != nil {
		err = then(x, y)
	}
	return Sample{Seconds: secs, Checksum: d, OK: true}, err
}

// ---- W3: Jacobi ----

func (e *benchEnv) benchJacobi() ([]Row, error) {
	n, iters := e.sizes.JacobiN, e.sizes.JacobiIters
	e.say("W3 Jacobi, %d x %d, %d iterations", n, n, iters)
	perIter := func(s Sample) float64 { return s.Seconds / float64(iters) * 1e3 }
	xp := func() (Sample, error) {
		return withThreads(e.threads, func() (Sample, error) {
			res, err := heat.Solve(e.world, heat.Config{N: n, Iters: iters})
			return Sample{Seconds: res.PerIter * float64(iters), Checksum: res.Checksum, OK: true}, err
		})
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_jacobi", Params{N: int64(n), Iters: int64(iters), Threads: 1})
	}
	xs, rs, err := e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	c := compareChecksums("W3", "sum of u", xs, rs, tolSum, nil)
	e.checks = append(e.checks, c)
	return []Row{newRow("W3", e.world.Size(), e.be, "Jacobi iteration", "ms/iter", KindTime, targetJacobi, figures(xs, perIter), figures(rs, perIter), c.OK)}, nil
}

// ---- W4: conjugate gradients ----

func (e *benchEnv) benchCG() ([]Row, error) {
	n, tol := e.sizes.CGN, e.sizes.CGTol
	e.say("W4 CG, %d x %d unknowns, tolerance %g", n, n, tol)
	xp := func() (Sample, error) {
		return withThreads(e.threads, func() (Sample, error) {
			res, err := cg.Solve(e.world, cg.Config{N: n, Tol: tol})
			s := Sample{Seconds: res.Seconds, Checksum: res.Checksum, OK: res.Converged}
			s.Extra = [4]float64{float64(res.Iters), res.RelRes, res.PerIter}
			return s, err
		})
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_cg", Params{N: int64(n), Iters: int64(n) * int64(n), Threads: 1, Tol: tol})
	}
	// In a -tags petsc build, PETSc's KSP over our shell operator solves
	// the same problem in every repetition, right after our CG.
	var ps []Sample
	run := xp
	if petscHooks != nil {
		if err := petscHooks.start(e.world); err != nil {
			return nil, err
		}
		run = func() (Sample, error) {
			s, err := xp()
			if err != nil {
				return s, err
			}
			runtime.GC()
			p, err := withThreads(e.threads, func() (Sample, error) {
				return e.withBLASThreads(func() (Sample, error) { return petscHooks.solve(e.world, n, tol) })
			})
			ps = append(ps, p)
			return s, err
		}
	}
	xs, rs, err := e.interleave(run, ref)
	if err != nil {
		return nil, err
	}
	iters := func(s Sample) float64 { return s.Extra[0] }
	ci := compareChecksums("W4", "iterations", xs, rs, 0, iters)
	cx := compareChecksums("W4", "sum of x", xs, rs, tolSum, nil)
	e.checks = append(e.checks, ci, cx)
	ok := ci.OK && cx.OK
	p := e.world.Size()
	secs := func(s Sample) float64 { return s.Seconds }
	perIter := func(s Sample) float64 { return s.Extra[2] * 1e3 }
	resid := func(s Sample) float64 { return s.Extra[1] }
	rows := []Row{
		newRow("W4", p, e.be, "CG time to solution", "s", KindTime, targetCG, figures(xs, secs), figures(rs, secs), ok),
		newRow("W4", p, e.be, "CG iteration", "ms/iter", KindTime, targetCG, figures(xs, perIter), figures(rs, perIter), ok),
		newRow("W4", p, e.be, "CG iterations", "count", KindInfo, 0, figures(xs, iters), figures(rs, iters), ok),
		newRow("W4", p, e.be, "CG final relative residual", "1", KindInfo, 0, figures(xs, resid), figures(rs, resid), ok),
	}
	if ps != nil {
		pi := compareChecksums("W4 PETSc", "iterations", ps, rs, 0, iters)
		px := compareChecksums("W4 PETSc", "sum of x", ps, rs, tolSum, nil)
		e.checks = append(e.checks, pi, px)
		pok := pi.OK && px.OK
		rows = append(rows,
			newRow("W4", p, e.be, "CG time, PETSc KSP + Go shell operator", "s", KindTime, 0, figures(ps, secs), figures(rs, secs), pok),
			newRow("W4", p, e.be, "CG iteration, PETSc KSP + Go shell operator", "ms/iter", KindTime, 0, figures(ps, perIter), figures(rs, perIter), pok),
			newRow("W4", p, e.be, "CG iterations, PETSc KSP", "count", KindInfo, 0, figures(ps, iters), figures(rs, iters), pok),
		)
	}
	return rows, nil
}

// petscHooks is set in a -tags petsc build (petsc.go): W2 and W4 through
// PETSc.
var petscHooks *petscHook

// petscWorkloads are the workloads that run through PETSc too, where
// petscHooks is set; benchEnv.run finalizes PETSc after the last of them.
var petscWorkloads = []string{"W2", "W4"}

// petscHook starts PETSc, times W2's dots and solves W4 with it, and
// finalizes it (once per process: PETSc cannot be started again). start
// may be called more than once; it starts PETSc once. stop finalizes
// PETSc if start started it and it is not finalized yet, and else does
// nothing.
type petscHook struct {
	start func(mpi.Comm) error
	// dot times dots VecDots of Vecs over x and y with timed, as W2's
	// xpmpi side times dist.Dot.
	dot   func(x, y *dist.Array[float64], dots int, timed func(func() error) (float64, error)) (Sample, error)
	solve func(c mpi.Comm, n int, tol float64) (Sample, error)
	stop  func() error
}

// ---- W5: sort ----

func (e *benchEnv) benchSort() ([]Row, error) {
	n := e.sizes.SortN
	e.say("W5 sort, %d keys", n)
	// One array of keys, refilled with the same keys before every
	// repetition (see sortKeys).
	keys, err := dist.Zeros[float64](e.world, []int{n})
	if err != nil {
		return nil, err
	}
	xp := func() (Sample, error) {
		return withThreads(e.threads, func() (Sample, error) { return e.sortKeys(keys) })
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_sort", Params{N: int64(n), Threads: 1, Seed: benchSeed})
	}
	xs, rs, err := e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	c := compareChecksums("W5", "weighted sum of the sorted keys", xs, rs, tolSum, nil)
	e.checks = append(e.checks, c)
	secs := func(s Sample) float64 { return s.Seconds }
	return []Row{newRow("W5", e.world.Size(), e.be, "sample sort", "s", KindTime, targetSort, figures(xs, secs), figures(rs, secs), c.OK)}, nil
}

// sort is xpmpi's side of W5 once, on a new array of n keys (see
// sortKeys).
func (e *benchEnv) sort(n int) (Sample, error) {
	keys, err := dist.Zeros[float64](e.world, []int{n})
	if err != nil {
		return Sample{}, err
	}
	return e.sortKeys(keys)
}

// sortKeys is xpmpi's side of W5: keys, evenly laid out, are set to the keys
// of dist.Uniform (untimed), then sorted in place by dist.SortInto, as
// xpref_sort sorts its keys where they are; then the check of the global
// order (untimed) and the checksum of xpref_sort. One array is sorted
// again and again, as a program that sorts repeatedly sorts one array:
// SortInto keeps its scratch space with the array, as xpref_sort keeps
// its own across calls, so that neither side's timed region touches fresh
// memory (a page fault costs 15-45 us in the virtual machine we measure
// on, and 64 MiB of fresh scratch cost more than the sort itself).
func (e *benchEnv) sortKeys(keys *dist.Array[float64]) (Sample, error) {
	n := keys.Layout().Len()
	lo, _ := keys.Range()
	rng.FillUniform(keys.LocalData(), benchSeed, uint64(lo), 0)
	sorted := keys
	secs, err := e.timed(func() error {
		_, err := dist.SortInto(keys, keys)
		return err
	})
	if err != nil {
		return Sample{}, err
	}
	local := sorted.LocalData()
	ok := true
	for i := 1; i < len(local); i++ {
		if local[i] < local[i-1] {
			ok = false
		}
	}
	// Every rank's count, first and last key, to check the order across
	// ranks.
	ends := []float64{float64(len(local)), 0, 0}
	if len(local) > 0 {
		ends[1], ends[2] = local[0], local[len(local)-1]
	}
	all := make([]float64, 3*e.world.Size())
	if err := mpi.Allgather(e.world, ends, all); err != nil {
		return Sample{}, err
	}
	count, start := 0, 0
	last, seen := 0.0, false
	for r := 0; r < e.world.Size(); r++ {
		c := int(all[3*r])
		if r < e.world.Rank() {
			start += c
		}
		count += c
		if c > 0 {
			if seen && all[3*r+1] < last {
				ok = false
			}
			last, seen = all[3*r+2], true
		}
	}
	ok = ok && count == n
	sum := 0.0
	for i, v := range local {
		sum += v * float64((start+i)%1024+1)
	}
	if sum, err = mpi.AllreduceValue(e.world, sum, mpi.Sum); err != nil {
		return Sample{}, err
	}
	if ok, err = mpi.AllTrue(e.world, ok); err != nil {
		return Sample{}, err
	}
	return Sample{Seconds: secs, Checksum: sum, OK: ok}, nil
}

// ---- W6: MPI micro-benchmarks ----

func (e *benchEnv) benchMPI() ([]Row, error) {
	p := e.world.Size()
	calls := e.sizes.AllreduceCalls
	e.say("W6 allreduce of 8 bytes, %d calls", calls)
	perCall := func(s Sample) float64 { return s.Seconds / float64(calls) * 1e6 }
	xp := func() (Sample, error) { return e.allreduce(calls) }
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_allreduce", Params{Iters: int64(calls), Threads: 1})
	}
	xs, rs, err := e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	c := compareChecksums("W6", "sum of the allreduce results", xs, rs, 0, nil)
	e.checks = append(e.checks, c)
	rows := []Row{newRow("W6", p, e.be, "allreduce 8 B", "us/call", KindTime, targetAllreduce, figures(xs, perCall), figures(rs, perCall), c.OK)}
	if err := e.allreduceBreakdown(calls, rows[0]); err != nil {
		return nil, err
	}

	if p < 2 {
		e.note("W6 ping-pong needs 2 ranks: skipped at 1 rank")
		return rows, nil
	}
	bytes, trips := e.sizes.PingBytes, e.sizes.PingTrips
	e.say("W6 ping-pong of %d bytes, %d round trips", bytes, trips)
	gbs := func(s Sample) float64 { return float64(bytes) / (s.Seconds / float64(2*trips)) / 1e9 }
	xp = func() (Sample, error) { return e.pingPong(bytes, trips) }
	ref = func() (Sample, error) {
		return e.ref.Call("xpref_pingpong", Params{N: int64(bytes), Iters: int64(trips), Threads: 1})
	}
	xs, rs, err = e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	c = compareChecksums("W6", "ping-pong buffer sum", xs, rs, 0, nil)
	e.checks = append(e.checks, c)
	metric := fmt.Sprintf("ping-pong %d KiB, ranks 0-1", bytes>>10)
	if bytes >= 1<<20 {
		metric = fmt.Sprintf("ping-pong %d MiB, ranks 0-1", bytes>>20)
	}
	rows = append(rows, newRow("W6", p, e.be, metric, "GB/s", KindRate, targetPingPong, figures(xs, gbs), figures(rs, gbs), c.OK))
	return rows, nil
}

// allreduce is xpmpi's side of the allreduce latency: mpi.AllreduceValue.
func (e *benchEnv) allreduce(calls int) (Sample, error) {
	acc := 0.0
	secs, err := e.timed(func() error {
		for k := 0; k < calls; k++ {
			v, err := mpi.AllreduceValue(e.world, 1.0, mpi.Sum)
			if err != nil {
				return err
			}
			acc += v
		}
		return nil
	})
	return Sample{Seconds: secs, Checksum: acc, OK: true}, err
}

// allreduceBreakdown measures, interleaved like the rows, where the time
// of one mpi.AllreduceValue goes, and adds the figures to the notes:
// the cost of a call from Go into C, of a call from Go into C that makes
// one MPI_Allreduce, of the Comm method (checking wrapper, library lock,
// binding) without the typed wrapper, of an uncontended sync.Mutex, and
// the heap allocations per call.
func (e *benchEnv) allreduceBreakdown(calls int, row Row) error {
	loop := func(name string) func() (Sample, error) {
		return func() (Sample, error) {
			if err := e.world.Barrier(); err != nil {
				return Sample{}, err
			}
			s, err := e.ref.CallLoop(name, calls)
			if err != nil {
				return Sample{}, err
			}
			s, err = mpi.AllreduceValue(e.world, s, mpi.Max)
			return Sample{Seconds: s}, err
		}
	}
	method := func() (Sample, error) {
		one, out := 1.0, 0.0
		s, err := e.timed(func() error {
			for k := 0; k < calls; k++ {
				if err := e.world.Allreduce(unsafe.Pointer(&one), unsafe.Pointer(&out), 1, mpi.Float64, mpi.Sum); err != nil {
					return err
				}
			}
			return nil
		})
		return Sample{Seconds: s}, err
	}
	var mu sync.Mutex
	lock := func() (Sample, error) {
		start := e.world.Wtime()
		for k := 0; k < calls; k++ {
			mu.Lock()
			mu.Unlock() //nolint:staticcheck // the empty critical section is what is measured
		}
		return Sample{Seconds: e.world.Wtime() - start}, nil
	}
	med := func(xs []Sample) float64 {
		return median(figures(xs, func(s Sample) float64 { return s.Seconds / float64(calls) * 1e6 }))
	}
	cgoAR, noop, err := e.interleave(loop("xpref_allreduce1"), loop("xpref_noop"))
	if err != nil {
		return err
	}
	meth, mutex, err := e.interleave(method, lock)
	if err != nil {
		return err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for k := 0; k < 1000; k++ {
		if _, err := mpi.AllreduceValue(e.world, 1.0, mpi.Sum); err != nil {
			return err
		}
	}
	runtime.ReadMemStats(&after)
	allocs := float64(after.Mallocs-before.Mallocs) / 1000
	e.note("W6 allreduce breakdown (us per call, medians; MPI thread level %s, both sides): C loop of MPI_Allreduce %.3f; Go loop calling C that calls MPI_Allreduce %.3f; Go loop calling an empty C function %.3f; Comm.Allreduce (checking wrapper, library lock if serialized, binding) %.3f; mpi.AllreduceValue %.3f; sync.Mutex Lock+Unlock %.3f; heap allocations per mpi.AllreduceValue %.2f",
		mpi.LibraryInfo().ThreadLevel, row.Reference, med(cgoAR), med(noop), med(meth), row.XPMPI, med(mutex), allocs)
	return nil
}

// pingPong is xpmpi's side of the ping-pong: mpi.Send and mpi.Recv.
func (e *benchEnv) pingPong(bytes, trips int) (Sample, error) {
	buf := make([]float64, bytes/8)
	for i := range buf {
		buf[i] = float64(i % 1000)
	}
	const tag = 7
	me := e.world.Rank()
	if err := e.world.Barrier(); err != nil {
		return Sample{}, err
	}
	var start float64
	for k := -1; k < trips; k++ { // round trip -1 is the warm-up
		if k == 0 {
			start = e.world.Wtime()
		}
		switch me {
		case 0:
			if err := mpi.Send(e.world, buf, 1, tag); err != nil {
				return Sample{}, err
			}
			if _, err := mpi.Recv(e.world, buf, 1, tag); err != nil {
				return Sample{}, err
			}
		case 1:
			if _, err := mpi.Recv(e.world, buf, 0, tag); err != nil {
				return Sample{}, err
			}
			if err := mpi.Send(e.world, buf, 0, tag); err != nil {
				return Sample{}, err
			}
		}
	}
	res := []float64{e.world.Wtime() - start, 0}
	for _, v := range buf {
		res[1] += v
	}
	if err := mpi.Bcast(e.world, res, 0); err != nil {
		return Sample{}, err
	}
	return Sample{Seconds: res[0], Checksum: res[1], OK: true}, nil
}

// ---- W7: checkpoint file ----

// benchFile writes a distributed array to a .npy file with every rank
// writing its block (dist.Save, MPI-IO) and reads it back on another layout
// (every element on the last rank, as a job of another rank count would
// split it differently) into an existing array (dist.LoadInto), against
// one process writing and reading the same bytes sequentially.
func (e *benchEnv) benchFile() ([]Row, error) {
	p, n := e.world.Size(), e.sizes.FileN
	var dir string
	if e.world.Rank() == 0 {
		d, err := os.MkdirTemp("", "xpmpi-w7-")
		if err != nil {
			return nil, err
		}
		dir = d
		defer os.RemoveAll(d)
	}
	b := make([]byte, 4096)
	copy(b, dir)
	if err := mpi.BcastBytes(e.world, b, 0); err != nil {
		return nil, err
	}
	dir = string(b[:strings.IndexByte(string(b), 0)])
	os.Setenv("XPREF_W7_DIR", dir)
	e.say("W7 checkpoint file of %d float64 values (%d MiB)", n, n*8>>20)
	x, err := dist.FromFunc(e.world, []int{n}, func(idx []int) float64 { return float64(idx[0]%1024) / 1024 })
	if err != nil {
		return nil, err
	}
	defer x.Free()
	path := filepath.Join(dir, "w7.npy")
	counts := make([]int, p)
	counts[p-1] = n
	// The array read into is made and touched before the clock starts, as
	// the reference reads into memory it has touched: the read is timed,
	// not the allocation (dist.LoadInto).
	y, err := dist.Full(e.world, []int{n}, -1.0, dist.BlockSizes(counts))
	if err != nil {
		return nil, err
	}
	defer y.Free()
	xp := func() (Sample, error) {
		var s Sample
		w, err := e.timed(func() error { return dist.Save(x, path) })
		if err != nil {
			return s, err
		}
		dist.Fill(y, -1)
		r, err := e.timed(func() error { return dist.LoadInto(y, path) })
		if err != nil {
			return s, err
		}
		sum, err := dist.Sum(y)
		s = Sample{Seconds: w + r, Checksum: sum, OK: true}
		s.Extra[0], s.Extra[1] = w, r
		return s, err
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_filewrite", Params{N: int64(n), Threads: 1})
	}
	xs, rs, err := e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	c := compareChecksums("W7", "sum of the values read back", xs, rs, 0, nil)
	e.checks = append(e.checks, c)
	bytes := float64(n) * 8
	wr := func(s Sample) float64 { return bytes / s.Extra[0] / 1e9 }
	rd := func(s Sample) float64 { return bytes / s.Extra[1] / 1e9 }
	return []Row{
		newRow("W7", p, e.be, "checkpoint write", "GB/s", KindRate, targetFile, figures(xs, wr), figures(rs, wr), c.OK),
		newRow("W7", p, e.be, "checkpoint read, other layout", "GB/s", KindRate, targetFile, figures(xs, rd), figures(rs, rd), c.OK),
	}, nil
}

// ---- W10: batched Newton ----

// targetBatch is issue 14's target for the batched solvers against a
// plain C loop over the elements, at one thread.
const targetBatch = 1.2

// blockOf returns this rank's block [lo, hi) of n elements.
func (e *benchEnv) blockOf(n int) (lo, hi int) {
	return dist.NewLayout([]int{n}, 0, e.world.Size()).Range(e.world.Rank())
}

// sumOverRanks returns the sums of vals over the ranks.
func (e *benchEnv) sumOverRanks(vals ...float64) ([]float64, error) {
	err := mpi.AllreduceInPlace(e.world, vals, mpi.Sum)
	return vals, err
}

// benchNewton solves Kepler's equation E - e sin E = M for KeplerN orbits
// with optimize.NewtonFDF, one batch per rank (its block of the orbits),
// against xpref_kepler's plain loop per orbit.
func (e *benchEnv) benchNewton() ([]Row, error) {
	n := e.sizes.KeplerN
	e.say("W10 batched Newton, %d Kepler equations", n)
	lo, hi := e.blockOf(n)
	m := hi - lo
	mean, ecc := make([]float64, m), make([]float64, m)
	for i := range mean {
		g := lo + i
		mean[i] = 2 * math.Pi * float64(g%1009) / 1009
		ecc[i] = 0.8 * float64((g*7919)%1000) / 1000
	}
	// The value and the derivative from one callback, with math.Sincos:
	// GCC turns the reference's sin and cos of the same x into one call
	// of sincos, and NewtonFDF is how a Go program does the same (with
	// two callbacks, math.Sin and math.Cos were 62% of this side's time).
	fdf := func(idx []int, x, f, df []float64) {
		for k, i := range idx {
			s, c := math.Sincos(x[k])
			f[k] = x[k] - ecc[i]*s - mean[i]
			df[k] = 1 - ecc[i]*c
		}
	}
	// One result for every repetition, reused as a loop of solves would
	// reuse it: xpref_kepler's malloc, too, hands back the memory of an
	// earlier repetition's roots, already mapped (no page faults in its
	// timed region from the third repetition on, counted with getrusage).
	res := new(optimize.NewtonResult)
	xp := func() (Sample, error) {
		secs, err := e.timed(func() error {
			return optimize.NewtonFDFInto(res, fdf, mean, nil)
		})
		if err != nil {
			return Sample{}, err
		}
		sum, steps := 0.0, 0
		for i, x := range res.Root {
			sum += x
			steps += res.Iterations[i]
		}
		g, err := e.sumOverRanks(sum, float64(steps), float64(res.NumConverged))
		s := Sample{Seconds: secs, Checksum: g[0], OK: int(g[2]) == n}
		s.Extra[0] = g[1]
		return s, err
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_kepler", Params{N: int64(n), Threads: 1})
	}
	xs, rs, err := e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	steps := func(s Sample) float64 { return s.Extra[0] }
	cx := compareChecksums("W10", "sum of the roots", xs, rs, tolSum, nil)
	// C's compiler fuses multiply-adds (-march=native) where Go does not:
	// an orbit near its tolerance can take a step more or less on either
	// side (11 in 60503 in the small size, here).
	cs := compareChecksums("W10", "Newton steps", xs, rs, 1e-3, steps)
	e.checks = append(e.checks, cx, cs)
	ok := cx.OK && cs.OK
	secs := func(s Sample) float64 { return s.Seconds * 1e3 }
	p := e.world.Size()
	return []Row{
		newRow("W10", p, e.be, "batched Newton, Kepler", "ms", KindTime, targetBatch, figures(xs, secs), figures(rs, secs), ok),
		newRow("W10", p, e.be, "Newton steps", "count", KindInfo, 0, figures(xs, steps), figures(rs, steps), ok),
	}, nil
}

// ---- W10: batched RK45 ----

// benchRK45 integrates ODEN Van der Pol oscillators with
// integrate.SolveIVPIndexed (RK45, each system its own steps, the rank's
// block a cache-sized chunk of systems at a time, one call of the
// right-hand side per stage of a chunk), against xpref_rk45's plain loop
// per system.
func (e *benchEnv) benchRK45() ([]Row, error) {
	n := e.sizes.ODEN
	e.say("W10 batched RK45, %d Van der Pol oscillators", n)
	lo, hi := e.blockOf(n)
	m := hi - lo
	mu := make([]float64, m)
	y0 := make([]float64, 2*m)
	for i := range mu {
		mu[i] = 0.5 + float64((lo+i)%100)/100
		y0[2*i] = 2
	}
	f := func(idx []int, t, y, dy []float64) {
		for k, i := range idx {
			a, b := y[2*k], y[2*k+1]
			dy[2*k] = b
			dy[2*k+1] = mu[i]*(1-a*a)*b - a
		}
	}
	opts := &integrate.IVPOptions{Method: integrate.RK45, RelTol: 1e-6, AbsTol: 1e-9, IgnoreStiffness: true}
	xp := func() (Sample, error) {
		var res *integrate.BatchResult
		secs, err := e.timed(func() error {
			var err error
			res, err = integrate.SolveIVPIndexed(f, m, 2, 0, 10, y0, opts)
			return err
		})
		if err != nil {
			return Sample{}, err
		}
		sum, steps := 0.0, 0
		for _, v := range res.Y[len(res.Y)-1] {
			sum += v
		}
		for _, k := range res.Steps {
			steps += k
		}
		g, err := e.sumOverRanks(sum, float64(steps))
		s := Sample{Seconds: secs, Checksum: g[0], OK: true}
		s.Extra[0] = g[1]
		return s, err
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_rk45", Params{N: int64(n), Threads: 1})
	}
	xs, rs, err := e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	steps := func(s Sample) float64 { return s.Extra[0] }
	// The same steps and tolerances: the states agree to about the local
	// tolerance, where fused multiply-adds in C move an acceptance.
	cx := compareChecksums("W10", "sum of the final states", xs, rs, 1e-6, nil)
	cs := compareChecksums("W10", "RK45 steps", xs, rs, 1e-3, steps)
	e.checks = append(e.checks, cx, cs)
	ok := cx.OK && cs.OK
	secs := func(s Sample) float64 { return s.Seconds * 1e3 }
	p := e.world.Size()
	return []Row{
		newRow("W10", p, e.be, "batched RK45, Van der Pol", "ms", KindTime, targetBatch, figures(xs, secs), figures(rs, secs), ok),
		newRow("W10", p, e.be, "RK45 steps", "count", KindInfo, 0, figures(xs, steps), figures(rs, steps), ok),
	}, nil
}

// ---- W4F: conjugate gradients with fused vector updates ----

// benchCGFused is W4 with the vector work fused (solvers/cg's Fused, over
// package kernels/fuse) against xpref_cg_fused, the C a
// performance-aware programmer writes: the stencil with p.Ap, the x and r
// updates with r.r, and p's update, each one loop, the reductions
// vectorized. The two sum their dots in different orders, so the
// iteration counts may differ by one or two and the solutions in the last
// digits the tolerance allows.
func (e *benchEnv) benchCGFused() ([]Row, error) {
	n, tol := e.sizes.CGN, e.sizes.CGTol
	e.say("W4F CG with fused updates, %d x %d unknowns, tolerance %g", n, n, tol)
	xp := func() (Sample, error) {
		return withThreads(e.threads, func() (Sample, error) {
			res, err := cg.Solve(e.world, cg.Config{N: n, Tol: tol, Fused: true})
			s := Sample{Seconds: res.Seconds, Checksum: res.Checksum, OK: res.Converged}
			s.Extra = [4]float64{float64(res.Iters), res.RelRes, res.PerIter}
			return s, err
		})
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_cg_fused", Params{N: int64(n), Iters: int64(n) * int64(n), Threads: 1, Tol: tol})
	}
	xs, rs, err := e.interleave(xp, ref)
	if err != nil {
		return nil, err
	}
	iters := func(s Sample) float64 { return s.Extra[0] }
	ci := compareChecksums("W4F", "iterations", xs, rs, 0.01, iters)
	cx := compareChecksums("W4F", "sum of x", xs, rs, 1e-6, nil)
	e.checks = append(e.checks, ci, cx)
	ok := ci.OK && cx.OK
	p := e.world.Size()
	perIter := func(s Sample) float64 { return s.Extra[2] * 1e3 }
	return []Row{
		newRow("W4F", p, e.be, "CG iteration, fused", "ms/iter", KindTime, targetCG, figures(xs, perIter), figures(rs, perIter), ok),
		newRow("W4F", p, e.be, "CG iterations, fused", "count", KindInfo, 0, figures(xs, iters), figures(rs, iters), ok),
	}, nil
}
