package fftk

import (
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/dsp/fourier"
)

// threadCPU returns the CPU time the calling thread has used
// (getrusage(RUSAGE_THREAD)).
func threadCPU(t *testing.T) time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCPUTimePerLine prints the CPU time of one transform of a line, fftk
// forward and inverse and gonum's CmplxFFT forward, the least over 7
// rounds of about 4M elements each: on a machine shared with other work,
// CPU time tells more than the wall-clock time of the benchmarks. It runs
// only with XPMPI_FFTK_CPUTIME=1:
//
//	XPMPI_FFTK_CPUTIME=1 go test -v -run CPUTime ./backend/cpu/internal/fftk
func TestCPUTimePerLine(t *testing.T) {
	if os.Getenv("XPMPI_FFTK_CPUTIME") != "1" {
		t.Skip("set XPMPI_FFTK_CPUTIME=1 to run")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, n := range benchSizes {
		x := randLine(rand.New(rand.NewPCG(5, 6)), n)
		y := make([]complex128, n)
		p := NewPlan(n)
		g := fourier.NewCmplxFFT(n)
		reps := max(1, 4000000/n)
		least := func(f func()) float64 {
			best := 1e18
			for range 7 {
				t0 := threadCPU(t)
				for range reps {
					copy(y, x)
					f()
				}
				best = min(best, float64(threadCPU(t)-t0)/float64(reps))
			}
			return best
		}
		fwd := least(func() { p.Forward(y) })
		inv := least(func() { p.Inverse(y, 1/float64(n)) })
		gon := least(func() { g.Coefficients(y, y) })
		t.Logf("n=%5d: fftk forward %7.0f ns, inverse %7.0f ns; gonum forward %7.0f ns: %.2f times fftk's", n, fwd, inv, gon, gon/fwd)
	}
}
