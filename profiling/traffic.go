package profiling

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
)

// Collective is the peer that RecordMessage takes for a collective
// operation.
const Collective = -1

var (
	// trafficSinks are the active traffic counters; guarded by mu.
	trafficSinks []*Traffic
	// trafficActive is len(trafficSinks), readable without mu.
	trafficActive atomic.Int32
)

// RecordMessage records one MPI operation of this rank: op names it
// ("Send", "Recv", "Allreduce", ...), peer is the other rank of a
// point-to-point operation or Collective (-1) for a collective, bytes is the
// size of this rank's buffer (the message for point-to-point, this rank's
// contribution for a collective). Package mpi calls it for every operation.
//
// When no traffic counter is active it costs one atomic load. Otherwise
// every active traffic counter counts the operation.
func RecordMessage(op string, peer int, bytes int64) {
	if trafficActive.Load() != 0 {
		recordMessage(op, peer, bytes)
	}
}

// TrafficActive reports whether a traffic counter is active.
func TrafficActive() bool { return trafficActive.Load() != 0 }

//go:noinline
func recordMessage(op string, peer int, bytes int64) {
	if peer < 0 {
		peer = Collective
	}
	mu.Lock()
	defer mu.Unlock()
	for _, t := range trafficSinks {
		t.add(op, peer, bytes)
	}
}

// MessageStats counts messages (operations) and their bytes.
type MessageStats struct {
	Messages int64
	Bytes    int64
}

func (s *MessageStats) add(bytes int64) {
	s.Messages++
	s.Bytes += bytes
}

// Traffic counts the MPI operations recorded while it is active: by peer
// for point-to-point operations, by operation for all of them.
//
// Traffic counters nest like Counter: every active one counts every
// operation, a counter started twice counts each once, and it stops when
// Stop has been called as many times as Start. All methods are safe for
// concurrent use.
//
// Given the node of every peer (SetNodes), it also splits the
// point-to-point operations into those with a peer on this rank's node
// (shared memory, usually) and those with a peer on another node (the
// network): OnNode, OffNode, and two more lines in Report.
type Traffic struct {
	depth  int
	total  MessageStats
	byPeer map[int]*MessageStats
	byOp   map[string]*MessageStats
	coll   map[string]bool
	nodes  []int // nodes[r]: the node of rank r; nil if not set
	self   int   // this rank, an index into nodes
}

// NewTraffic returns a traffic counter that is not counting yet.
func NewTraffic() *Traffic {
	return &Traffic{byPeer: map[int]*MessageStats{}, byOp: map[string]*MessageStats{}, coll: map[string]bool{}}
}

// CountTraffic returns a new traffic counter that counts from now until
// Stop:
//
//	t := profiling.CountTraffic()
//	step()
//	t.Stop()
//	fmt.Print(t.Report())
func CountTraffic() *Traffic {
	t := NewTraffic()
	t.Start()
	return t
}

// Start makes t count (again), or deepens it if it is counting already.
func (t *Traffic) Start() {
	mu.Lock()
	defer mu.Unlock()
	t.depth++
	if t.depth == 1 {
		trafficSinks = append(trafficSinks, t)
		trafficActive.Store(int32(len(trafficSinks)))
	}
}

// Stop undoes one Start; t stops counting when every Start is undone. It
// panics if t is not counting.
func (t *Traffic) Stop() {
	mu.Lock()
	defer mu.Unlock()
	if t.depth == 0 {
		panic("profiling: Stop of a traffic counter that is not counting")
	}
	t.depth--
	if t.depth > 0 {
		return
	}
	for i, s := range trafficSinks {
		if s == t {
			copy(trafficSinks[i:], trafficSinks[i+1:])
			trafficSinks[len(trafficSinks)-1] = nil
			trafficSinks = trafficSinks[:len(trafficSinks)-1]
			break
		}
	}
	trafficActive.Store(int32(len(trafficSinks)))
}

// SetNodes gives t the node of every rank: nodes[r] is the node of rank r
// (any integer that is the same for the ranks of one node and differs
// between nodes, e.g. the lowest world rank of the node's shared-memory
// split), and rank is this process's rank. The ranks are those of the peers
// recorded, so the world's ranks for traffic on the world communicator.
// Whoever starts the counter fills nodes, from mpi.Comm.SplitShared and an
// allgather, since package profiling cannot call MPI. t copies nodes; a nil
// nodes forgets them. SetNodes may be called before or after counting, and
// Reset keeps the nodes. It panics if rank is not an index of a non-nil
// nodes.
func (t *Traffic) SetNodes(rank int, nodes []int) {
	if nodes != nil && (rank < 0 || rank >= len(nodes)) {
		panic(fmt.Sprintf("profiling: SetNodes: rank %d is not in a table of %d nodes", rank, len(nodes)))
	}
	mu.Lock()
	defer mu.Unlock()
	if nodes == nil {
		t.nodes, t.self = nil, 0
		return
	}
	t.nodes = append([]int(nil), nodes...)
	t.self = rank
}

// Nodes returns the number of distinct nodes SetNodes gave t, 0 if none.
func (t *Traffic) Nodes() int {
	mu.Lock()
	defer mu.Unlock()
	seen := map[int]bool{}
	for _, n := range t.nodes {
		seen[n] = true
	}
	return len(seen)
}

// OnNode returns the count of the point-to-point operations with a peer on
// this rank's node (this rank itself included), and OffNode those with a
// peer on another node, by the nodes of SetNodes. A peer outside the table
// counts in neither (Unplaced). Without SetNodes all three are zero.
// Collective operations have no peer and count in none.
func (t *Traffic) OnNode() MessageStats { return t.byNode(0) }

// OffNode returns the count of the point-to-point operations with a peer on
// another node than this rank's; see OnNode.
func (t *Traffic) OffNode() MessageStats { return t.byNode(1) }

// Unplaced returns the count of the point-to-point operations with a peer
// that SetNodes gave no node; see OnNode.
func (t *Traffic) Unplaced() MessageStats { return t.byNode(2) }

// byNode sums the peers of one class: 0 on this node, 1 off it, 2 unplaced.
func (t *Traffic) byNode(class int) MessageStats {
	mu.Lock()
	defer mu.Unlock()
	var sum MessageStats
	if t.nodes == nil {
		return sum
	}
	for p, s := range t.byPeer {
		c := 2
		if p >= 0 && p < len(t.nodes) {
			c = 1
			if t.nodes[p] == t.nodes[t.self] {
				c = 0
			}
		}
		if c == class {
			sum.Messages += s.Messages
			sum.Bytes += s.Bytes
		}
	}
	return sum
}

// Reset forgets every count; t goes on counting if it was.
func (t *Traffic) Reset() {
	mu.Lock()
	defer mu.Unlock()
	t.total = MessageStats{}
	t.byPeer = map[int]*MessageStats{}
	t.byOp = map[string]*MessageStats{}
	t.coll = map[string]bool{}
}

// add counts one operation. The caller holds mu.
func (t *Traffic) add(op string, peer int, bytes int64) {
	if t.byPeer == nil {
		*t = Traffic{depth: t.depth, nodes: t.nodes, self: t.self,
			byPeer: map[int]*MessageStats{}, byOp: map[string]*MessageStats{}, coll: map[string]bool{}}
	}
	t.total.add(bytes)
	s := t.byOp[op]
	if s == nil {
		s = &MessageStats{}
		t.byOp[op] = s
	}
	s.add(bytes)
	if peer == Collective {
		t.coll[op] = true
		return
	}
	p := t.byPeer[peer]
	if p == nil {
		p = &MessageStats{}
		t.byPeer[peer] = p
	}
	p.add(bytes)
}

// Total returns the count of every operation.
func (t *Traffic) Total() MessageStats {
	mu.Lock()
	defer mu.Unlock()
	return t.total
}

// Peer returns the count of the point-to-point operations with peer.
func (t *Traffic) Peer(peer int) MessageStats {
	mu.Lock()
	defer mu.Unlock()
	if s := t.byPeer[peer]; s != nil {
		return *s
	}
	return MessageStats{}
}

// Op returns the count of the operations called op.
func (t *Traffic) Op(op string) MessageStats {
	mu.Lock()
	defer mu.Unlock()
	if s := t.byOp[op]; s != nil {
		return *s
	}
	return MessageStats{}
}

// Peers returns the peers of the point-to-point operations, in increasing
// order.
func (t *Traffic) Peers() []int {
	mu.Lock()
	defer mu.Unlock()
	ps := make([]int, 0, len(t.byPeer))
	for p := range t.byPeer {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	return ps
}

// Collectives returns the names of the collective operations, sorted.
func (t *Traffic) Collectives() []string {
	mu.Lock()
	defer mu.Unlock()
	return sortedKeys(t.coll, func(string) bool { return true })
}

// PointToPoint returns the names of the point-to-point operations, sorted.
func (t *Traffic) PointToPoint() []string {
	mu.Lock()
	defer mu.Unlock()
	ops := map[string]bool{}
	for op := range t.byOp {
		ops[op] = true
	}
	return sortedKeys(ops, func(op string) bool { return !t.coll[op] })
}

func sortedKeys(m map[string]bool, keep func(string) bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		if keep(k) {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// Report describes the counts on several lines: the total, then each peer,
// each point-to-point operation and each collective, for example
//
//	MPI: 5 messages, 16408 bytes
//	  peer 1: 4 messages, 16384 bytes
//	  Recv: 2 messages, 8192 bytes
//	  Send: 2 messages, 8192 bytes
//	  Allreduce (collective): 1 message, 24 bytes
//
// Peers come in increasing order, operations in name order. An operation
// used both ways (with a peer and as a collective) is listed with the
// collectives.
//
// With the nodes of SetNodes, each peer line names the peer's node, and
// the peers are followed by the point-to-point totals on this rank's node
// and off it (and of the peers without a node, if any):
//
//	peer 1 (node 0): 4 messages, 16384 bytes
//	peer 2 (node 2): 2 messages, 64 bytes
//	on-node: 4 messages, 16384 bytes
//	off-node: 2 messages, 64 bytes
func (t *Traffic) Report() string {
	peers := t.Peers()
	p2p := t.PointToPoint()
	coll := t.Collectives()
	mu.Lock()
	nodes := t.nodes
	mu.Unlock()
	var sb strings.Builder
	line := func(label string, s MessageStats) {
		fmt.Fprintf(&sb, "%s: %s, %d bytes\n", label, plural(int(s.Messages), "message"), s.Bytes)
	}
	line("MPI", t.Total())
	for _, p := range peers {
		label := fmt.Sprintf("  peer %d", p)
		if nodes != nil {
			if p < len(nodes) {
				label += fmt.Sprintf(" (node %d)", nodes[p])
			} else {
				label += " (no node)"
			}
		}
		line(label, t.Peer(p))
	}
	if nodes != nil {
		line("  on-node", t.OnNode())
		line("  off-node", t.OffNode())
		if u := t.Unplaced(); u.Messages > 0 {
			line("  no node", u)
		}
	}
	for _, op := range p2p {
		line("  "+op, t.Op(op))
	}
	for _, op := range coll {
		line("  "+op+" (collective)", t.Op(op))
	}
	return sb.String()
}
