package mpi_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// val is the test value of element i on rank r.
func val[T ordered](r, i int) T { return T(r*1000 + i + 1) }

func vals[T ordered](r, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = val[T](r, i)
	}
	return s
}

// counts used throughout: zero, one, fewer than the ranks, not dividing.
var counts = []int{0, 1, 2, 3, 5, 7, 1000, 1 << 16}

func TestRankSize(t *testing.T) {
	c := mpitest.World(t)
	if c.Size() < 1 || c.Rank() < 0 || c.Rank() >= c.Size() {
		t.Fatalf("rank %d of %d", c.Rank(), c.Size())
	}
	ranks := make([]int32, c.Size())
	if err := mpi.Allgather(c, []int32{int32(c.Rank())}, ranks); err != nil {
		t.Fatal(err)
	}
	for i, r := range ranks {
		if int(r) != i {
			t.Fatalf("allgathered ranks %v", ranks)
		}
	}
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
}

func TestBcast(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range counts {
		for root := 0; root < c.Size(); root++ {
			buf := vals[float64](c.Rank(), n)
			if err := mpi.Bcast(c, buf, root); err != nil {
				t.Fatal(err)
			}
			if want := vals[float64](root, n); !slices.Equal(buf, want) {
				t.Fatalf("n=%d root=%d: got %v...", n, root, head(buf))
			}
		}
	}
	b := []byte("hello")
	if c.Rank() != 0 {
		b = make([]byte, 5)
	}
	if err := mpi.BcastBytes(c, b, 0); err != nil || string(b) != "hello" {
		t.Fatalf("BcastBytes: %q, %v", b, err)
	}
}

func head[T any](s []T) []T { return s[:min(len(s), 8)] }

// opVals returns rank r's input to a reduction with op: small values for
// products, so that every result is exact in every type and order.
func opVals[T ordered](op mpi.Op, r, n int) []T {
	if op != mpi.Prod {
		return vals[T](r, n)
	}
	s := make([]T, n)
	for i := range s {
		s[i] = T((r+i)%3 + 1)
	}
	return s
}

// reduced returns the expected reduction of opVals over p ranks.
func reduced[T ordered](op mpi.Op, p, n int) []T {
	out := opVals[T](op, 0, n)
	for r := 1; r < p; r++ {
		v := opVals[T](op, r, n)
		for i := range out {
			switch op {
			case mpi.Sum:
				out[i] += v[i]
			case mpi.Prod:
				out[i] *= v[i]
			case mpi.Min:
				out[i] = min(out[i], v[i])
			case mpi.Max:
				out[i] = max(out[i], v[i])
			case mpi.LAnd:
				out[i] = b2n[T](out[i] != 0 && v[i] != 0)
			case mpi.LOr:
				out[i] = b2n[T](out[i] != 0 || v[i] != 0)
			}
		}
	}
	if p == 1 && (op == mpi.LAnd || op == mpi.LOr) {
		for i := range out {
			out[i] = b2n[T](out[i] != 0)
		}
	}
	return out
}

func b2n[T ordered](b bool) T {
	if b {
		return 1
	}
	return 0
}

func testReduce[T ordered](t *testing.T, c mpi.Comm) {
	ops := []mpi.Op{mpi.Sum, mpi.Prod, mpi.Min, mpi.Max}
	if !mpi.TypeOf[T]().IsFloat() {
		ops = append(ops, mpi.LAnd, mpi.LOr)
	}
	sizes := []int{0, 1, 3, 7, 1001}
	if testing.Short() {
		// Oversubscribed MPICH ranks wait a time slice per collective
		// (this test took 26 s of 48 at 3 ranks on 2 cores): an empty
		// and a long buffer, and Reduce to the last rank only.
		sizes = []int{0, 1001}
	}
	for _, op := range ops {
		for _, n := range sizes {
			want := reduced[T](op, c.Size(), n)
			got := make([]T, n)
			if err := mpi.Allreduce(c, opVals[T](op, c.Rank(), n), got, op); err != nil {
				t.Fatal(err)
			}
			checkReduced(t, "Allreduce", op, got, want)

			inplace := opVals[T](op, c.Rank(), n)
			if err := mpi.AllreduceInPlace(c, inplace, op); err != nil {
				t.Fatal(err)
			}
			checkReduced(t, "AllreduceInPlace", op, inplace, want)

			for root := 0; root < c.Size(); root++ {
				if testing.Short() && root != c.Size()-1 {
					continue
				}
				got := make([]T, n)
				if c.Rank() != root {
					got = nil
				}
				if err := mpi.Reduce(c, opVals[T](op, c.Rank(), n), got, op, root); err != nil {
					t.Fatal(err)
				}
				if c.Rank() == root {
					checkReduced(t, "Reduce", op, got, want)
				}
				buf := opVals[T](op, c.Rank(), n)
				if err := mpi.ReduceInPlace(c, buf, op, root); err != nil {
					t.Fatal(err)
				}
				if c.Rank() == root {
					checkReduced(t, "ReduceInPlace", op, buf, want)
				}
			}
		}
	}
	v, err := mpi.AllreduceValue(c, T(c.Rank()+1), mpi.Sum)
	if err != nil || v != T(c.Size()*(c.Size()+1)/2) {
		t.Fatalf("AllreduceValue = %v, %v", v, err)
	}
}

func checkReduced[T ordered](t *testing.T, call string, op mpi.Op, got, want []T) {
	t.Helper()
	for i := range want {
		g, w := got[i], want[i]
		if op == mpi.LAnd || op == mpi.LOr {
			if (g != 0) != (w != 0) {
				t.Fatalf("%s %v [%d]: got %v, want truth of %v", call, op, i, g, w)
			}
			continue
		}
		if g != w {
			t.Fatalf("%s %v %T [%d]: got %v, want %v", call, op, g, i, g, w)
		}
	}
}

func TestReduce(t *testing.T) {
	c := mpitest.World(t)
	t.Run("float32", func(t *testing.T) { testReduce[float32](t, c) })
	t.Run("float64", func(t *testing.T) { testReduce[float64](t, c) })
	t.Run("int32", func(t *testing.T) { testReduce[int32](t, c) })
	t.Run("int64", func(t *testing.T) { testReduce[int64](t, c) })
	t.Run("uint32", func(t *testing.T) { testReduce[uint32](t, c) })
	t.Run("uint64", func(t *testing.T) { testReduce[uint64](t, c) })
	// Values past 127 or 32767 wrap, in Go's reference and in MPI alike.
	t.Run("int8", func(t *testing.T) { testReduce[int8](t, c) })
	t.Run("int16", func(t *testing.T) { testReduce[int16](t, c) })
	t.Run("uint8", func(t *testing.T) { testReduce[uint8](t, c) })
	t.Run("uint16", func(t *testing.T) { testReduce[uint16](t, c) })
}

func TestAllTrue(t *testing.T) {
	c := mpitest.World(t)
	all, err := mpi.AllTrue(c, true)
	if err != nil || !all {
		t.Fatalf("AllTrue(true) = %v, %v", all, err)
	}
	all, err = mpi.AllTrue(c, c.Rank() != c.Size()-1)
	if err != nil || all {
		t.Fatalf("AllTrue(false on the last rank) = %v, %v", all, err)
	}
}

func TestLogicalOpOnFloatPanics(t *testing.T) {
	c := mpitest.World(t)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "mpi: Allreduce") {
			t.Fatalf("panic %v", r)
		}
	}()
	mpi.AllreduceInPlace(c, []float64{1}, mpi.LAnd)
}

func TestGather(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, n := range counts {
		want := make([]int64, 0, p*n)
		for r := 0; r < p; r++ {
			want = append(want, vals[int64](r, n)...)
		}
		for root := 0; root < p; root++ {
			var recv []int64
			if c.Rank() == root {
				recv = make([]int64, p*n)
			}
			if err := mpi.Gather(c, vals[int64](c.Rank(), n), recv, root); err != nil {
				t.Fatal(err)
			}
			if c.Rank() == root && !slices.Equal(recv, want) {
				t.Fatalf("Gather n=%d root=%d: %v", n, root, head(recv))
			}
		}
		all := make([]int64, p*n)
		if err := mpi.Allgather(c, vals[int64](c.Rank(), n), all); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(all, want) {
			t.Fatalf("Allgather n=%d: %v", n, head(all))
		}
	}
}

// uneven returns per-rank counts of n elements, the first n%p one larger,
// and the packed displacements.
func uneven(n, p int) (cnt, displs []int) {
	cnt, displs = make([]int, p), make([]int, p)
	off := 0
	for r := range cnt {
		cnt[r] = n / p
		if r < n%p {
			cnt[r]++
		}
		displs[r] = off
		off += cnt[r]
	}
	return cnt, displs
}

func TestGatherv(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	for _, n := range counts {
		cnt, displs := uneven(n, p)
		want := make([]float32, 0, n)
		for r := 0; r < p; r++ {
			want = append(want, vals[float32](r, cnt[r])...)
		}
		for root := 0; root < p; root++ {
			var recv []float32
			if me == root {
				recv = make([]float32, n)
			}
			if err := mpi.Gatherv(c, vals[float32](me, cnt[me]), recv, cnt, nil, root); err != nil {
				t.Fatal(err)
			}
			if me == root && !slices.Equal(recv, want) {
				t.Fatalf("Gatherv n=%d root=%d: %v", n, root, head(recv))
			}
		}
		all := make([]float32, n)
		if err := mpi.Allgatherv(c, vals[float32](me, cnt[me]), all, cnt, displs); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(all, want) {
			t.Fatalf("Allgatherv n=%d: %v", n, head(all))
		}
	}
	// Reversed placement: rank r's block at the end for r = 0.
	cnt, _ := uneven(11, p)
	displs := make([]int, p)
	off := 11
	for r := 0; r < p; r++ {
		off -= cnt[r]
		displs[r] = off
	}
	all := make([]float32, 11)
	if err := mpi.Allgatherv(c, vals[float32](me, cnt[me]), all, cnt, displs); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < p; r++ {
		if got := all[displs[r] : displs[r]+cnt[r]]; !slices.Equal(got, vals[float32](r, cnt[r])) {
			t.Fatalf("Allgatherv with displacements: block %d = %v", r, got)
		}
	}
}

func TestScatter(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	for _, n := range counts {
		for root := 0; root < p; root++ {
			var send []uint32
			if me == root {
				for r := 0; r < p; r++ {
					send = append(send, vals[uint32](r, n)...)
				}
			}
			recv := make([]uint32, n)
			if err := mpi.Scatter(c, send, recv, root); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(recv, vals[uint32](me, n)) {
				t.Fatalf("Scatter n=%d root=%d: %v", n, root, head(recv))
			}
			cnt, _ := uneven(n, p)
			send = nil
			if me == root {
				for r := 0; r < p; r++ {
					send = append(send, vals[uint32](r, cnt[r])...)
				}
			}
			recv = make([]uint32, cnt[me])
			if err := mpi.Scatterv(c, send, cnt, nil, recv, root); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(recv, vals[uint32](me, cnt[me])) {
				t.Fatalf("Scatterv n=%d root=%d: %v", n, root, head(recv))
			}
		}
	}
}

func TestAlltoall(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	for _, n := range []int{0, 1, 3, 1000} {
		send := make([]float64, 0, p*n)
		for r := 0; r < p; r++ {
			// Block for rank r: tagged with sender and receiver.
			for i := 0; i < n; i++ {
				send = append(send, float64(me*10000+r*100+i))
			}
		}
		recv := make([]float64, p*n)
		if err := mpi.Alltoall(c, send, recv); err != nil {
			t.Fatal(err)
		}
		for r := 0; r < p; r++ {
			for i := 0; i < n; i++ {
				if got, want := recv[r*n+i], float64(r*10000+me*100+i); got != want {
					t.Fatalf("Alltoall n=%d: recv[%d] = %v, want %v", n, r*n+i, got, want)
				}
			}
		}
	}
	// Alltoallv: rank s sends (s+d)%3 elements to rank d, some of them zero.
	count := func(s, d int) int { return (s + d) % 3 }
	var send []int32
	scounts := make([]int, p)
	for d := 0; d < p; d++ {
		scounts[d] = count(me, d)
		for i := 0; i < scounts[d]; i++ {
			send = append(send, int32(me*100+d*10+i))
		}
	}
	rcounts := make([]int, p)
	total := 0
	for s := 0; s < p; s++ {
		rcounts[s] = count(s, me)
		total += rcounts[s]
	}
	recv := make([]int32, total)
	if err := mpi.Alltoallv(c, send, scounts, nil, recv, rcounts, nil); err != nil {
		t.Fatal(err)
	}
	k := 0
	for s := 0; s < p; s++ {
		for i := 0; i < rcounts[s]; i++ {
			if want := int32(s*100 + me*10 + i); recv[k] != want {
				t.Fatalf("Alltoallv: recv[%d] = %d, want %d", k, recv[k], want)
			}
			k++
		}
	}
}

func TestPointToPoint(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	next, prev := (me+1)%p, (me+p-1)%p
	for _, n := range counts {
		// Ring with Sendrecv.
		recv := make([]float64, n)
		st, err := mpi.Sendrecv(c, vals[float64](me, n), next, 7, recv, prev, 7)
		if err != nil {
			t.Fatal(err)
		}
		if st.Source != prev || st.Tag != 7 || st.Count != n || !slices.Equal(recv, vals[float64](prev, n)) {
			t.Fatalf("Sendrecv n=%d: status %+v, %v", n, st, head(recv))
		}
		// Ring with Isend/Irecv and Waitall.
		recv = make([]float64, n)
		rr, err := mpi.Irecv(c, recv, prev, 8)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := mpi.Isend(c, vals[float64](me, n), next, 8)
		if err != nil {
			t.Fatal(err)
		}
		sts, err := mpi.Waitall([]mpi.Request{rr, sr})
		if err != nil {
			t.Fatal(err)
		}
		if sts[0].Count != n || !slices.Equal(recv, vals[float64](prev, n)) {
			t.Fatalf("Irecv n=%d: status %+v, %v", n, sts[0], head(recv))
		}
		if done, _, _ := rr.Test(); !done {
			t.Fatal("Test after Wait reports not done")
		}
	}
	// Blocking Send/Recv: even ranks send first, odd ranks receive first;
	// with one rank, the message to itself goes out with Isend (a blocking
	// send to oneself may wait for the receive: MPICH's does).
	buf := make([]int64, 3)
	if p == 1 {
		q, err := mpi.Isend(c, vals[int64](0, 3), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mpi.Recv(c, buf, 0, 1); err != nil || !slices.Equal(buf, vals[int64](0, 3)) {
			t.Fatalf("Recv from self: %v, %v", buf, err)
		}
		if _, err := q.Wait(); err != nil {
			t.Fatal(err)
		}
		return
	}
	if me%2 == 0 && next != me {
		if err := mpi.Send(c, vals[int64](me, 3), next, 2); err != nil {
			t.Fatal(err)
		}
		if _, err := mpi.Recv(c, buf, prev, 2); err != nil {
			t.Fatal(err)
		}
	} else {
		if _, err := mpi.Recv(c, buf, prev, 2); err != nil {
			t.Fatal(err)
		}
		if err := mpi.Send(c, vals[int64](me, 3), next, 2); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(buf, vals[int64](prev, 3)) {
		t.Fatalf("Send/Recv: %v", buf)
	}
	// AnySource receive at rank 0 of one message from every other rank.
	if me == 0 {
		seen := map[int]bool{}
		for i := 1; i < p; i++ {
			b := make([]int64, 1)
			st, err := mpi.Recv(c, b, mpi.AnySource, mpi.AnyTag)
			if err != nil {
				t.Fatal(err)
			}
			if b[0] != int64(st.Source) || st.Tag != 30+st.Source {
				t.Fatalf("AnySource: %v with status %+v", b, st)
			}
			seen[st.Source] = true
		}
		if len(seen) != p-1 {
			t.Fatalf("AnySource saw %v", seen)
		}
	} else if err := mpi.Send(c, []int64{int64(me)}, 0, 30+me); err != nil {
		t.Fatal(err)
	}
}

func TestSplit(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	// Even and odd ranks, ordered in reverse by key.
	sub, err := c.Split(me%2, -me)
	if err != nil {
		t.Fatal(err)
	}
	want := (p - me%2 + 1) / 2
	if sub.Size() != want {
		t.Fatalf("split size %d, want %d", sub.Size(), want)
	}
	members := make([]int32, sub.Size())
	if err := mpi.Allgather(sub, []int32{int32(me)}, members); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(members); i++ {
		if members[i] > members[i-1] || members[i]%2 != int32(me%2) {
			t.Fatalf("split members %v", members)
		}
	}
	if err := sub.Free(); err != nil {
		t.Fatal(err)
	}
	// Undefined leaves the last rank out.
	color := 0
	if me == p-1 {
		color = mpi.Undefined
	}
	sub, err = c.Split(color, 0)
	if err != nil {
		t.Fatal(err)
	}
	if me == p-1 {
		if sub != nil {
			t.Fatalf("Undefined color gave a communicator of size %d", sub.Size())
		}
	} else if sub == nil || sub.Size() != p-1 {
		t.Fatalf("split without the last rank: %v", sub)
	} else {
		sub.Free()
	}
	node, err := c.SplitShared()
	if err != nil {
		t.Fatal(err)
	}
	// The ranks on this host (by host name: one, or several simulated
	// hosts), in world order.
	host, _ := os.Hostname()
	hosts, err := mpi.AllgatherBytes(c, []byte(host))
	if err != nil {
		t.Fatal(err)
	}
	wantRank, wantSize := 0, 0
	for r, h := range hosts {
		if string(h) == host {
			if r < me {
				wantRank++
			}
			wantSize++
		}
	}
	if node.Size() != wantSize || node.Rank() != wantRank {
		t.Fatalf("shared split: rank %d of %d, want %d of %d (the ranks on %s)", node.Rank(), node.Size(), wantRank, wantSize, host)
	}
	node.Free()
	if r, s := mpi.NodeRank(); r != wantRank || s != wantSize {
		t.Fatalf("NodeRank = %d, %d, want %d, %d", r, s, wantRank, wantSize)
	}
}

func TestWtime(t *testing.T) {
	c := mpitest.World(t)
	a := c.Wtime()
	b := c.Wtime()
	if b < a {
		t.Fatalf("Wtime went back: %v then %v", a, b)
	}
}

func TestLibraryInfo(t *testing.T) {
	info := mpi.LibraryInfo()
	if info.Implementation == "" || info.Version == "" || info.ThreadLevel == "" {
		t.Fatalf("incomplete info %+v", info)
	}
	switch info.ThreadLevel {
	case "single", "funneled", "serialized", "multiple":
	default:
		if mpi.Built {
			t.Errorf("thread level %q: want single, funneled, serialized or multiple", info.ThreadLevel)
		}
	}
}

func TestGatherBytes(t *testing.T) {
	c := mpitest.World(t)
	mine := []byte(strings.Repeat("x", c.Rank())) // rank 0 sends nothing
	all, err := mpi.AllgatherBytes(c, mine)
	if err != nil || len(all) != c.Size() {
		t.Fatalf("AllgatherBytes: %d parts, %v", len(all), err)
	}
	for r, b := range all {
		if string(b) != strings.Repeat("x", r) {
			t.Fatalf("AllgatherBytes: part %d = %q", r, b)
		}
	}
	root := c.Size() - 1
	g, err := mpi.GatherBytes(c, mine, root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rank() == root {
		for r, b := range g {
			if string(b) != strings.Repeat("x", r) {
				t.Fatalf("GatherBytes: part %d = %q", r, b)
			}
		}
	} else if g != nil {
		t.Fatalf("GatherBytes off the root: %v", g)
	}
}

// ordered is the set of real element types: mpi.Number less the complex
// types, which have no order.
type ordered interface {
	~float32 | ~float64 | ~int32 | ~int64 | ~uint32 | ~uint64 | ~int8 | ~int16 | ~uint8 | ~uint16
}
