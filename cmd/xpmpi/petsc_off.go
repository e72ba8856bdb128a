//go:build !petsc

package main

import (
	"errors"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers/cg"
)

// petscVersion returns "": the binary was built without PETSc.
func petscVersion() string { return "" }

func solveCGPETSc(mpi.Comm, cg.Config, []string) (cg.Result, error) {
	return cg.Result{}, errors.New("cg: --solver petsc: this xpmpi was built without PETSc; rebuild with go build -tags mpi,petsc ./cmd/xpmpi")
}
