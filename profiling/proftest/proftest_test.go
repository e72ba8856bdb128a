package proftest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/profiling"
)

// recorder is a testing.TB that records errors instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Error(args ...any) {
	r.errors = append(r.errors, fmt.Sprint(args...))
}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestNoTransfers(t *testing.T) {
	tests := []struct {
		name  string
		event *profiling.Event
		opts  []profiling.AssertOption
		want  string
	}{
		{name: "nothing"},
		{name: "sync ignored", event: &profiling.Event{Kind: profiling.Sync, Site: "a/a.go:1"}},
		{name: "sync asked", event: &profiling.Event{Kind: profiling.Sync, Bytes: -1, Site: "a/a.go:1"}, opts: []profiling.AssertOption{profiling.IncludeSyncs()},
			want: "profiling: 1 transfer event where none were expected:\n  sync at a/a.go:1"},
		{name: "copy", event: &profiling.Event{Kind: profiling.ToDevice, Bytes: 8, Site: "a/a.go:2"},
			want: "profiling: 1 transfer event where none were expected:\n  to_device 8 bytes at a/a.go:2"},
	}
	for _, tc := range tests {
		r := &recorder{TB: t}
		ok := NoTransfers(r, func() {
			if tc.event != nil {
				profiling.Record(*tc.event)
			}
		}, tc.opts...)
		got := strings.Join(r.errors, "\n")
		if got != tc.want || ok != (tc.want == "") {
			t.Errorf("%s: ok %v, errors\n%s\nwant\n%s", tc.name, ok, got, tc.want)
		}
	}
}

func TestNoTransfersSite(t *testing.T) {
	// The site of an event recorded in the test's closure is the test file.
	r := &recorder{TB: t}
	NoTransfers(r, func() {
		profiling.Record(profiling.Event{Kind: profiling.ToHost, Bytes: 1})
	})
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "to_host 1 bytes at proftest/proftest_test.go:") {
		t.Errorf("errors %q", r.errors)
	}
}

func TestCheckBudget(t *testing.T) {
	b, err := profiling.NewBudget(profiling.Phase{Name: "step", Calls: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	if CheckBudget(r, b) || strings.Join(r.errors, "\n") != "transfer budget not kept:\nstep: 0 call(s), expected 1" {
		t.Errorf("errors %q", r.errors)
	}
	b.Run("step", func() {})
	r = &recorder{TB: t}
	if !CheckBudget(r, b) || len(r.errors) != 0 {
		t.Errorf("errors %q", r.errors)
	}
}
