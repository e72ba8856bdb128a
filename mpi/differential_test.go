package mpi_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/mpi"
)

// script runs one fixed sequence of calls on a one-rank communicator and
// returns a transcript of every result and error, to compare the stand-in
// with real MPI.
func script(c mpi.Comm) []string {
	var out []string
	log := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	x := []float64{1.5, -2, 3, 0}
	r := make([]float64, len(x))
	for _, op := range []mpi.Op{mpi.Sum, mpi.Prod, mpi.Min, mpi.Max} {
		err := mpi.Allreduce(c, x, r, op)
		log("Allreduce %v: %v %v", op, r, err == nil)
	}
	ints := []int64{0, 3, -1}
	for _, op := range []mpi.Op{mpi.LAnd, mpi.LOr} {
		got := slices.Clone(ints)
		err := mpi.AllreduceInPlace(c, got, op)
		// MPI gives logical results as 0/1; compare truth values.
		for i := range got {
			got[i] = map[bool]int64{false: 0, true: 1}[got[i] != 0]
		}
		log("AllreduceInPlace %v: %v %v", op, got, err == nil)
	}
	rr := make([]float64, len(x))
	log("Reduce: %v %v", mpi.Reduce(c, x, rr, mpi.Max, 0) == nil, rr)
	b := []uint32{7, 8}
	log("Bcast: %v %v", mpi.Bcast(c, b, 0) == nil, b)
	g := make([]uint32, 2)
	log("Gather: %v %v", mpi.Gather(c, b, g, 0) == nil, g)
	gv := make([]uint32, 5)
	log("Gatherv: %v %v", mpi.Gatherv(c, b, gv, []int{2}, []int{3}, 0) == nil, gv)
	ag := make([]uint32, 2)
	log("Allgather: %v %v", mpi.Allgather(c, b, ag) == nil, ag)
	sc := make([]uint32, 2)
	log("Scatter: %v %v", mpi.Scatter(c, b, sc, 0) == nil, sc)
	sv := make([]uint32, 1)
	log("Scatterv: %v %v", mpi.Scatterv(c, b, []int{1}, []int{1}, sv, 0) == nil, sv)
	aa := make([]float32, 3)
	log("Alltoall: %v %v", mpi.Alltoall(c, []float32{1, 2, 3}, aa) == nil, aa)
	av := make([]float32, 4)
	log("Alltoallv: %v %v", mpi.Alltoallv(c, []float32{1, 2, 3}, []int{2}, []int{1}, av, []int{2}, []int{2}) == nil, av)
	z := make([]float64, 0)
	log("zero-length Allreduce: %v", mpi.Allreduce(c, z, z, mpi.Sum) == nil)
	log("zero-length Gather: %v", mpi.Gather(c, z, z, 0) == nil)
	sr := make([]int32, 3)
	st, err := mpi.Sendrecv(c, []int32{4, 5, 6}, 0, 3, sr, 0, 3)
	log("Sendrecv: %v %+v %v", err == nil, st, sr)
	ir := make([]int32, 2)
	rq, err1 := mpi.Irecv(c, ir, 0, 11)
	sq, err2 := mpi.Isend(c, []int32{9, 10}, 0, 11)
	sts, err3 := mpi.Waitall([]mpi.Request{rq, sq})
	log("Irecv/Isend: %v %v %v %+v %v", err1 == nil, err2 == nil, err3 == nil, sts[0], ir)
	scan := make([]float64, len(x))
	log("Scan: %v %v", mpi.Scan(c, x, scan, mpi.Sum) == nil, scan)
	ex := []float64{7, 7, 7, 7}
	log("Exscan: %v %v", mpi.Exscan(c, x, ex, mpi.Max) == nil, ex)
	v, err := mpi.ExscanValue(c, int64(5), mpi.Sum)
	log("ExscanValue: %v %v", err == nil, v)
	ia := make([]float64, len(x))
	q, err := mpi.Iallreduce(c, x, ia, mpi.Min)
	if err == nil {
		_, err = q.Wait()
	}
	log("Iallreduce: %v %v", err == nil, ia)
	iv := make([]float32, 4)
	q, err = mpi.Ialltoallv(c, []float32{1, 2, 3}, []int{2}, []int{1}, iv, []int{2}, []int{2})
	if err == nil {
		_, err = q.Wait()
	}
	log("Ialltoallv: %v %v", err == nil, iv)
	ok, pst, err := c.Iprobe(0, 21, mpi.Int32)
	log("Iprobe with nothing sent: %v %v %+v", err == nil, ok, pst)
	// A blocking send to oneself may wait for the receive (MPICH's does):
	// the message goes out with Isend.
	pq, err := mpi.Isend(c, []int32{1, 2, 3}, 0, 21)
	pst, perr := mpi.Probe[int32](c, 0, 21)
	ok, ist, ierr := c.Iprobe(mpi.AnySource, mpi.AnyTag, mpi.Int32)
	pr := make([]int32, pst.Count)
	_, rerr := mpi.Recv(c, pr, 0, 21)
	if err == nil {
		_, err = pq.Wait()
	}
	log("Probe: %v %v %+v %v %+v %v %v", err == nil, perr == nil, pst, ok && ierr == nil, ist, rerr == nil, pr)
	ok, nst, err := c.Iprobe(mpi.ProcNull, 0, mpi.Int32)
	log("Iprobe ProcNull: %v %v %+v", err == nil, ok, nst)
	nr := []int32{8}
	nst, err = mpi.Sendrecv(c, []int32{1}, mpi.ProcNull, 4, nr, mpi.ProcNull, 4)
	log("Sendrecv ProcNull: %v %+v %v", err == nil, nst, nr)
	nst, err = mpi.Recv(c, nr, mpi.ProcNull, 4)
	log("Recv ProcNull: %v %+v %v", err == nil, nst, nr)
	// MPICH 4.0.2's MPI_Wait and MPI_Test give a receive from
	// MPI_PROC_NULL a status of zeros; the binding gives the standard's.
	if nq, qerr := mpi.Irecv(c, nr, mpi.ProcNull, 4); qerr == nil {
		nst, err = nq.Wait()
	} else {
		err = qerr
	}
	log("Irecv ProcNull, Wait: %v %+v %v", err == nil, nst, nr)
	if nq, qerr := mpi.Irecv(c, nr, mpi.ProcNull, 4); qerr == nil {
		var done bool
		for !done && qerr == nil {
			done, nst, qerr = nq.Test()
		}
		err = qerr
	} else {
		err = qerr
	}
	log("Irecv ProcNull, Test: %v %+v %v", err == nil, nst, nr)
	g1, err := mpi.CartCreate(c, []int{1, 1}, []bool{true, false}, false)
	if err == nil {
		s0, d0 := g1.Shift(0, 1)
		s1, d1 := g1.Shift(1, 1)
		log("CartCreate: %d %v %v %d %d %d %d", g1.Size(), g1.Coords(0), g1.Dims(), s0, d0, s1, d1)
		g1.Free()
	} else {
		log("CartCreate: %v", err)
	}
	sub, serr := c.Split(0, 0)
	log("Split: %v %d %d", serr == nil, sub.Rank(), sub.Size())
	sub.Free()
	cx := []complex128{1 + 2i, -3.5i, 4}
	cr := make([]complex128, len(cx))
	for _, op := range []mpi.Op{mpi.Sum, mpi.Prod} {
		err := mpi.Allreduce(c, cx, cr, op)
		log("Allreduce complex128 %v: %v %v", op, cr, err == nil)
	}
	c64 := []complex64{1 - 1i, 2.5}
	c64r := make([]complex64, 2)
	log("Allgather complex64: %v %v", mpi.Allgather(c, c64, c64r) == nil, c64r)
	cv, err := mpi.AllreduceValue(c, complex128(3-4i), mpi.Sum)
	log("AllreduceValue complex128: %v %v", err == nil, cv)
	cv64, err := mpi.AllreduceValue(c, complex64(1+0.5i), mpi.Prod)
	log("AllreduceValue complex64: %v %v", err == nil, cv64)
	log("Barrier: %v", c.Barrier() == nil)
	return out
}

// TestDifferential runs the script on the stand-in and on a one-rank
// communicator of the world's library (MPI_COMM_SELF under -tags mpi), on
// every rank, and compares the transcripts.
func TestDifferential(t *testing.T) {
	serial := script(mpi.NewSerial())
	self := script(mpi.Self())
	if len(serial) != len(self) {
		t.Fatalf("transcripts of %d and %d lines", len(serial), len(self))
	}
	for i := range serial {
		if serial[i] != self[i] {
			t.Errorf("line %d:\n stand-in: %s\n      MPI: %s", i, serial[i], self[i])
		}
	}
	if testing.Verbose() {
		for _, l := range self {
			t.Log(l)
		}
	}
}

// viewScript writes and reads a file in dir through subarray views on a
// one-rank communicator and returns a transcript, to compare the stand-in
// with real MPI.
func viewScript(c mpi.Comm, dir string) []string {
	var out []string
	log := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	path := filepath.Join(dir, "view.bin")
	f, err := mpi.OpenFile(c, path, mpi.ReadWrite|mpi.Create)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	// 100 uint16 values 0..99 after 6 bytes.
	all := make([]uint16, 100)
	for i := range all {
		all[i] = uint16(i)
	}
	log("plain write: %v", f.WriteAt(6, unsafe.Pointer(&all[0]), len(all), mpi.Uint16) == nil)
	// Block [1:3, 2:5] of a 4x6 array at byte 6: two tiles of 24 fit.
	sub := mpi.Subarray{Sizes: []int{4, 6}, Subsizes: []int{2, 3}, Starts: []int{1, 2}}
	log("SetView: %v", f.SetView(6, mpi.Uint16, sub) == nil)
	r := make([]uint16, 12)
	log("ReadAtAll two tiles: %v %v", mpi.ReadAtAll(f, 0, r) == nil, r)
	r = make([]uint16, 4)
	log("ReadAt at 2 elements: %v %v", f.ReadAt(4, unsafe.Pointer(&r[0]), 4, mpi.Uint16) == nil, r)
	w := []uint16{1000, 1001, 1002, 1003, 1004}
	log("WriteAtAll at 1 element: %v", mpi.WriteAtAll(f, 2, w) == nil)
	// Whole rows (the run spans dimensions), one tile, a 3-D block.
	sub3 := mpi.Subarray{Sizes: []int{2, 3, 4}, Subsizes: []int{1, 3, 4}, Starts: []int{1, 0, 0}}
	log("SetView rows: %v", f.SetView(0, mpi.Uint16, sub3) == nil)
	r = make([]uint16, 14)
	log("ReadAtAll rows: %v %v", mpi.ReadAtAll(f, 0, r) == nil, r)
	log("SetView bytes: %v", f.SetView(0, mpi.Byte, mpi.Subarray{Sizes: []int{8}, Subsizes: []int{3}, Starts: []int{5}}) == nil)
	b := make([]byte, 7)
	log("ReadAtAll bytes: %v %v", mpi.ReadAtAll(f, 0, b) == nil, b)
	log("SetView plain: %v", f.SetView(6, mpi.Uint16, mpi.Subarray{}) == nil)
	r = make([]uint16, 100)
	log("ReadAtAll plain: %v %v", mpi.ReadAtAll(f, 0, r) == nil, r)
	log("ReadAtAll past the end: %v", mpi.ReadAtAll(f, 2*99, r[:2]) == nil)
	return out
}

// TestDifferentialFileView runs viewScript on the stand-in and on
// MPI_COMM_SELF, every rank in a directory of its own.
func TestDifferentialFileView(t *testing.T) {
	serial := viewScript(mpi.NewSerial(), t.TempDir())
	self := viewScript(mpi.Self(), t.TempDir())
	if len(serial) != len(self) {
		t.Fatalf("transcripts of %d and %d lines:\n%q\n%q", len(serial), len(self), serial, self)
	}
	for i := range serial {
		if serial[i] != self[i] {
			t.Errorf("line %d:\n stand-in: %s\n      MPI: %s", i, serial[i], self[i])
		}
	}
	// The first read, computed: block rows 1-2, columns 2-4, two tiles.
	want := "ReadAtAll two tiles: true [8 9 10 14 15 16 32 33 34 38 39 40]"
	if serial[2] != want {
		t.Errorf("stand-in: %s\n    want: %s", serial[2], want)
	}
	if testing.Verbose() {
		for _, l := range self {
			t.Log(l)
		}
	}
}
