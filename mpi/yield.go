package mpi

import (
	"runtime"
	"sync/atomic"
	"time"
)

// A goroutine that calls MPI in a loop (a solver's dot products, a
// stencil's halo exchange) spends most of its time inside cgo calls and is
// never rescheduled. Go's runtime (measured with Go 1.26) then fights it:
// once the goroutine has run 10 ms without a reschedule, sysmon tries to
// preempt it, cannot while it is in C, and takes its P instead; the
// goroutine comes back from C, picks up an idle P whose scheduling tick has
// not moved either, and sysmon takes that one at its next tick, every 20 us
// or so, for as long as the loop lasts. Each take wakes a thread. At two
// ranks on two cores the woken threads preempt the peer's polling: an
// 8-byte allreduce loop made 7,000 P steals and 30,000 context switches in
// 2 s, and ran 1.5-2 times slower, than the same loop yielding every few
// milliseconds (issue 29; the numbers are in docs/PERFORMANCE.md).
//
// So the binding counts its calls into MPI and, every yieldSample calls,
// looks at the clock: a goroutine that has called MPI for yieldAfter
// without a yield calls runtime.Gosched, which reschedules it and resets
// sysmon's count. The cost is an atomic add per call and a clock read per
// yieldSample calls; the yield itself, at most every yieldAfter, wakes one
// thread, where the fight woke one every 20-40 us.
const (
	yieldSample = 64
	yieldAfter  = 2 * time.Millisecond
)

// yielder decides when the goroutines calling MPI yield. now and gosched
// are the clock and the yield; tests replace them.
type yielder struct {
	calls   atomic.Uint32
	last    atomic.Int64 // now() at the last yield
	now     func() int64
	gosched func()
	yields  atomic.Int64 // how many yields, for tests and diagnostics
}

var yieldEpoch = time.Now()

// mpiYield is the yielder of every call into the MPI library.
var mpiYield = yielder{
	now:     func() int64 { return int64(time.Since(yieldEpoch)) },
	gosched: runtime.Gosched,
}

// call records one call into MPI, made by the calling goroutine, and
// yields when it is time.
func (y *yielder) call() {
	if y.calls.Add(1)%yieldSample == 0 {
		y.sample()
	}
}

// sample yields if yieldAfter has passed since the last yield. Of several
// goroutines sampling at once, one yields.
func (y *yielder) sample() {
	now, last := y.now(), y.last.Load()
	if now-last < int64(yieldAfter) || !y.last.CompareAndSwap(last, now) {
		return
	}
	y.yields.Add(1)
	y.gosched()
}
