// Package tests holds xpmpi's integration tests: they run the built binaries
// under a real mpirun at several rank counts and check what every rank
// printed and how the job ended.
//
// Most tests build with -tags mpi (readme_test.go, which builds the
// README's example, builds in the default build too) and find the binaries
// through environment variables that scripts/test.sh sets:
//
//	XPMPI_BIN        the CLI built with -tags mpi (bin/xpmpi)
//	XPMPI_NOMPI_BIN  the CLI of the default build, without MPI
//	XPMPI_MPIRUN     Open MPI's launcher (default: mpirun.openmpi, mpirun)
//	XPMPI_MPICH_BIN  the CLI built with -tags mpi,mpich (build/xpmpi-mpich)
//	XPMPI_MPICH_RUN  MPICH's launcher (default: mpiexec.mpich, mpirun.mpich)
//	XPMPI_PETSC_BIN  the CLI built with -tags mpi,petsc (for TestPETScErrorShown)
//	XPMPI_MPI_TEST   the mpi package's tests built with -tags mpi
//	                 (build/test/mpi.test; default: built by the test)
//
// A test whose binary or launcher is missing skips with a message, so that
// go test ./... passes without them.
//
// A launch spends most of its time waiting (a 2-rank heat2d job: 2.4 s of
// wall time for 0.5 s of processor time), so the tests that only launch
// jobs and read what they print call t.Parallel and run together (at most
// go test's -parallel, which scripts/test.sh sets to 4) after the others.
// A test stays sequential if it bounds a job's time closely (the fault and
// timeout tests; the refusals whose only bound is one of many times what
// they take, 15 or 30 s for a job of about 1 s, run in parallel) or leaves
// state behind for other jobs on purpose (the stale MPI-IO semaphore); a test sets a job's environment in the job's
// command (runEnv, launchEnv), never with t.Setenv, which is the
// process's. Where such a test's cases are independent jobs (the faults,
// two at a time, and the bad inputs), they run together as parallel
// subtests: go test runs them before any parallel test, so their time is
// bounded against one another's jobs only, at most -parallel of them. The
// hosts tests (TestHosts) run in parallel with the others, one at a time
// among themselves: they find their ranks by network namespace, where no
// other test's run, and their bounds are TCP's and the launchers' timers,
// seconds long, not the processors'.
//
//	go build -tags mpi -o bin/xpmpi ./cmd/xpmpi
//	XPMPI_BIN=$PWD/bin/xpmpi go test -tags mpi ./tests/
package tests
