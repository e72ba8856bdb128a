//go:build petsc

package petsc

// PETSc's flags: its .pc file lacks Open MPI's include path, hence ompi-c.
// Debian's PETSc 3.18 is built against Open MPI; package mpi must be too
// (not -tags mpich).

// #cgo pkg-config: PETSc ompi-c
// #include "xp_petsc.h"
import "C"
