//go:build mpi || petsc

package mpi

/*
#cgo noescape xp_cost_allreduce_raw
#cgo nocallback xp_cost_allreduce_raw
#cgo noescape xp_cost_noop
#cgo nocallback xp_cost_noop
#include <time.h>
#include "xpmpi_mpi.h"

// The pieces of an 8-byte allreduce's cost, for the breakdown benchmarks
// (callcost_mpi_test.go, issue 15): an empty C function; one MPI_Allreduce
// of a double with MPI's own constants; a C loop of n of them, which is the
// in-job C reference at the thread level xpmpi initialized.
static void xp_cost_noop(void) {}
static int xp_cost_allreduce_raw(MPI_Comm c, double *out) {
	double one = 1;
	return MPI_Allreduce(&one, out, 1, MPI_DOUBLE, MPI_SUM, c);
}
static double xp_cost_allreduce_loop(MPI_Comm c, long n) {
	double one = 1, out = 0;
	MPI_Barrier(c);
	double t0 = MPI_Wtime();
	for (long k = 0; k < n; k++) MPI_Allreduce(&one, &out, 1, MPI_DOUBLE, MPI_SUM, c);
	return MPI_Wtime() - t0;
}
static double xp_cost_cputime(void) {
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
*/
import "C"

// costCPUTime returns the CPU seconds this process has used, all threads
// together: at one rank, where no call waits for another rank, it times the
// calls without the time the process spent descheduled on a loaded
// machine.
func costCPUTime() float64 { return float64(C.xp_cost_cputime()) }

// costNoop calls an empty C function: the cgo transition alone.
func costNoop() { C.xp_cost_noop() }

// costAllreduceRaw calls MPI_Allreduce of one double on c from C, without
// the library lock or the binding's code maps.
func costAllreduceRaw(c Comm) float64 {
	var out C.double
	C.xp_cost_allreduce_raw(unwrap(c).(*comm).c, &out)
	return float64(out)
}

// costAllreduceLoop times n MPI_Allreduce calls of one double in a C loop
// on c and returns the seconds.
func costAllreduceLoop(c Comm, n int) float64 {
	return float64(C.xp_cost_allreduce_loop(unwrap(c).(*comm).c, C.long(n)))
}
