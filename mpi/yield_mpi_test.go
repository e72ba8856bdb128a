//go:build mpi || petsc

package mpi

import (
	"testing"
	"time"
)

// TestYieldInLoop: a goroutine that calls MPI in a loop yields every
// yieldAfter or so (yield.go), through the library lock every call ends
// with. The loop is collective: every rank makes the same calls, until
// each has run 20 ms and made 256 calls.
func TestYieldInLoop(t *testing.T) {
	c := World()
	before := mpiYield.yields.Load()
	t0 := time.Now()
	n := 0
	for {
		n++
		more := int32(0)
		if time.Since(t0) < 20*time.Millisecond || n < 4*yieldSample {
			more = 1
		}
		v, err := AllreduceValue(c, more, Max)
		if err != nil {
			t.Fatal(err)
		}
		if v == 0 {
			break
		}
	}
	if got := mpiYield.yields.Load() - before; got < 2 {
		t.Errorf("%d yields in %v of %d allreduces, want at least 2 (one per %v)", got, time.Since(t0), n, yieldAfter)
	}
}
