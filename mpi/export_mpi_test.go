//go:build mpi || petsc

package mpi

// The library's own answers, for the tests that check DimsCreate and Cart
// against them.
var (
	LibDimsCreate = libDimsCreate
	LibCartQuery  = libCartQuery
)
