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

// TestTrafficNodes splits the point-to-point traffic of rank 1 of a job of
// 5 ranks on 3 nodes (ranks 0-1 on node 0, 2-3 on node 2, 4 on node 4)
// into on-node and off-node totals.
func TestTrafficNodes(t *testing.T) {
	tr := NewTraffic()
	if tr.Nodes() != 0 || tr.OnNode() != (MessageStats{}) || tr.OffNode() != (MessageStats{}) {
		t.Error("a new counter has nodes or node totals")
	}
	tr.Start()
	RecordMessage("Send", 0, 100)     // node 0: on-node
	RecordMessage("Recv", 0, 10)      // on-node
	RecordMessage("Send", 1, 1)       // itself: on-node
	RecordMessage("Send", 2, 1000)    // node 2: off-node
	RecordMessage("Recv", 3, 2000)    // node 2: off-node
	RecordMessage("Isend", 4, 4000)   // node 4: off-node
	RecordMessage("Send", 9, 7)       // outside the table: no node
	RecordMessage("Allreduce", -1, 8) // a collective: neither
	tr.Stop()
	if tr.OnNode() != (MessageStats{}) {
		t.Error("node totals before SetNodes")
	}
	tr.SetNodes(1, []int{0, 0, 2, 2, 4})
	tests := []struct {
		what      string
		got, want MessageStats
	}{
		{"on-node", tr.OnNode(), MessageStats{3, 111}},
		{"off-node", tr.OffNode(), MessageStats{3, 7000}},
		{"no node", tr.Unplaced(), MessageStats{1, 7}},
		{"total", tr.Total(), MessageStats{8, 7126}},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.what, tc.got, tc.want)
		}
	}
	if tr.Nodes() != 3 {
		t.Errorf("Nodes() = %d, want 3", tr.Nodes())
	}
	want := `MPI: 8 messages, 7126 bytes
  peer 0 (node 0): 2 messages, 110 bytes
  peer 1 (node 0): 1 message, 1 bytes
  peer 2 (node 2): 1 message, 1000 bytes
  peer 3 (node 2): 1 message, 2000 bytes
  peer 4 (node 4): 1 message, 4000 bytes
  peer 9 (no node): 1 message, 7 bytes
  on-node: 3 messages, 111 bytes
  off-node: 3 messages, 7000 bytes
  no node: 1 message, 7 bytes
  Isend: 1 message, 4000 bytes
  Recv: 2 messages, 2010 bytes
  Send: 4 messages, 1108 bytes
  Allreduce (collective): 1 message, 8 bytes
`
	if got := tr.Report(); got != want {
		t.Errorf("Report\n got:\n%s\nwant:\n%s", got, want)
	}
	// The same counts seen from rank 4, alone on its node.
	tr.SetNodes(4, []int{0, 0, 2, 2, 4})
	if got := tr.OffNode(); got != (MessageStats{5, 3111}) {
		t.Errorf("from rank 4: off-node %+v, want 5 messages, 3111 bytes", got)
	}
	if got := tr.OnNode(); got != (MessageStats{1, 4000}) {
		t.Errorf("from rank 4: on-node %+v, want 1 message, 4000 bytes", got)
	}
	// Reset keeps the nodes; the caller's slice is copied.
	nodes := []int{0, 1}
	tr.SetNodes(0, nodes)
	nodes[1] = 0
	tr.Reset()
	tr.Start()
	RecordMessage("Send", 1, 5)
	tr.Stop()
	if tr.OffNode() != (MessageStats{1, 5}) || tr.OnNode() != (MessageStats{}) {
		t.Errorf("after Reset: on %+v off %+v", tr.OnNode(), tr.OffNode())
	}
	tr.SetNodes(0, nil)
	if tr.Nodes() != 0 || tr.OffNode() != (MessageStats{}) || tr.Report() != "MPI: 1 message, 5 bytes\n  peer 1: 1 message, 5 bytes\n  Send: 1 message, 5 bytes\n" {
		t.Errorf("SetNodes(nil) kept nodes:\n%s", tr.Report())
	}
	defer func() {
		if r := recover(); r != "profiling: SetNodes: rank 2 is not in a table of 2 nodes" {
			t.Errorf("panic %v", r)
		}
	}()
	tr.SetNodes(2, []int{0, 1})
}
