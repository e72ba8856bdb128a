package backend_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
)

func TestParallelPanicReachesCaller(t *testing.T) {
	prev := backend.SetThreads(4)
	defer backend.SetThreads(prev)
	for name, run := range map[string]func(){
		"ParallelFor": func() {
			backend.ParallelFor(1000, 10, func(lo, hi int) {
				if lo > 0 {
					panic("boom")
				}
			})
		},
		"ParallelChunks": func() {
			backend.ParallelChunks(50, func(c int) {
				if c == 37 {
					panic("boom")
				}
			})
		},
	} {
		func() {
			defer func() {
				if r := recover(); fmt.Sprint(r) != "boom" {
					t.Errorf("%s: recovered %v, want boom", name, r)
				}
			}()
			run()
		}()
	}
}

func TestParallelForCoversAndRespectsGrain(t *testing.T) {
	prev := backend.SetThreads(4)
	defer backend.SetThreads(prev)
	for _, n := range []int{0, 1, 9, 10, 11, 19, 20, 21, 1000} {
		var covered atomic.Int64
		backend.ParallelFor(n, 10, func(lo, hi int) {
			if hi-lo < 10 && hi-lo != n {
				t.Errorf("n=%d: range [%d,%d) shorter than the grain", n, lo, hi)
			}
			covered.Add(int64(hi - lo))
		})
		if int(covered.Load()) != n {
			t.Errorf("n=%d: covered %d", n, covered.Load())
		}
	}
}
