package dist_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// gcComm is a communicator whose collectives that carry arrays first
// collect the garbage and let the cleanups run: an array that the caller
// no longer holds, and that the collective itself does not keep reachable
// while MPI works on its device memory, is freed (CUDA) or poisoned (the
// fake device) by its cleanup before MPI reads or writes it (what a
// collection in the middle of a long MPI call does by chance).
type gcComm struct{ mpi.Comm }

// collect runs the garbage collector twice and waits, each time, for the
// cleanup of an object dropped just before it (cleanups run on their own
// goroutine, after the collection).
func collect() {
	for range 2 {
		done := make(chan struct{})
		s := make([]byte, 4096) // not a tiny object: its cleanup runs
		runtime.AddCleanup(&s[0], func(ch chan struct{}) { close(ch) }, done)
		s = nil
		runtime.GC()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	time.Sleep(time.Millisecond)
}

func (c gcComm) Bcast(buf unsafe.Pointer, count int, dt mpi.Datatype, root int) error {
	collect()
	return c.Comm.Bcast(buf, count, dt, root)
}

func (c gcComm) Allreduce(send, recv unsafe.Pointer, count int, dt mpi.Datatype, op mpi.Op) error {
	collect()
	return c.Comm.Allreduce(send, recv, count, dt, op)
}

func (c gcComm) Gatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt mpi.Datatype, root int) error {
	collect()
	return c.Comm.Gatherv(send, scount, recv, counts, displs, dt, root)
}

func (c gcComm) Allgatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt mpi.Datatype) error {
	collect()
	return c.Comm.Allgatherv(send, scount, recv, counts, displs, dt)
}

func (c gcComm) Scatterv(send unsafe.Pointer, counts, displs []int, recv unsafe.Pointer, rcount int, dt mpi.Datatype, root int) error {
	collect()
	return c.Comm.Scatterv(send, counts, displs, recv, rcount, dt, root)
}

func (c gcComm) Alltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt mpi.Datatype) error {
	collect()
	return c.Comm.Alltoallv(send, scounts, sdispls, recv, rcounts, rdispls, dt)
}

// TestDeviceLifetime checks, on the fake device, that an array whose
// last use is a call that hands its device memory to MPI (taken as
// CUDA-aware) stays allocated until MPI is done with it: a block gathered
// (Allgather, Gather), the source of a Transpose, a Redistribute and a
// Sort, the operands of a SumAxis along the split axis, a MatMul, a Get
// and a Concatenate, and the results of those, each dropped by the caller
// and collected (gcComm) just before MPI moves its memory, give the
// values computed on the host. The fake device poisons the memory of an
// allocation nobody refers to, as the CUDA backend frees it; without
// package staging keeping its arrays reachable through MPI calls the
// results arrive poisoned. Shapes that do not divide evenly and fewer rows
// than ranks.
func TestDeviceLifetime(t *testing.T) {
	world := mpitest.World(t)
	setAware(t, aware)
	deviceLifetime(t, world, fakedev.Default)
}

// deviceLifetime runs the lifetime checks on backend b.
func deviceLifetime(t *testing.T, world mpi.Comm, b backend.Backend) {
	c := gcComm{world}
	me, p := c.Rank(), c.Size()
	val := func(i int) float64 { return float64((i*7)%13) + 0.25*float64(i) }
	// newX returns a fresh array on b of shape with val at flat index i,
	// split on axis 0 (nothing else holds it).
	newX := func(shape []int) *dist.Array[float64] {
		x, err := dist.FromFunc(c, shape, func(idx []int) float64 {
			i := 0
			for k, v := range idx {
				i = i*shape[k] + v
			}
			return val(i)
		}, dist.OnBackend(b))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	flat := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = val(i)
		}
		return v
	}
	for _, shape := range [][]int{{7, 3}, {2, 5}, {1, 4}} {
		rows, cols := shape[0], shape[1]
		n := rows * cols
		var e errs
		check := func(name string, got, want []float64) {
			if !slices.Equal(got, want) {
				e.add("%s: %v, want %v", name, got, want)
			}
		}
		// The input dropped after the call.
		all, err := dist.Allgather(newX(shape))
		if err != nil {
			t.Fatal(err)
		}
		check("Allgather", all, flat(n))
		root := p - 1
		g, err := dist.Gather(newX(shape), root)
		if err != nil {
			t.Fatal(err)
		}
		if me == root {
			check("Gather", g, flat(n))
		}
		// Transpose: the source and then the result dropped (the result
		// by gatherAll, which holds it last).
		y, err := dist.Transpose(newX(shape))
		if err != nil {
			t.Fatal(err)
		}
		tr := make([]float64, n)
		for i := range rows {
			for j := range cols {
				tr[j*rows+i] = val(i*cols + j)
			}
		}
		check("Transpose", gatherAll(t, y), tr)
		y, err = dist.Redistribute(newX(shape), dist.NewLayout(shape, 1, p))
		if err != nil {
			t.Fatal(err)
		}
		check("Redistribute to columns", gatherAll(t, y), flat(n))
		s, err := dist.Sort(newX([]int{n}))
		if err != nil {
			t.Fatal(err)
		}
		sorted := flat(n)
		slices.Sort(sorted)
		check("Sort", gatherAll(t, s), sorted)
		// SumAxis along the split axis: an allreduce of a partial sum (the
		// values are dyadic and small, so every order of the additions
		// gives the same bits).
		sa, err := dist.SumAxis(newX(shape), 0)
		if err != nil {
			t.Fatal(err)
		}
		cs := make([]float64, cols)
		for i := range rows {
			for j := range cols {
				cs[j] += val(i*cols + j)
			}
		}
		check("SumAxis 0", gatherAll(t, sa), cs)
		// MatMul of two dropped operands (a row-split a by a split b).
		const k2 = 2
		bm, err := dist.FromFunc(c, []int{cols, k2}, func(idx []int) float64 { return float64(idx[0] - idx[1]) }, dist.OnBackend(b))
		if err != nil {
			t.Fatal(err)
		}
		mm, err := dist.MatMul(newX(shape), bm)
		if err != nil {
			t.Fatal(err)
		}
		prod := make([]float64, rows*k2)
		for i := range rows {
			for j := range k2 {
				for l := range cols {
					prod[i*k2+j] += val(i*cols+l) * float64(l-j)
				}
			}
		}
		check("MatMul", gatherAll(t, mm), prod)
		// Get of the last element (a broadcast from its owner), and
		// Concatenate of two dropped arrays.
		v, err := dist.Get(newX(shape), rows-1, cols-1)
		if err != nil {
			t.Fatal(err)
		}
		check("Get", []float64{v}, []float64{val(n - 1)})
		cc, err := dist.Concatenate(0, newX(shape), newX(shape))
		if err != nil {
			t.Fatal(err)
		}
		check("Concatenate 0", gatherAll(t, cc), append(flat(n), flat(n)...))
		e.check(t, c, fmt.Sprint(shape))
	}
}
