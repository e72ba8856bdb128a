package profiling

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRegion(t *testing.T) {
	errSync := errors.New("device lost")
	tests := []struct {
		name       string
		failOn     int // the sync call that fails (1 or 2), 0 for none
		nilSync    bool
		wantSyncs  int
		wantSynced bool
		wantErr    error
	}{
		{name: "synced", wantSyncs: 2, wantSynced: true},
		{name: "no sync", nilSync: true},
		{name: "start sync fails", failOn: 1, wantSyncs: 2, wantErr: errSync},
		{name: "stop sync fails", failOn: 2, wantSyncs: 2, wantErr: errSync},
	}
	for _, tc := range tests {
		syncs := 0
		var sync func() error
		if !tc.nilSync {
			sync = func() error {
				syncs++
				if syncs == tc.failOn {
					return errSync
				}
				return nil
			}
		}
		timer := Region("r", sync)
		time.Sleep(2 * time.Millisecond)
		r := timer.Stop()
		if r.Name != "r" || r.Synced != tc.wantSynced || r.Err != tc.wantErr || syncs != tc.wantSyncs {
			t.Errorf("%s: %+v after %d syncs", tc.name, r, syncs)
		}
		if r.Elapsed < 2*time.Millisecond {
			t.Errorf("%s: elapsed %v", tc.name, r.Elapsed)
		}
		if again := timer.Stop(); again != r || syncs != tc.wantSyncs {
			t.Errorf("%s: second Stop %+v, %d syncs", tc.name, again, syncs)
		}
	}
}

func TestRegionSyncsAroundClock(t *testing.T) {
	// The syncs are outside the measured time at the start and inside at
	// the stop: a slow start sync does not count, a slow stop sync does.
	n := 0
	r := Timed("slow", func() error {
		n++
		if n == 1 {
			time.Sleep(30 * time.Millisecond)
		} else {
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	}, func() {})
	if r.Elapsed < 5*time.Millisecond || r.Elapsed >= 30*time.Millisecond || !r.Synced {
		t.Errorf("%+v", r)
	}
}

func TestRegionResultString(t *testing.T) {
	tests := []struct {
		r    RegionResult
		want string
	}{
		{RegionResult{Name: "step", Elapsed: 1500 * time.Microsecond, Synced: true}, "step: 1.5ms (synced)"},
		{RegionResult{Name: "step", Elapsed: time.Second}, "step: 1s (not synced)"},
		{RegionResult{Name: "step", Elapsed: time.Second, Err: errors.New("x")}, "step: 1s (sync failed: x)"},
	}
	for _, tc := range tests {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestTimedPanic(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "inside") {
			t.Errorf("panic %v", r)
		}
	}()
	Timed("p", nil, func() { panic("inside") })
}
