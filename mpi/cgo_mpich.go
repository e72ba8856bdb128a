//go:build (mpi || petsc) && mpich

package mpi

// MPICH's compiler and linker flags, in a file of their own so that the go
// build cache keeps a -tags mpi,mpich build apart from a -tags mpi one (see
// cgo_openmpi.go).

// #cgo pkg-config: mpich
import "C"
