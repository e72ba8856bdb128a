//go:build (mpi || petsc) && !mpich

package mpi

import "os"

// Open MPI 4.1's MPI-IO (ompio) opens every file with a shared file
// pointer component, and both that it picks on one node hang jobs:
//   - "sm" creates a named POSIX semaphore, /dev/shm/sem.OMPIO_<base name
//     of the file>, and removes it at close. A job killed while it has such
//     a file open leaves the semaphore behind, and from then on every job
//     of three or more ranks on that node that opens a file of the same
//     base name (a checkpoint's u.npy, say) waits in MPI_File_open forever.
//   - "lockedfile" creates <file>-<id>.lock beside the file and writes to
//     it; on a full file system MPI_File_open then waits forever, even to
//     read (a restart from a checkpoint on a full disk hung), and the lock
//     file stays behind.
//
// xpmpi never uses shared file pointers, so it turns both off before MPI
// starts, unless the user chose sharedfp components themselves.
func init() {
	if _, set := os.LookupEnv("OMPI_MCA_sharedfp"); !set {
		os.Setenv("OMPI_MCA_sharedfp", "^sm,lockedfile")
	}
}
