package mpi_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/launch"
	"github.com/xpmpi/xpmpi/mpi"
)

// TestLaunched checks that mpi.Launched answers as package launch does (its
// own tests cover the detection).
func TestLaunched(t *testing.T) {
	for _, env := range []map[string]string{
		{"OMPI_COMM_WORLD_RANK": "", "PMI_RANK": "", "PMIX_RANK": "", "MPI_LOCALRANKID": "", "XPMPI_MPI": "0"},
		{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "2", "XPMPI_MPI": ""},
	} {
		for k, v := range env {
			t.Setenv(k, v)
		}
		if got, d := mpi.Launched(), launch.Detect(); got != d.Launched {
			t.Errorf("%v: mpi.Launched() = %v; launch says %+v", env, got, d)
		}
	}
}
