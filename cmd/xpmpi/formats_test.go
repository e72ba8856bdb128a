package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestInfoFormats: info says whether this build has HDF5 (with the
// library's version, or how to build with it) and which Zarr it has, in
// the table and in --json; heat2d refuses --checkpoint-format h5 in a
// build without HDF5 before it prints anything.
func TestInfoFormats(t *testing.T) {
	out, _, err := execute(t, "info")
	if err != nil {
		t.Fatal(err)
	}
	root := mpitest.World(t).Rank() == 0
	wantHDF5 := "HDF5:       not in this build (install libhdf5-openmpi-dev and build with -tags mpi,hdf5"
	if h5.Available() {
		wantHDF5 = "HDF5:       " + h5.Version() + " (parallel"
	}
	if root && (!strings.Contains(out, wantHDF5) || !strings.Contains(out, "Zarr:       v2, compressors none, zlib, gzip")) {
		t.Errorf("info: want %q and the Zarr line:\n%s", wantHDF5, out)
	}
	out, _, err = execute(t, "info", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if root {
		var doc struct {
			Formats map[string]any `json:"formats"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		f := doc.Formats
		ok := f["hdf5"] == h5.Available() && f["zarr"] == true && f["zarr_version"] == 2.0
		if h5.Available() {
			ok = ok && f["hdf5_version"] == h5.Version() && strings.HasPrefix(h5.Version(), "1.")
		} else {
			ok = ok && strings.Contains(f["hdf5_note"].(string), "-tags mpi,hdf5")
		}
		if !ok {
			t.Errorf("info --json: formats %v", f)
		}
	}
	if !h5.Available() {
		out, _, err := execute(t, "run", "heat2d", "--n", "8", "--iters", "2", "--checkpoint", t.TempDir(), "--checkpoint-format", "h5")
		if err == nil || !strings.Contains(err.Error(), "--checkpoint-format h5") || !strings.Contains(err.Error(), "-tags mpi,hdf5") || out != "" {
			t.Errorf("heat2d --checkpoint-format h5 without HDF5: %v, printed %q", err, out)
		}
	}
}
