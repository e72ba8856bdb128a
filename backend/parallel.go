package backend

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/xpmpi/xpmpi/launch"
)

var threads atomic.Int64

// DefaultThreads returns the thread budget of this rank when nothing
// overrides it: the CPUs this process may use divided by the ranks on its
// node (from the launcher's local size), at least 1, so that P ranks on a
// node do not oversubscribe it. XPMPI_THREADS=N overrides it; a value that
// ThreadsFromEnv refuses is ignored here (the CLI refuses to start on it).
func DefaultThreads() int {
	if n, err := ThreadsFromEnv(); err == nil && n > 0 {
		return n
	}
	n := runtime.NumCPU() / launch.LocalSize()
	if n < 1 {
		n = 1
	}
	return n
}

// ThreadsFromEnv returns the thread budget XPMPI_THREADS sets: 0 where it
// is unset or empty, and an error naming the variable where it is not a
// positive integer.
func ThreadsFromEnv() (int, error) {
	s := strings.TrimSpace(os.Getenv("XPMPI_THREADS"))
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("XPMPI_THREADS=%q: want a positive integer (host loop goroutines per rank; unset for CPUs / ranks per node)", s)
	}
	return n, nil
}

// Threads returns the number of goroutines host loops may use.
func Threads() int {
	if n := threads.Load(); n > 0 {
		return int(n)
	}
	n := DefaultThreads()
	threads.CompareAndSwap(0, int64(n))
	return int(threads.Load())
}

// SetThreads sets the thread budget of host loops and returns the previous
// one. n < 1 restores the default.
func SetThreads(n int) int {
	prev := Threads()
	if n < 1 {
		n = DefaultThreads()
	}
	threads.Store(int64(n))
	return prev
}

// ParallelFor calls f on consecutive ranges [lo, hi) that cover [0, n),
// using up to Threads() goroutines, each range at least grain elements
// long. With one thread or n < 2*grain it calls f(0, n) on the calling
// goroutine. How ranges are cut depends on the thread count: use
// ParallelChunks where results must not. A panic in f is raised again on
// the calling goroutine once every range has finished.
func ParallelFor(n, grain int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	t := Threads()
	if grain < 1 {
		grain = 1
	}
	t = max(1, min(t, n/grain))
	if t <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	var p panicked
	wg.Add(t - 1)
	for k := 1; k < t; k++ {
		lo, hi := k*n/t, (k+1)*n/t
		go func() {
			defer wg.Done()
			defer p.catch()
			f(lo, hi)
		}()
	}
	func() {
		defer p.catch()
		f(0, n/t)
	}()
	wg.Wait()
	p.repanic()
}

// panicked keeps the first panic of the goroutines of a parallel loop, to
// raise it again on the calling goroutine, where the caller can recover it.
type panicked struct {
	once sync.Once
	val  any
	set  bool
}

func (p *panicked) catch() {
	if r := recover(); r != nil {
		p.once.Do(func() { p.val, p.set = r, true })
	}
}

func (p *panicked) repanic() {
	if p.set {
		panic(p.val)
	}
}

// ParallelChunks calls f(c) for every chunk c in [0, nchunks), using up to
// Threads() goroutines. The chunks, and so any per-chunk result, do not
// depend on the thread count. A panic in f is raised again on the calling
// goroutine once the other goroutines have stopped.
func ParallelChunks(nchunks int, f func(c int)) {
	if nchunks <= 0 {
		return
	}
	t := Threads()
	if t > nchunks {
		t = nchunks
	}
	if t <= 1 {
		for c := 0; c < nchunks; c++ {
			f(c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var p panicked
	work := func() {
		defer p.catch()
		for {
			c := int(next.Add(1) - 1)
			if c >= nchunks {
				return
			}
			f(c)
		}
	}
	wg.Add(t - 1)
	for k := 1; k < t; k++ {
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	p.repanic()
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
