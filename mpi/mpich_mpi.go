//go:build (mpi || petsc) && mpich

package mpi

import "os"

// MPICH 4.0.2 (Debian 12's) crashes with a segmentation fault in
// MPI_Reduce with MPI_IN_PLACE at a root other than rank 0 once the
// message passes about 2 KiB, in its ch4 device-level (shared-memory)
// reduction; the generic algorithms are correct. A C program of a dozen
// lines shows it at 2 ranks and 1000 floats. xpmpi turns the device-level
// reduction off before MPI starts, unless the user set the variable.
func init() {
	if _, set := os.LookupEnv("MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE"); !set {
		os.Setenv("MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE", "0")
	}
}
