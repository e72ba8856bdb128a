/*
 * threadlevel: the cost of MPI's thread level on an 8-byte allreduce, in
 * C, with no Go in the process (issue 15). It initializes MPI at the level
 * named on the command line (single, funneled, serialized, multiple; or
 * "init" for plain MPI_Init), prints the level granted, and times
 * --calls MPI_Allreduce calls of one double, --reps times, printing the
 * median and every repetition in us per call (the slowest rank's time):
 *
 *   mpicc -O3 -o /tmp/threadlevel mpi/testdata/threadlevel.c
 *   mpirun -np 2 /tmp/threadlevel multiple [calls] [reps]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
	const char *want = argc > 1 ? argv[1] : "init";
	long calls = argc > 2 ? atol(argv[2]) : 200000;
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	int req = -1, provided = -1;
	if (!strcmp(want, "single")) req = MPI_THREAD_SINGLE;
	else if (!strcmp(want, "funneled")) req = MPI_THREAD_FUNNELED;
	else if (!strcmp(want, "serialized")) req = MPI_THREAD_SERIALIZED;
	else if (!strcmp(want, "multiple")) req = MPI_THREAD_MULTIPLE;
	if (req < 0) {
		MPI_Init(&argc, &argv);
		MPI_Query_thread(&provided);
	} else {
		MPI_Init_thread(&argc, &argv, req, &provided);
	}
	static const char *names[] = {"single", "funneled", "serialized", "multiple"};
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	double *t = calloc((size_t)reps, sizeof(double));
	for (int r = 0; r < reps; r++) {
		double one = 1, out = 0, el;
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		for (long k = 0; k < calls; k++) MPI_Allreduce(&one, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		el = MPI_Wtime() - t0;
		MPI_Allreduce(&el, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		t[r] = t[r] / (double)calls * 1e6;
	}
	if (rank == 0) {
		printf("asked %s granted %s:", want, provided >= 0 && provided <= 3 ? names[provided] : "?");
		for (int r = 0; r < reps; r++) printf(" %.4f", t[r]);
		qsort(t, (size_t)reps, sizeof(double), cmp);
		printf("  median %.4f us/call\n", t[reps / 2]);
	}
	free(t);
	MPI_Finalize();
	return 0;
}
