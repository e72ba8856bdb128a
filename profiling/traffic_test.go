package profiling

import (
	"fmt"
	"sync"
	"testing"
)

func TestTraffic(t *testing.T) {
	RecordMessage("Send", 1, 1000) // nothing counting: dropped
	tr := CountTraffic()
	if !TrafficActive() {
		t.Fatal("not active")
	}
	if Active() {
		t.Error("a traffic counter makes transfer recording active")
	}
	RecordMessage("Send", 1, 4096)
	RecordMessage("Send", 3, 8)
	RecordMessage("Recv", 1, 4096)
	RecordMessage("Recv", 1, 4096)
	RecordMessage("Allreduce", Collective, 24)
	RecordMessage("Bcast", -7, 100) // any negative peer is a collective
	tr.Stop()
	RecordMessage("Send", 1, 1000)
	if TrafficActive() {
		t.Error("still active")
	}
	tests := []struct {
		what string
		got  MessageStats
		want MessageStats
	}{
		{"total", tr.Total(), MessageStats{6, 12420}},
		{"peer 1", tr.Peer(1), MessageStats{3, 12288}},
		{"peer 3", tr.Peer(3), MessageStats{1, 8}},
		{"peer 2", tr.Peer(2), MessageStats{}},
		{"Send", tr.Op("Send"), MessageStats{2, 4104}},
		{"Recv", tr.Op("Recv"), MessageStats{2, 8192}},
		{"Allreduce", tr.Op("Allreduce"), MessageStats{1, 24}},
		{"Bcast", tr.Op("Bcast"), MessageStats{1, 100}},
		{"Gather", tr.Op("Gather"), MessageStats{}},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.what, tc.got, tc.want)
		}
	}
	if got := fmt.Sprint(tr.Peers(), tr.PointToPoint(), tr.Collectives()); got != "[1 3] [Recv Send] [Allreduce Bcast]" {
		t.Errorf("peers, ops: %s", got)
	}
	want := `MPI: 6 messages, 12420 bytes
  peer 1: 3 messages, 12288 bytes
  peer 3: 1 message, 8 bytes
  Recv: 2 messages, 8192 bytes
  Send: 2 messages, 4104 bytes
  Allreduce (collective): 1 message, 24 bytes
  Bcast (collective): 1 message, 100 bytes
`
	if got := tr.Report(); got != want {
		t.Errorf("Report\n got:\n%s\nwant:\n%s", got, want)
	}
	tr.Reset()
	if tr.Total() != (MessageStats{}) || len(tr.Peers()) != 0 {
		t.Error("Reset left counts")
	}
	if got := tr.Report(); got != "MPI: 0 messages, 0 bytes\n" {
		t.Errorf("empty Report %q", got)
	}
}

func TestTrafficNesting(t *testing.T) {
	outer := CountTraffic()
	RecordMessage("Send", 0, 1)
	inner := CountTraffic()
	outer.Start() // entered twice: counts once
	RecordMessage("Send", 0, 2)
	outer.Stop()
	inner.Stop()
	RecordMessage("Send", 0, 4)
	outer.Stop()
	RecordMessage("Send", 0, 8)
	if got := outer.Total(); got != (MessageStats{3, 7}) {
		t.Errorf("outer %+v", got)
	}
	if got := inner.Total(); got != (MessageStats{1, 2}) {
		t.Errorf("inner %+v", got)
	}
	var zero Traffic
	zero.Start()
	RecordMessage("Allgather", Collective, 5)
	zero.Stop()
	if zero.Op("Allgather") != (MessageStats{1, 5}) {
		t.Error("zero Traffic does not count")
	}
	defer func() {
		if r := recover(); r != "profiling: Stop of a traffic counter that is not counting" {
			t.Errorf("panic %v", r)
		}
	}()
	zero.Stop()
}

func TestTrafficConcurrent(t *testing.T) {
	tr := CountTraffic()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				RecordMessage("Send", g, 2)
				_ = tr.Peer(g)
			}
		}()
	}
	wg.Wait()
	tr.Stop()
	if got := tr.Total(); got != (MessageStats{4000, 8000}) {
		t.Errorf("%+v", got)
	}
	if len(tr.Peers()) != 8 {
		t.Errorf("peers %v", tr.Peers())
	}
}
