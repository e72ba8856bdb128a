package mpi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestDimsCreate(t *testing.T) {
	for _, c := range []struct {
		n, ndims int
		fixed    []int
		want     []int
	}{
		{1, 1, nil, []int{1}},
		{6, 2, nil, []int{3, 2}},
		{7, 2, nil, []int{7, 1}},
		{12, 2, nil, []int{4, 3}},
		{16, 3, nil, []int{4, 2, 2}},
		{24, 3, nil, []int{4, 3, 2}},
		{36, 2, nil, []int{6, 6}},
		{60, 2, nil, []int{10, 6}},
		{4, 4, nil, []int{2, 2, 1, 1}},
		{12, 2, []int{0, 2}, []int{6, 2}},
		{8, 3, []int{2, 0, 0}, []int{2, 2, 2}},
		{6, 2, []int{3, 2}, []int{3, 2}},
	} {
		got, err := mpi.DimsCreate(c.n, c.ndims, c.fixed)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("DimsCreate(%d, %d, %v) = %v, %v; want %v", c.n, c.ndims, c.fixed, got, err, c.want)
		}
	}
	for n := 1; n <= 100; n++ {
		for nd := 1; nd <= 4; nd++ {
			d, err := mpi.DimsCreate(n, nd, nil)
			p := 1
			for _, v := range d {
				p *= v
			}
			if err != nil || p != n || !slices.IsSortedFunc(d, func(a, b int) int { return b - a }) {
				t.Errorf("DimsCreate(%d, %d) = %v, %v", n, nd, d, err)
			}
		}
	}
	if _, err := mpi.DimsCreate(10, 2, []int{3, 0}); err == nil || !strings.Contains(err.Error(), "do not fill") {
		t.Errorf("DimsCreate(10, 2, [3 0]): %v", err)
	}
	if _, err := mpi.DimsCreate(6, 2, []int{2, 2}); err == nil {
		t.Error("DimsCreate(6, 2, [2 2]): no error")
	}
}

// TestCart makes Cartesian grids of every shape the ranks allow, checks
// coordinates, ranks and shifts against the row-major rule (and, with real
// MPI, against the library's MPI_Cart_coords and MPI_Cart_shift), and
// sends each rank's number one step along every dimension.
func TestCart(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	for nd := 1; nd <= 3; nd++ {
		dims, err := mpi.DimsCreate(p, nd, nil)
		if err != nil {
			t.Fatal(err)
		}
		shapes := [][]int{dims}
		if nd == 2 && p > 1 {
			shapes = append(shapes, []int{1, p - 1}) // leaves the last rank out
		}
		for _, shape := range shapes {
			for _, periodic := range []bool{false, true} {
				periods := make([]bool, nd)
				for i := range periods {
					periods[i] = periodic && i%2 == 0
				}
				name := fmt.Sprintf("%v/%v", shape, periods)
				g, err := mpi.CartCreate(c, shape, periods, false)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				n := 1
				for _, d := range shape {
					n *= d
				}
				if me >= n {
					if g != nil {
						t.Errorf("%s: rank %d of %d got a grid communicator", name, me, n)
					}
					continue
				}
				if g == nil || g.Size() != n || g.Rank() != me {
					t.Fatalf("%s: grid communicator %v", name, g)
				}
				for r := 0; r < n; r++ {
					co := g.Coords(r)
					if g.RankAt(co) != r {
						t.Errorf("%s: RankAt(Coords(%d) = %v) = %d", name, r, co, g.RankAt(co))
					}
				}
				checkCartLibrary(t, g, name)
				// Along every dimension: receive the rank behind, send to
				// the rank ahead.
				co := g.Coords(me)
				for d := range shape {
					src, dst := g.Shift(d, 1)
					ahead, behind := slices.Clone(co), slices.Clone(co)
					ahead[d]++
					behind[d]--
					if want := g.RankAt(ahead); dst != want {
						t.Errorf("%s: Shift(%d) dest %d, want %d", name, d, dst, want)
					}
					got := []int64{-7}
					st, err := mpi.Sendrecv(g, []int64{int64(me)}, dst, 5, got, src, 5)
					if err != nil {
						t.Fatalf("%s: Sendrecv along %d: %v", name, d, err)
					}
					if src == mpi.ProcNull {
						if st.Source != mpi.ProcNull || st.Count != 0 || got[0] != -7 {
							t.Errorf("%s: receive from ProcNull: %+v %v", name, st, got)
						}
					} else if got[0] != int64(src) || st.Source != src {
						t.Errorf("%s: along %d received %v from %d, want rank %d's", name, d, got, st.Source, src)
					}
				}
				g.Free()
			}
		}
	}
}

func TestScan(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	x := []int64{int64(me + 1), int64(10 * (me + 1))}
	got := make([]int64, 2)
	if err := mpi.Scan(c, x, got, mpi.Sum); err != nil {
		t.Fatal(err)
	}
	tri := int64((me + 1) * (me + 2) / 2)
	if !slices.Equal(got, []int64{tri, 10 * tri}) {
		t.Errorf("Scan sum on rank %d: %v", me, got)
	}
	ex := []int64{-1, -1}
	if err := mpi.Exscan(c, x, ex, mpi.Sum); err != nil {
		t.Fatal(err)
	}
	prev := int64(me * (me + 1) / 2)
	if me > 0 && !slices.Equal(ex, []int64{prev, 10 * prev}) {
		t.Errorf("Exscan sum on rank %d: %v", me, ex)
	}
	if me == 0 && !slices.Equal(ex, []int64{-1, -1}) {
		t.Errorf("Exscan on rank 0 wrote %v", ex)
	}
	v, err := mpi.ExscanValue(c, 3.5, mpi.Sum)
	if err != nil || v != 3.5*float64(me) {
		t.Errorf("ExscanValue on rank %d: %v, %v", me, v, err)
	}
	mx := make([]float64, 1)
	if err := mpi.Scan(c, []float64{float64((me * 7) % 5)}, mx, mpi.Max); err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for r := 0; r <= me; r++ {
		want = max(want, float64((r*7)%5))
	}
	if mx[0] != want {
		t.Errorf("Scan max on rank %d: %v, want %v", me, mx[0], want)
	}
}

// TestNonBlockingCollectives checks Iallreduce and Ialltoallv against the
// blocking calls, with work and other messages between start and wait.
func TestNonBlockingCollectives(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	x := []float64{float64(me), float64(-me), 1}
	got := make([]float64, 3)
	q, err := mpi.Iallreduce(c, x, got, mpi.Sum)
	if err != nil {
		t.Fatal(err)
	}
	inplace := []int32{int32(me), 1}
	q2, err := mpi.IallreduceInPlace(c, inplace, mpi.Max)
	if err != nil {
		t.Fatal(err)
	}
	// Rank me sends r+1 elements to rank r.
	sc, rc := make([]int, p), make([]int, p)
	var send []int64
	for r := range p {
		sc[r], rc[r] = r+1, me+1
		for i := range r + 1 {
			send = append(send, int64(1000*me+100*r+i))
		}
	}
	recv := make([]int64, p*(me+1))
	q3, err := mpi.Ialltoallv(c, send, sc, nil, recv, rc, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := make([]float64, 3)
	if err := mpi.Allreduce(c, x, ref, mpi.Sum); err != nil { // another collective in between
		t.Fatal(err)
	}
	if _, err := mpi.Waitall([]mpi.Request{q, q2, q3}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, ref) {
		t.Errorf("Iallreduce %v, Allreduce %v", got, ref)
	}
	if !slices.Equal(inplace, []int32{int32(p - 1), 1}) {
		t.Errorf("IallreduceInPlace max: %v", inplace)
	}
	var want []int64
	for r := range p {
		for i := range me + 1 {
			want = append(want, int64(1000*r+100*me+i))
		}
	}
	if !slices.Equal(recv, want) {
		t.Errorf("Ialltoallv on rank %d: %v, want %v", me, recv, want)
	}
}

// TestProbe sends each rank's next neighbour a message whose length only
// the sender knows; the receiver probes for it, sizes its buffer and
// receives it.
func TestProbe(t *testing.T) {
	c := mpitest.World(t)
	p, me := c.Size(), c.Rank()
	next, prev := (me+1)%p, (me+p-1)%p
	msg := make([]float32, me+2)
	for i := range msg {
		msg[i] = float32(me*10 + i)
	}
	q, err := mpi.Isend(c, msg, next, 9)
	if err != nil {
		t.Fatal(err)
	}
	st, err := mpi.Probe[float32](c, mpi.AnySource, 9)
	if err != nil || st.Source != prev || st.Tag != 9 || st.Count != prev+2 {
		t.Fatalf("Probe: %+v, %v; want %d elements from %d", st, err, prev+2, prev)
	}
	ok, ist, err := c.Iprobe(prev, 9, mpi.Float32)
	if err != nil || !ok || ist != st {
		t.Errorf("Iprobe after Probe: %v %+v %v", ok, ist, err)
	}
	buf := make([]float32, st.Count)
	if _, err := mpi.Recv(c, buf, prev, 9); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Wait(); err != nil {
		t.Fatal(err)
	}
	if buf[0] != float32(prev*10) || buf[len(buf)-1] != float32(prev*10+prev+1) {
		t.Errorf("received %v from %d", buf, prev)
	}
	ok, nst, err := c.Iprobe(mpi.ProcNull, 9, mpi.Float32)
	if err != nil || !ok || nst.Source != mpi.ProcNull || nst.Count != 0 {
		t.Errorf("Iprobe of ProcNull: %v %+v %v", ok, nst, err)
	}
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
}
