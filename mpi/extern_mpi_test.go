//go:build mpi || petsc

package mpi_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// notLibrary is a Comm that is not of the MPI library.
type notLibrary struct{ mpi.Comm }

// CHandle gives the C communicator of the world (through the checking
// wrapper) and of a split, and refuses a Comm of another kind; the library
// lock, released, lets MPI calls through.
func TestCHandle(t *testing.T) {
	c := mpitest.World(t)
	w, err := mpi.CHandle(c)
	if err != nil || w == 0 {
		t.Fatalf("CHandle(world) = %#x, %v", w, err)
	}
	s, err := c.Split(0, c.Rank())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free()
	h, err := mpi.CHandle(s)
	if err != nil || h == 0 || h == w {
		t.Errorf("CHandle(split) = %#x, %v (world %#x)", h, err, w)
	}
	if _, err := mpi.CHandle(notLibrary{c}); err == nil {
		t.Error("CHandle of a Comm that is not the library's: no error")
	}
	mpi.LockLibrary()
	mpi.UnlockLibrary()
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
}
