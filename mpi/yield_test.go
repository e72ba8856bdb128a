package mpi

import (
	"sync"
	"testing"
	"time"
)

// fakeYielder returns a yielder on a clock the test moves, and the count of
// its yields.
func fakeYielder() (y *yielder, clock *int64, yields *int) {
	clock, yields = new(int64), new(int)
	var mu sync.Mutex
	y = &yielder{
		now: func() int64 { mu.Lock(); defer mu.Unlock(); return *clock },
		gosched: func() {
			mu.Lock()
			*yields++
			mu.Unlock()
		},
	}
	return y, clock, yields
}

func TestYielder(t *testing.T) {
	y, clock, yields := fakeYielder()
	calls := func(n int) {
		for range n {
			y.call()
		}
	}
	// Before yieldAfter has passed since the start, nothing yields.
	*clock = int64(yieldAfter) - 1
	calls(10 * yieldSample)
	if *yields != 0 {
		t.Fatalf("%d yields before %v passed", *yields, yieldAfter)
	}
	// Then the next sample yields, once.
	*clock = int64(yieldAfter)
	calls(yieldSample - 1)
	if *yields != 0 {
		t.Fatalf("%d yields between samples", *yields)
	}
	calls(1)
	if *yields != 1 {
		t.Fatalf("%d yields at the sample after %v, want 1", *yields, yieldAfter)
	}
	calls(10 * yieldSample)
	if *yields != 1 {
		t.Fatalf("%d yields with the clock stopped, want 1", *yields)
	}
	// yieldAfter after that yield, the next one.
	*clock += int64(yieldAfter) - 1
	calls(yieldSample)
	if *yields != 1 {
		t.Fatalf("%d yields %v after a yield, want 1", *yields, yieldAfter-1)
	}
	*clock++
	calls(yieldSample)
	if *yields != 2 || y.yields.Load() != 2 {
		t.Fatalf("%d yields (%d counted) %v after a yield, want 2", *yields, y.yields.Load(), yieldAfter)
	}
}

// TestYielderConcurrent: of goroutines calling at once, one yields per
// interval (run with -race, it also checks the counters are safe).
func TestYielderConcurrent(t *testing.T) {
	y, clock, yields := fakeYielder()
	*clock = int64(time.Hour)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 * yieldSample {
				y.call()
			}
		})
	}
	wg.Wait()
	if *yields != 1 {
		t.Fatalf("%d yields by 8 goroutines on a stopped clock, want 1", *yields)
	}
}
