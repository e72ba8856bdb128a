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
//
// A test whose binary or launcher is missing skips with a message, so that
// go test ./... passes without them.
//
//	go build -tags mpi -o bin/xpmpi ./cmd/xpmpi
//	XPMPI_BIN=$PWD/bin/xpmpi go test -tags mpi ./tests/
package tests
