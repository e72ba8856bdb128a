//go:build !(hdf5 && mpi && !mpich)

package h5_test

import (
	"errors"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestUnavailable: a build without HDF5 says so, with how to rebuild.
func TestUnavailable(t *testing.T) {
	c := mpitest.World(t)
	if h5.Available() || h5.Version() != "" {
		t.Fatal("Available in a build without HDF5")
	}
	x, err := dist.Zeros[float64](c, []int{3})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	if err := h5.Save(x, "x.h5", "x"); !errors.Is(err, h5.ErrUnavailable) {
		t.Errorf("Save: %v", err)
	}
	if _, err := h5.Load[float64](c, "x.h5", "x"); !errors.Is(err, h5.ErrUnavailable) {
		t.Errorf("Load: %v", err)
	}
	if err := h5.LoadInto(x, "x.h5", "x"); !errors.Is(err, h5.ErrUnavailable) {
		t.Errorf("LoadInto: %v", err)
	}
	if _, err := h5.ReadAttrs(c, "x.h5", "/"); !errors.Is(err, h5.ErrUnavailable) {
		t.Errorf("ReadAttrs: %v", err)
	}
}
