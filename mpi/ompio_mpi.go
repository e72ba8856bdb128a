//go:build (mpi || petsc) && !mpich

package mpi

import "os"

// Open MPI 4.1's MPI-IO (ompio) opens every file with a shared file
// pointer component; on one node it picks "sm", which creates a named
// POSIX semaphore, /dev/shm/sem.OMPIO_<base name of the file>, and removes
// it at close. A job killed while it has such a file open leaves the
// semaphore behind, and from then on every job of three or more ranks on
// that node that opens a file of the same base name (a checkpoint's
// u.npy, say) waits in MPI_File_open forever. xpmpi never uses shared
// file pointers, so it turns that component off before MPI starts, unless
// the user chose sharedfp components themselves.
func init() {
	if _, set := os.LookupEnv("OMPI_MCA_sharedfp"); !set {
		os.Setenv("OMPI_MCA_sharedfp", "^sm")
	}
}
