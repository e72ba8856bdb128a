package profiling

import (
	"strings"
	"sync"
	"testing"
)

func TestCounterCounts(t *testing.T) {
	c := Count()
	events := []Event{
		{Kind: ToHost, Bytes: 100, Site: "a/x.go:1"},
		{Kind: ToHost, Bytes: 50, Site: "a/x.go:1"},
		{Kind: ToHost, Bytes: UnknownBytes, Site: "a/x.go:2"},
		{Kind: ToDevice, Bytes: 8, Site: "a/x.go:3"},
		{Kind: KernelConversion, Bytes: 16, Site: "a/x.go:4"},
		{Kind: Fallback, Bytes: 32, Site: "a/x.go:5"},
		{Kind: DeviceCopy, Bytes: 64, Site: "a/x.go:6"},
		{Kind: Sync, Bytes: UnknownBytes, Site: "a/x.go:7"},
		{Kind: Sync, Bytes: 0, Site: "a/x.go:7"},
	}
	for _, e := range events {
		Record(e)
	}
	c.Stop()
	tests := []struct {
		k       Kind
		n       int
		bytes   int64
		unknown int
	}{
		{ToHost, 3, 150, 1},
		{ToDevice, 1, 8, 0},
		{KernelConversion, 1, 16, 0},
		{Fallback, 1, 32, 0},
		{DeviceCopy, 1, 64, 0},
		{Sync, 2, 0, 1},
	}
	for _, tc := range tests {
		if n, b, u := c.Count(tc.k), c.Bytes(tc.k), c.UnknownSizes(tc.k); n != tc.n || b != tc.bytes || u != tc.unknown {
			t.Errorf("%v: count %d bytes %d unknown %d; want %d %d %d", tc.k, n, b, u, tc.n, tc.bytes, tc.unknown)
		}
	}
	if got := c.Total(); got != 7 {
		t.Errorf("Total = %d, want 7 (syncs left out)", got)
	}
	if got := c.TotalBytes(); got != 270 {
		t.Errorf("TotalBytes = %d, want 270", got)
	}
	if c.Count(Kind(42)) != 0 || c.Bytes(Kind(42)) != 0 || c.UnknownSizes(Kind(42)) != 0 {
		t.Error("invalid kind has counts")
	}
	want := `total: 7 events, 270 bytes + 1 of unknown size; 2 syncs
to_host: 3 events, 150 bytes + 1 of unknown size
  2 at a/x.go:1, 150 bytes
  1 at a/x.go:2, 0 bytes + 1 of unknown size
to_device: 1 event, 8 bytes
  1 at a/x.go:3, 8 bytes
kernel_conversion: 1 event, 16 bytes
  1 at a/x.go:4, 16 bytes
fallback: 1 event, 32 bytes
  1 at a/x.go:5, 32 bytes
device_copy: 1 event, 64 bytes
  1 at a/x.go:6, 64 bytes
sync: 2 events
  2 at a/x.go:7
`
	if got := c.Report(); got != want {
		t.Errorf("Report\n got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCounterReportOrderAndDesc(t *testing.T) {
	c := Count()
	Record(Event{Kind: ToHost, Bytes: 1, Site: "b/y.go:9", Desc: "first"})
	for range 3 {
		Record(Event{Kind: ToHost, Bytes: 2, Site: "b/y.go:20", Desc: "busy"})
	}
	Record(Event{Kind: ToHost, Bytes: 1, Site: "b/y.go:9", Desc: "second"})
	Record(Event{Kind: ToHost, Bytes: 4, Site: "a/a.go:1"})
	Record(Event{Kind: Sync, Bytes: -1, Desc: "no site"})
	c.Stop()
	want := `total: 6 events, 12 bytes; 1 sync
to_host: 6 events, 12 bytes
  3 at b/y.go:20, 6 bytes (busy)
  2 at b/y.go:9, 2 bytes (first)
  1 at a/a.go:1, 4 bytes
sync: 1 event
  1 at profiling/counter_test.go:` // site filled in by Record
	got := c.Report()
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, " (no site)\n") {
		t.Errorf("Report\n got:\n%s\nwant:\n%s...", got, want)
	}
	empty := NewCounter()
	if got := empty.Report(); got != "total: 0 events\n" {
		t.Errorf("empty Report = %q", got)
	}
	var zero Counter
	zero.Start()
	Record(Event{Kind: ToDevice, Bytes: 3})
	zero.Stop()
	if zero.Count(ToDevice) != 1 || len(zero.Groups()) != 1 {
		t.Error("zero Counter does not count")
	}
}

func TestCounterNesting(t *testing.T) {
	outer := Count()
	Record(Event{Kind: ToHost, Bytes: 1})
	inner := Count()
	Record(Event{Kind: ToHost, Bytes: 2})
	// Entering outer again: still one count per event.
	outer.Start()
	Record(Event{Kind: ToHost, Bytes: 4})
	outer.Stop() // outer still counting (entered twice)
	if !outer.Counting() {
		t.Fatal("outer stopped after one of two Stops")
	}
	Record(Event{Kind: ToHost, Bytes: 8})
	inner.Stop()
	if inner.Counting() {
		t.Fatal("inner still counting")
	}
	Record(Event{Kind: ToHost, Bytes: 16})
	outer.Stop()
	Record(Event{Kind: ToHost, Bytes: 32})
	if got := outer.Bytes(ToHost); got != 1+2+4+8+16 {
		t.Errorf("outer bytes %d", got)
	}
	if got := outer.Count(ToHost); got != 5 {
		t.Errorf("outer count %d", got)
	}
	if got := inner.Bytes(ToHost); got != 2+4+8 {
		t.Errorf("inner bytes %d", got)
	}
	if Active() {
		t.Error("still active")
	}
	// A stopped counter can start again and keeps its counts.
	inner.Start()
	Record(Event{Kind: ToHost, Bytes: 64})
	inner.Stop()
	if got := inner.Bytes(ToHost); got != 2+4+8+64 {
		t.Errorf("inner bytes after restart %d", got)
	}
	inner.Reset()
	if inner.Total() != 0 || len(inner.Groups()) != 0 {
		t.Error("Reset left counts")
	}
}

func TestCounterStopPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "profiling: Stop of a counter that is not counting" {
			t.Errorf("panic %v", r)
		}
	}()
	NewCounter().Stop()
}

func TestCounting(t *testing.T) {
	c := Counting(func() {
		Record(Event{Kind: Fallback, Bytes: 5})
	})
	if c.Counting() || c.Count(Fallback) != 1 {
		t.Errorf("Counting: counting %v, count %d", c.Counting(), c.Count(Fallback))
	}
	// A panic passes through and the counter stops.
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("panic %v", r)
			}
		}()
		Counting(func() { panic("boom") })
	}()
	if Active() {
		t.Error("active after a panic in Counting")
	}
}

func TestCounterConcurrent(t *testing.T) {
	const goroutines, per = 8, 1000
	total := Count()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				if i%100 == 0 {
					// Counters starting and stopping meanwhile.
					c := Count()
					Record(Event{Kind: ToDevice, Bytes: 1})
					c.Stop()
					if c.Count(ToDevice) < 1 {
						t.Error("short-lived counter missed its event")
					}
					_ = c.Report()
					continue
				}
				Record(Event{Kind: Kind(g % int(numKinds)), Bytes: 1})
			}
		}()
	}
	wg.Wait()
	total.Stop()
	n := 0
	for _, k := range Kinds() {
		n += total.Count(k)
	}
	if n != goroutines*per {
		t.Errorf("counted %d events, want %d", n, goroutines*per)
	}
	if Active() {
		t.Error("still active")
	}
}
