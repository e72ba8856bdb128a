//go:build (mpi || petsc) && !mpich

package mpi

// Open MPI's compiler and linker flags. Each library's flags are in a file
// of their own, under their own build constraint: with both #cgo lines in
// one file (told apart by "#cgo mpich" and "#cgo !mpich"), the package's
// source files and their contents were the same for either library, so the
// go build cache handed a -tags mpi,mpich build the object linked to Open
// MPI (and the reverse). A different file set gives a different cache key.

// #cgo pkg-config: ompi-c
import "C"
