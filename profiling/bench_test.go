package profiling

import (
	"testing"
)

// BenchmarkRecordInactive is the cost of Record at every copy site when
// nothing is counting: one atomic load (about a nanosecond). It loops on
// b.N rather than b.Loop, which would keep the unused event alive and so
// measure building it: at a real call site Record is inlined and the event
// is not built when nothing is active.
func BenchmarkRecordInactive(b *testing.B) {
	if Active() {
		b.Fatal("something is active")
	}
	for i := 0; i < b.N; i++ {
		Record(Event{Kind: ToHost, Desc: "backend.ToHost", Bytes: 4096, Blocking: true})
	}
}

// BenchmarkRecordInactiveGuarded is the cost of a copy site that tests
// Active before building the event: the atomic load alone.
func BenchmarkRecordInactiveGuarded(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if Active() {
			Record(Event{Kind: ToHost, Desc: "backend.ToHost", Bytes: 4096, Blocking: true})
		}
	}
}

// BenchmarkRecordMessageInactive is the cost of RecordMessage when no
// traffic counter is active.
func BenchmarkRecordMessageInactive(b *testing.B) {
	for i := 0; i < b.N; i++ {
		RecordMessage("Send", 1, 4096)
	}
}

// BenchmarkRecordCounting is the cost of Record with one counter active,
// call site included.
func BenchmarkRecordCounting(b *testing.B) {
	c := Count()
	defer c.Stop()
	for b.Loop() {
		Record(Event{Kind: ToHost, Desc: "backend.ToHost", Bytes: 4096, Blocking: true})
	}
}

// BenchmarkRecordMessageCounting is the cost of RecordMessage with one
// traffic counter active.
func BenchmarkRecordMessageCounting(b *testing.B) {
	t := CountTraffic()
	defer t.Stop()
	for b.Loop() {
		RecordMessage("Send", 1, 4096)
	}
}

// BenchmarkRangeNoNVTX is the cost of an NVTX range where NVTX is absent.
func BenchmarkRangeNoNVTX(b *testing.B) {
	if NVTXLibrary() != "" {
		b.Skip("NVTX is present")
	}
	for b.Loop() {
		Range("r")()
	}
}

// TestRecordInactiveAllocs checks that an inactive Record allocates
// nothing.
func TestRecordInactiveAllocs(t *testing.T) {
	desc := "backend.ToHost"
	if n := testing.AllocsPerRun(100, func() {
		Record(Event{Kind: ToHost, Desc: desc, Bytes: 4096})
		RecordMessage("Send", 1, 8)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
