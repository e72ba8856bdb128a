package mpi_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/launch"
	"github.com/xpmpi/xpmpi/mpi"
)

// TestLauncherForwards checks that mpi's launcher functions answer as
// package launch does (its own tests cover the detection).
func TestLauncherForwards(t *testing.T) {
	for _, env := range []map[string]string{
		{"OMPI_COMM_WORLD_RANK": "", "PMI_RANK": "", "PMIX_RANK": "", "MPI_LOCALRANKID": "", "XPMPI_MPI": "0"},
		{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "XPMPI_MPI": ""},
	} {
		for k, v := range env {
			t.Setenv(k, v)
		}
		d := launch.Detect()
		if mpi.Launched() != d.Launched || mpi.Launcher() != d.Variable || mpi.LocalRank() != d.LocalRank ||
			mpi.LocalSize() != d.LocalSize || mpi.LaunchedSize() != d.Size {
			t.Errorf("%v: mpi says %v %q %d %d %d; launch says %+v", env,
				mpi.Launched(), mpi.Launcher(), mpi.LocalRank(), mpi.LocalSize(), mpi.LaunchedSize(), d)
		}
	}
}
