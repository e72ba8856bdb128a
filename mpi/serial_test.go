package mpi_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/mpi"
)

func TestSerialPeers(t *testing.T) {
	s := mpi.NewSerial()
	buf := []float64{1, 2}
	for name, err := range map[string]error{
		"Bcast root 1":  mpi.Bcast(s, buf, 1),
		"Send to 1":     mpi.Send(s, buf, 1, 0),
		"Reduce root 2": mpi.Reduce(s, buf, buf, mpi.Sum, 2),
		"Gather root 1": s.Gather(nil, 0, nil, mpi.Float64, 1),
	} {
		var me *mpi.Error
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "not a rank") {
			t.Errorf("%s: error %v", name, err)
		}
	}
	if _, err := mpi.Recv(s, buf, 3, 0); err == nil {
		t.Error("Recv from rank 3: no error")
	}
}

func TestSerialValues(t *testing.T) {
	s := mpi.NewSerial()
	if s.Rank() != 0 || s.Size() != 1 {
		t.Fatalf("rank %d of %d", s.Rank(), s.Size())
	}
	x := []int32{4, -5, 6}
	r := make([]int32, 3)
	if err := mpi.Allreduce(s, x, r, mpi.Min); err != nil || !slices.Equal(r, x) {
		t.Fatalf("Allreduce of x = %v, %v", r, err)
	}
	g := make([]int32, 3)
	if err := mpi.Gather(s, x, g, 0); err != nil || !slices.Equal(g, x) {
		t.Fatalf("Gather of x = %v, %v", g, err)
	}
	// Scatter needs exactly one block.
	one := make([]int32, 3)
	if err := mpi.Scatter(s, x, one, 0); err != nil || !slices.Equal(one, x) {
		t.Fatalf("Scatter = %v, %v", one, err)
	}
	if err := s.Scatterv(unsafe.Pointer(&x[0]), []int{3, 0}, []int{0, 3}, unsafe.Pointer(&one[0]), 3, mpi.Int32, 0); err == nil {
		t.Fatal("Scatterv with two blocks on one rank: no error")
	}
	if err := s.Gatherv(unsafe.Pointer(&x[0]), 3, unsafe.Pointer(&g[0]), []int{2}, []int{0}, mpi.Int32, 0); err == nil {
		t.Fatal("Gatherv with a count that disagrees: no error")
	}
	if err := s.Allreduce(unsafe.Pointer(&x[0]), unsafe.Pointer(&r[0]), 1, mpi.Float64, mpi.LOr); err == nil {
		t.Fatal("logical or on float64: no error")
	}
}

func TestSerialMessages(t *testing.T) {
	s := mpi.NewSerial()
	// Receive waits for a later send.
	got := make([]float64, 4)
	req, err := mpi.Irecv(s, got, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if done, _, _ := req.Test(); done {
		t.Fatal("Irecv done before any send")
	}
	if err := mpi.Send(s, []float64{9}, 0, 4); err != nil { // another tag: queued
		t.Fatal(err)
	}
	if err := mpi.Send(s, []float64{1, 2, 3}, 0, 5); err != nil {
		t.Fatal(err)
	}
	st, err := req.Wait()
	if err != nil || st.Count != 3 || st.Tag != 5 || !slices.Equal(got[:3], []float64{1, 2, 3}) {
		t.Fatalf("Irecv: %+v %v %v", st, got, err)
	}
	one := make([]float64, 1)
	if st, err := mpi.Recv(s, one, mpi.AnySource, mpi.AnyTag); err != nil || st.Tag != 4 || one[0] != 9 {
		t.Fatalf("Recv of the queued message: %+v %v %v", st, one, err)
	}
	// Nothing left: a receive can never complete.
	if _, err := mpi.Recv(s, one, 0, mpi.AnyTag); err == nil || !strings.Contains(err.Error(), "block forever") {
		t.Fatalf("Recv with nothing sent: %v", err)
	}
	req, _ = mpi.Irecv(s, one, 0, 1)
	if _, err := req.Wait(); err == nil {
		t.Fatal("Wait on an unmatched receive: no error")
	}
	// Truncation is an error.
	mpi.Send(s, []float64{1, 2}, 0, 9)
	if _, err := mpi.Recv(s, make([]float64, 1), 0, 9); err == nil {
		t.Fatal("truncated receive: no error")
	}
	if c, err := s.Split(mpi.Undefined, 0); c != nil || err != nil {
		t.Fatalf("Split(Undefined) = %v, %v", c, err)
	}
}
