package staging_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

func TestCUDAAwareSetting(t *testing.T) {
	staging.ClearCUDAAware()
	t.Cleanup(staging.ClearCUDAAware)
	t.Setenv("XPMPI_CUDA_AWARE", "1")
	if a := staging.CUDAAware(); !a.Aware || !a.Known || a.Source != "XPMPI_CUDA_AWARE" {
		t.Fatalf("XPMPI_CUDA_AWARE=1: %+v", a)
	}
	t.Setenv("XPMPI_CUDA_AWARE", "0")
	if a := staging.CUDAAware(); a.Aware || !a.Known || a.Source != "XPMPI_CUDA_AWARE" {
		t.Fatalf("XPMPI_CUDA_AWARE=0: %+v", a)
	}
	t.Setenv("XPMPI_CUDA_AWARE", "")
	a := staging.CUDAAware()
	if mpi.Built {
		// Open MPI answers through mpi-ext.h; other libraries may not.
		if mpi.LibraryInfo().Implementation == "Open MPI" && (a.Source != "library" || !a.Known) {
			t.Fatalf("Open MPI: %+v", a)
		}
	} else if a.Known || a.Source != "unknown" {
		t.Fatalf("stand-in: %+v", a)
	}
	staging.SetCUDAAware(true)
	if a := staging.CUDAAware(); !a.Aware || a.Source != "SetCUDAAware" {
		t.Fatalf("after SetCUDAAware(true): %+v", a)
	}
	staging.SetCUDAAware(false)
	if a := staging.CUDAAware(); a.Aware || a.Source != "SetCUDAAware" {
		t.Fatalf("after SetCUDAAware(false): %+v", a)
	}
}
