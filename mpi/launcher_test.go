package mpi_test

import (
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
)

// clearLauncher unsets every launcher variable for the test.
func clearLauncher(t *testing.T) {
	for _, v := range []string{
		"XPMPI_MPI", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
		"MPI_LOCALRANKID", "ALPS_APP_PE", "PALS_RANKID", "SLURM_PROCID",
		"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK",
		"PALS_LOCAL_RANKID", "SLURM_LOCALID", "LOCAL_RANK",
		"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
	} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

func TestLauncherDetection(t *testing.T) {
	cases := []struct {
		env       map[string]string
		launched  bool
		localRank int
		localSize int
	}{
		{nil, false, 0, 1},
		{map[string]string{"SLURM_PROCID": "3", "SLURM_LOCALID": "1"}, false, 1, 1},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_LOCAL_RANK": "2", "OMPI_COMM_WORLD_LOCAL_SIZE": "4"}, true, 2, 4},
		{map[string]string{"PMI_RANK": "1", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"}, true, 1, 2},
		{map[string]string{"PMIX_RANK": "0"}, true, 0, 1},
		{map[string]string{"PALS_RANKID": "7", "PALS_LOCAL_RANKID": "3"}, true, 3, 1},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "1", "XPMPI_MPI": "0"}, false, 0, 1},
		{map[string]string{"XPMPI_MPI": "1"}, true, 0, 1},
		// Unparsable values fall through to the next variable.
		{map[string]string{"PMI_RANK": "0", "OMPI_COMM_WORLD_LOCAL_RANK": "x", "PMI_LOCAL_RANK": "3"}, true, 3, 1},
	}
	for i, c := range cases {
		clearLauncher(t)
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		if got := mpi.Launched(); got != c.launched {
			t.Errorf("case %d: Launched = %v", i, got)
		}
		if got := mpi.LocalRank(); got != c.localRank {
			t.Errorf("case %d: LocalRank = %d", i, got)
		}
		if got := mpi.LocalSize(); got != c.localSize {
			t.Errorf("case %d: LocalSize = %d", i, got)
		}
	}
}

func TestCUDAAwareSetting(t *testing.T) {
	mpi.ClearCUDAAware()
	t.Cleanup(mpi.ClearCUDAAware)
	t.Setenv("XPMPI_CUDA_AWARE", "1")
	if a := mpi.CUDAAware(); !a.Aware || !a.Known || a.Source != "XPMPI_CUDA_AWARE" {
		t.Fatalf("XPMPI_CUDA_AWARE=1: %+v", a)
	}
	t.Setenv("XPMPI_CUDA_AWARE", "0")
	if a := mpi.CUDAAware(); a.Aware || !a.Known || a.Source != "XPMPI_CUDA_AWARE" {
		t.Fatalf("XPMPI_CUDA_AWARE=0: %+v", a)
	}
	t.Setenv("XPMPI_CUDA_AWARE", "")
	a := mpi.CUDAAware()
	if mpi.Built {
		// Open MPI answers through mpi-ext.h; other libraries may not.
		if mpi.LibraryInfo().Implementation == "Open MPI" && (a.Source != "library" || !a.Known) {
			t.Fatalf("Open MPI: %+v", a)
		}
	} else if a.Known || a.Source != "unknown" {
		t.Fatalf("stand-in: %+v", a)
	}
	mpi.SetCUDAAware(true)
	if a := mpi.CUDAAware(); !a.Aware || a.Source != "SetCUDAAware" {
		t.Fatalf("after SetCUDAAware(true): %+v", a)
	}
	mpi.SetCUDAAware(false)
	if a := mpi.CUDAAware(); a.Aware || a.Source != "SetCUDAAware" {
		t.Fatalf("after SetCUDAAware(false): %+v", a)
	}
}
