//go:build mpi

package mpi_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/launch"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// nodeOf returns this rank's rank and size in the shared-memory split of
// c, and the node of every rank of c (the lowest rank of c on that node).
// It is collective.
func nodeOf(t *testing.T, c mpi.Comm) (rank, size int, nodes []int) {
	t.Helper()
	node, err := c.SplitShared()
	if err != nil {
		t.Fatalf("SplitShared: %v", err)
	}
	rank, size = node.Rank(), node.Size()
	// The node's name: the lowest rank of c in it.
	lowest, err := mpi.AllreduceValue(node, int64(c.Rank()), mpi.Min)
	if err != nil {
		t.Fatalf("Allreduce on the node: %v", err)
	}
	if err := node.Free(); err != nil {
		t.Fatalf("Free: %v", err)
	}
	all := make([]int64, c.Size())
	if err := mpi.Allgather(c, []int64{lowest}, all); err != nil {
		t.Fatalf("Allgather: %v", err)
	}
	nodes = make([]int, len(all))
	for i, v := range all {
		nodes[i] = int(v)
	}
	return rank, size, nodes
}

// hostnames gathers every rank's host name.
func hostnames(t *testing.T, c mpi.Comm) []string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatalf("Hostname: %v", err)
	}
	all, err := mpi.AllgatherBytes(c, []byte(host))
	if err != nil {
		t.Fatalf("AllgatherBytes: %v", err)
	}
	names := make([]string, len(all))
	for i, b := range all {
		names[i] = string(b)
	}
	return names
}

// TestLocalRankMatchesSharedSplit checks that the local rank and size that
// the rest of xpmpi uses (mpi.NodeRank, and the launcher's variables read
// by package launch, which bind the GPU before MPI starts) agree with MPI's
// own shared-memory split on every host, and that the split groups the
// ranks by host name: one host, one node. On one host at N ranks the local
// rank is the rank; across two hosts (scripts/hosts.sh) it starts again at
// 0 on the second one.
func TestLocalRankMatchesSharedSplit(t *testing.T) {
	c := mpitest.World(t)
	rank, size, nodes := nodeOf(t, c)
	hosts := hostnames(t, c)
	t.Logf("rank %d on %s: node rank %d of %d, nodes %v", c.Rank(), hosts[c.Rank()], rank, size, nodes)

	var bad []string
	if r, s := mpi.NodeRank(); r != rank || s != size {
		bad = append(bad, fmt.Sprintf("mpi.NodeRank() = %d, %d", r, s))
	}
	if w := mpi.NodeRankWarning(); w != "" {
		bad = append(bad, "mpi.NodeRankWarning: "+w)
	}
	d := launch.Detect()
	if d.Launched {
		if d.LocalRank != rank || d.LocalSize != size {
			bad = append(bad, fmt.Sprintf("the launcher's local rank and size (launch.Detect) = %d, %d", d.LocalRank, d.LocalSize))
		}
		// The functions the CUDA backend and backend.Threads read agree too.
		if r, s := launch.LocalRank(), launch.LocalSize(); r != rank || s != size {
			bad = append(bad, fmt.Sprintf("launch.LocalRank(), launch.LocalSize() = %d, %d", r, s))
		}
	}
	// The ranks of one node: local ranks 0..size-1 in world order, all
	// on one host; ranks on different nodes are on different hosts.
	local := 0
	for r := range c.Size() {
		if nodes[r] != nodes[c.Rank()] {
			if hosts[r] == hosts[c.Rank()] {
				bad = append(bad, fmt.Sprintf("rank %d is on host %s too but on another node (%d)", r, hosts[r], nodes[r]))
			}
			continue
		}
		if hosts[r] != hosts[c.Rank()] {
			bad = append(bad, fmt.Sprintf("rank %d shares the node but is on host %s", r, hosts[r]))
		}
		if r == c.Rank() && local != rank {
			bad = append(bad, fmt.Sprintf("node rank %d, but %d ranks of the node come first", rank, local))
		}
		local++
	}
	if local != size {
		bad = append(bad, fmt.Sprintf("%d ranks share node %d, the split says %d", local, nodes[c.Rank()], size))
	}
	mpitest.Check(t, c, len(bad) == 0, "node rank %d of %d (host %s): %s", rank, size, hosts[c.Rank()], strings.Join(bad, "; "))
}

// TestDeviceBindingPerHost checks that each rank picks its GPU by its rank
// on its own host (local rank % devices), not by its global rank: with 3 or
// 4 devices per host the two differ on the second host of a 2 x 2 job. It
// checks cuda.ChooseDevice, which the CUDA backend binds with, for 1 to 4
// devices and, where XPMPI_FAKECUDA names the fake CUDA driver
// (backend/cuda/testdata/fakecuda, which scripts/test.sh builds for the
// multi-host steps), the device the backend really opens with
// FAKECUDA_DEVICES=3.
func TestDeviceBindingPerHost(t *testing.T) {
	c := mpitest.World(t)
	rank, _, _ := nodeOf(t, c)
	t.Setenv("XPMPI_DEVICE", "") // blank counts as unset: binding by local rank
	var bad []string
	for devices := 1; devices <= 4; devices++ {
		got, err := cuda.ChooseDevice(devices)
		if want := rank % devices; err != nil || got != want {
			bad = append(bad, fmt.Sprintf("ChooseDevice(%d) = %d, %v; want local rank %d %% %d = %d (global rank %d %% %d = %d)",
				devices, got, err, rank, devices, want, c.Rank(), devices, c.Rank()%devices))
		}
	}
	mpitest.Check(t, c, len(bad) == 0, "%s", strings.Join(bad, "; "))

	lib := os.Getenv("XPMPI_FAKECUDA")
	if lib == "" {
		t.Log("XPMPI_FAKECUDA is not set: the device opened through the fake CUDA driver is not checked")
		return
	}
	// The driver is loaded once per process: this test binary loads no
	// other before.
	t.Setenv("XPMPI_LIBCUDA", lib)
	t.Setenv("XPMPI_NVRTC", lib)
	t.Setenv("FAKECUDA_DEVICES", "3")
	msg := ""
	b, err := cuda.Default()
	switch {
	case err != nil:
		msg = fmt.Sprintf("cuda.Default with the fake driver %s: %v", lib, err)
	case b.Device().ID != rank%3:
		msg = fmt.Sprintf("the backend opened device %d of 3, want local rank %d %% 3 = %d (global rank %d)", b.Device().ID, rank, rank%3, c.Rank())
	case !strings.Contains(b.Describe(), fmt.Sprintf("device = local rank %d %% 3", rank)):
		msg = "Describe does not say the device comes from the local rank: " + b.Describe()
	default:
		t.Logf("rank %d (node rank %d): %s", c.Rank(), rank, b.Describe())
	}
	mpitest.Check(t, c, msg == "", "%s", msg)
}

// TestTrafficByNode sends one message of a distinct size from every rank to
// every other rank and checks the split of profiling.Traffic with the nodes
// of the shared-memory split: on-node totals from the ranks of this node,
// off-node from the others. Across two hosts both are non-zero, and the
// multi-host integration test reads the lines it logs.
func TestTrafficByNode(t *testing.T) {
	c := mpitest.World(t)
	_, size, nodes := nodeOf(t, c)
	me, n := c.Rank(), c.Size()
	tr := profiling.CountTraffic()
	tr.SetNodes(me, nodes)
	// Rank r sends 8*(r+1) bytes (r+1 int64s) to every other rank.
	send := make([]int64, me+1)
	for i := range send {
		send[i] = int64(me*100 + i)
	}
	var reqs []mpi.Request
	recvs := make([][]int64, n)
	for p := range n {
		if p == me {
			continue
		}
		recvs[p] = make([]int64, p+1)
		r, err := mpi.Irecv(c, recvs[p], p, 7)
		if err != nil {
			t.Fatalf("Irecv: %v", err)
		}
		reqs = append(reqs, r)
	}
	for p := range n {
		if p == me {
			continue
		}
		r, err := mpi.Isend(c, send, p, 7)
		if err != nil {
			t.Fatalf("Isend: %v", err)
		}
		reqs = append(reqs, r)
	}
	if _, err := mpi.Waitall(reqs); err != nil {
		t.Fatalf("Waitall: %v", err)
	}
	tr.Stop()
	var want [2]profiling.MessageStats // on, off
	for p := range n {
		if p == me {
			continue
		}
		k := 0
		if nodes[p] != nodes[me] {
			k = 1
		}
		// One send of ours, one receive of theirs.
		want[k].Messages += 2
		want[k].Bytes += int64(8*(me+1) + 8*(p+1))
	}
	on, off := tr.OnNode(), tr.OffNode()
	ok := on == want[0] && off == want[1] && tr.Unplaced() == (profiling.MessageStats{})
	for p := range n {
		if p != me && recvs[p][p] != int64(p*100+p) {
			ok = false
		}
	}
	if off.Messages > 0 && size == n {
		ok = false // one node cannot have off-node traffic
	}
	t.Logf("rank %d: %d nodes: on-node %d messages %d bytes, off-node %d messages %d bytes",
		me, tr.Nodes(), on.Messages, on.Bytes, off.Messages, off.Bytes)
	mpitest.Check(t, c, ok, "on-node %+v, off-node %+v, unplaced %+v; want %+v, %+v (nodes %v)\n%s",
		on, off, tr.Unplaced(), want[0], want[1], nodes, tr.Report())
}
