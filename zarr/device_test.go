package zarr_test

import (
	"path/filepath"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/zarr"
)

// TestDevice saves and loads arrays whose blocks are on the fake device,
// which takes the paths of a GPU: blocks go to the host and back through
// backend copies.
func TestDevice(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	shape := []int{7, 3}
	for _, l := range layouts(shape, c.Size()) {
		t.Run(l.name, func(t *testing.T) {
			x := refArray[complex64](t, c, shape, append(l.opts, dist.OnBackend(fakedev.Default))...)
			defer x.Free()
			store := filepath.Join(dir, "dev.zarr")
			if err := zarr.Save(x, store, "", zarr.Chunks(2, 2), zarr.Zlib(1)); err != nil {
				t.Fatal(err)
			}
			y, err := zarr.Load[complex64](c, store, "", dist.OnBackend(fakedev.Default), dist.SplitAxis(1))
			if err != nil {
				t.Fatal(err)
			}
			defer y.Free()
			if y.Device() != fakedev.Default.Device() {
				t.Fatalf("loaded onto %v", y.Device())
			}
			host, err := dist.Zeros[complex64](c, shape, dist.SplitAxis(1))
			if err != nil {
				t.Fatal(err)
			}
			defer host.Free()
			if err := backend.CopyToHostSlice(host.LocalData(), y.Local()); err != nil {
				t.Fatal(err)
			}
			checkRef(t, host)
		})
	}
}
