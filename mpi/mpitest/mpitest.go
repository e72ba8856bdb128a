// Package mpitest runs a package's tests on every rank of an MPI job.
//
// A package whose tests communicate has a TestMain that calls Main:
//
//	func TestMain(m *testing.M) { mpitest.Main(m) }
//
// In the default build its tests run on the one-rank stand-in; built with
// -tags mpi and started with mpirun -np N, they run on N ranks, and the
// test script runs them so at 1, 2, 3 and 4 ranks. Packages with such a
// TestMain are the ones the script launches under mpirun.
package mpitest

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
)

// Main starts MPI, turns the checking mode on (unless XPMPI_CHECK=0), runs
// the tests, makes every rank exit with the worst exit
// code of any rank (so that a failure on one rank fails all), finalizes, and
// exits. A panic outside the tests aborts the job.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit: it returns the agreed exit code.
func Run(m *testing.M) int {
	// Tests do not depend on a CUDA-aware verdict an earlier job cached on
	// this machine; tests of the cache set their own file.
	if _, set := os.LookupEnv("XPMPI_PROBE_CACHE"); !set {
		os.Setenv("XPMPI_PROBE_CACHE", "off")
	}
	world, err := mpi.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer mpi.AbortOnPanic(world)
	// The checking mode is on in tests, unless XPMPI_CHECK=0 says otherwise:
	// a test that makes the ranks call different collectives fails with a
	// message instead of hanging.
	if os.Getenv("XPMPI_CHECK") != "0" {
		mpi.SetChecking(true)
	}
	code := m.Run()
	agreed, err := mpi.AllreduceValue(world, int32(code), mpi.Max)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpitest: rank %d: agreeing on the result: %v\n", world.Rank(), err)
		agreed = 1
	}
	if int(agreed) != code {
		fmt.Fprintf(os.Stderr, "mpitest: rank %d passed, but another rank failed\n", world.Rank())
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "mpitest: rank %d: %v\n", world.Rank(), err)
		return 1
	}
	return int(agreed)
}

// World returns the world communicator of the test binary.
func World(t testing.TB) mpi.Comm {
	t.Helper()
	if !mpi.Initialized() {
		t.Fatal("mpitest: MPI is not initialized: the package's TestMain must call mpitest.Main")
	}
	return mpi.World()
}

// Check fails the test on every rank if ok is false on any rank, with the
// message of the ranks where it was false. It is a collective call: every
// rank must call it. Use it where a test would otherwise stop on one rank
// and leave the others waiting in a later collective.
func Check(t testing.TB, c mpi.Comm, ok bool, format string, args ...any) {
	t.Helper()
	all, err := mpi.AllTrue(c, ok)
	if err != nil {
		t.Fatalf("mpitest: agreeing on a check: %v", err)
	}
	if !ok {
		t.Errorf("rank %d: "+format, append([]any{c.Rank()}, args...)...)
	}
	if !all {
		t.FailNow()
	}
}

// TempDir returns a temporary directory that every rank of c uses: rank 0
// makes it (removed at the end of the test) and tells the others. It is
// collective.
func TempDir(t testing.TB, c mpi.Comm) string {
	t.Helper()
	var dir string
	if c.Rank() == 0 {
		dir = t.TempDir()
	}
	b := make([]byte, 4096)
	copy(b, dir)
	if err := mpi.BcastBytes(c, b, 0); err != nil {
		t.Fatal(err)
	}
	return string(b[:bytes.IndexByte(b, 0)])
}
