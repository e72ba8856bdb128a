package profiling

import (
	"fmt"
	"sync"
	"time"
)

// Timer times a region of code; see Region.
type Timer struct {
	name     string
	sync     func() error
	start    time.Time
	synced   bool
	err      error
	endRange func()
	once     sync.Once
	result   RegionResult
}

// RegionResult is what a timed region measured.
type RegionResult struct {
	// Name is the region's name.
	Name string
	// Elapsed is the wall-clock time between the start and the stop.
	Elapsed time.Duration
	// Synced is true if the region synchronized successfully before
	// reading the clock both at its start and at its stop.
	Synced bool
	// Err is the first error of a synchronization, if any.
	Err error
}

// String reads like "step: 1.234ms (synced)", or "(not synced)".
func (r RegionResult) String() string {
	s := fmt.Sprintf("%s: %v", r.Name, r.Elapsed)
	switch {
	case r.Err != nil:
		return s + " (sync failed: " + r.Err.Error() + ")"
	case r.Synced:
		return s + " (synced)"
	default:
		return s + " (not synced)"
	}
}

// Region starts timing a region called name. If sync is not nil, it is
// called before the clock is read at the start and again at Stop, so that
// the time covers the device work queued inside the region and none from
// before (pass the backend's synchronize, e.g. backend.Current().Synchronize);
// with a nil sync the clock is read at once. The region is also an NVTX
// range of the same name (see Range), so it shows in Nsight Systems.
//
//	t := profiling.Region("step", sync)
//	step()
//	fmt.Println(t.Stop())
func Region(name string, sync func() error) *Timer {
	t := &Timer{name: name, sync: sync}
	t.endRange = Range(name)
	if sync != nil {
		if err := sync(); err != nil {
			t.err = err
		} else {
			t.synced = true
		}
	}
	t.start = time.Now()
	return t
}

// Stop synchronizes (unless the region was started with a nil sync), reads
// the clock and returns what the region measured. Calling it again returns
// the same result.
func (t *Timer) Stop() RegionResult {
	t.once.Do(func() {
		synced := t.synced
		if t.sync != nil {
			if err := t.sync(); err != nil {
				synced = false
				if t.err == nil {
					t.err = err
				}
			}
		}
		elapsed := time.Since(t.start)
		t.endRange()
		t.result = RegionResult{Name: t.name, Elapsed: elapsed, Synced: synced && t.err == nil, Err: t.err}
	})
	return t.result
}

// Timed runs f as a region called name; see Region.
func Timed(name string, sync func() error, f func()) RegionResult {
	t := Region(name, sync)
	defer t.Stop()
	f()
	return t.Stop()
}
