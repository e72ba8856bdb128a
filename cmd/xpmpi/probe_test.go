package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// The doctor's probe verdict reaches later jobs: what saveProbe records is
// what CUDAAware answers after the process forgets its own record, and
// info's source names the cache.
func TestDoctorProbeIsRecorded(t *testing.T) {
	if _, known := mpi.LibraryCUDAAware(); known {
		t.Skip("the MPI library answers itself: the cache is not consulted")
	}
	path := filepath.Join(t.TempDir(), "probe.json")
	t.Setenv("XPMPI_PROBE_CACHE", path)
	t.Setenv("XPMPI_CUDA_AWARE", "")
	defer staging.ClearCUDAAware()
	for _, aware := range []bool{true, false} {
		msg := saveProbe(aware, "test")
		if !strings.Contains(msg, "recorded in "+path) {
			t.Fatalf("saveProbe: %q", msg)
		}
		staging.ClearCUDAAware() // as a later job
		a := staging.CUDAAware()
		if !a.Known || a.Aware != aware || !strings.Contains(a.Source, path) {
			t.Fatalf("after the doctor recorded %v: %+v", aware, a)
		}
	}
	t.Setenv("XPMPI_PROBE_CACHE", "off")
	if msg := saveProbe(true, "test"); !strings.Contains(msg, "not recorded") {
		t.Fatalf("saveProbe with the cache off: %q", msg)
	}
}
