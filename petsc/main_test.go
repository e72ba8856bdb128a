//go:build petsc

package petsc

import (
	"fmt"
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
)

// testOptions are the options TestMain starts PETSc with; TestOptions
// checks that they reach PETSc's options database.
var testOptions = []string{"-xp_test_marker 42 -xp_test_flag", "-xp_test_word hello"}

// TestMain runs the tests on every rank of an MPI job, as mpitest.Main
// does, with PETSc started after MPI and finalized before it (mpitest.Main
// finalizes MPI itself, with no place for PetscFinalize before it).
func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	if mode := os.Getenv(childEnv); mode != "" {
		return childMain(mode)
	}
	if _, set := os.LookupEnv("XPMPI_PROBE_CACHE"); !set {
		os.Setenv("XPMPI_PROBE_CACHE", "off")
	}
	world, err := mpi.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer mpi.AbortOnPanic(world)
	if os.Getenv("XPMPI_CHECK") != "0" {
		mpi.SetChecking(true)
	}
	if err := Init(world, testOptions...); err != nil {
		fmt.Fprintf(os.Stderr, "petsc tests: rank %d: %v\n", world.Rank(), err)
		world.Abort(1)
	}
	code := m.Run()
	agreed, err := mpi.AllreduceValue(world, int32(code), mpi.Max)
	if err != nil {
		fmt.Fprintf(os.Stderr, "petsc tests: rank %d: agreeing on the result: %v\n", world.Rank(), err)
		agreed = 1
	}
	if int(agreed) != code {
		fmt.Fprintf(os.Stderr, "petsc tests: rank %d passed, but another rank failed\n", world.Rank())
	}
	if err := Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "petsc tests: rank %d: %v\n", world.Rank(), err)
		agreed = 1
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "petsc tests: rank %d: %v\n", world.Rank(), err)
		return 1
	}
	return int(agreed)
}
