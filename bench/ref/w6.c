/*
 * w6: BENCH.md's W6 (8-byte allreduce latency; ping-pong bandwidth between
 * ranks 0 and 1) as a separate plain C + MPI program, the way an outside
 * user measures it: its own processes, MPI_Init (so MPI_THREAD_SINGLE in
 * Open MPI and MPICH), no Go runtime in the process.
 *
 * It measures exactly what xpref_allreduce and xpref_pingpong of xpref.c
 * measure inside the xpmpi job (the same call counts, sizes, timed regions
 * and checksums), --reps times back to back, and prints on rank 0 one JSON
 * object in the form `xpmpi bench --peers` reads (bench/peers.go):
 *
 *   mpicc -O3 -march=native -o build/xpmpi-w6 bench/ref/w6.c
 *   mpirun -np 2 build/xpmpi-w6 [--reps N] [--small] > build/peers-w6.json
 *
 * --small uses the sizes of `xpmpi bench --small` (bench/workloads.go's
 * sizesFor): 20000/64 allreduce calls and 4 MiB/64 messages instead of
 * 20000 calls and 4 MiB. The ping-pong needs 2 ranks and is left out at 1.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *alloc_doubles(int64_t n) {
	size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
	bytes = (bytes + 63) / 64 * 64;
	return aligned_alloc(64, bytes);
}

/* allreduce is xpref_allreduce: calls MPI_Allreduce of one double between
 * a barrier and the slowest rank's end; the checksum is the sum of the
 * results. */
static int allreduce(int64_t calls, double *seconds, double *checksum) {
	double one = 1, out = 0, acc = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int64_t k = 0; k < calls; k++) {
		int rc = MPI_Allreduce(&one, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS) return rc;
		acc += out;
	}
	double elapsed = MPI_Wtime() - t0;
	*checksum = acc;
	return MPI_Allreduce(&elapsed, seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* pingpong is xpref_pingpong: trips round trips of bytes between ranks 0
 * and 1 after one untimed round trip, timed on rank 0; the checksum is the
 * sum of the buffer, broadcast from rank 0. */
static int pingpong(int rank, int64_t bytes, int64_t trips, double *seconds, double *checksum) {
	int count = (int)(bytes / 8);
	double *buf = alloc_doubles(count);
	if (!buf) return -1;
	for (int i = 0; i < count; i++) buf[i] = (double)(i % 1000);
	const int tag = 7;
	double elapsed = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	for (int64_t k = -1; k < trips; k++) { /* round trip -1 is the warm-up */
		if (k == 0) elapsed = MPI_Wtime();
		if (rank == 0) {
			MPI_Send(buf, count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
			MPI_Recv(buf, count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD);
		}
	}
	elapsed = MPI_Wtime() - elapsed;
	double sum = 0;
	for (int i = 0; i < count; i++) sum += buf[i];
	free(buf);
	MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	*checksum = sum;
	*seconds = elapsed;
	return MPI_SUCCESS;
}

/* print_list prints v[0:n] as a JSON array, every value exactly. */
static void print_list(const double *v, int n) {
	printf("[");
	for (int i = 0; i < n; i++) printf("%s%.17g", i ? ", " : "", v[i]);
	printf("]");
}

static void print_bools(int n) {
	printf("[");
	for (int i = 0; i < n; i++) printf("%strue", i ? ", " : "");
	printf("]");
}

static const char *thread_level(int level) {
	switch (level) {
	case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
	case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
	case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
	case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
	}
	return "unknown";
}

static void usage(void) {
	fprintf(stderr, "usage: w6 [--reps N] [--small]\n");
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size, level;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Query_thread(&level);
	int reps = 5, small = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--small") == 0) {
			small = 1;
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (strncmp(argv[i], "--reps=", 7) == 0) {
			reps = atoi(argv[i] + 7);
		} else {
			if (rank == 0) usage();
			MPI_Finalize();
			return 2;
		}
	}
	if (reps < 1) {
		if (rank == 0) fprintf(stderr, "w6: --reps must be at least 1\n");
		MPI_Finalize();
		return 2;
	}
	/* bench/workloads.go's sizesFor: AllreduceCalls, PingBytes, PingTrips. */
	int64_t calls = 20000, bytes = 4 << 20, trips = 100;
	if (small) {
		calls /= 64;
		bytes /= 64;
	}
	double *ar = calloc(reps, sizeof(double)), *arsum = calloc(reps, sizeof(double));
	double *pp = calloc(reps, sizeof(double)), *ppsum = calloc(reps, sizeof(double));
	if (!ar || !arsum || !pp || !ppsum) MPI_Abort(MPI_COMM_WORLD, 1);
	for (int k = 0; k < reps; k++) {
		double secs = 0, sum = 0;
		if (allreduce(calls, &secs, &sum) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
		ar[k] = secs / (double)calls * 1e6; /* us/call, as the bench's row */
		arsum[k] = sum;
	}
	if (size >= 2) {
		for (int k = 0; k < reps; k++) {
			double secs = 0, sum = 0;
			if (pingpong(rank, bytes, trips, &secs, &sum) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
			pp[k] = (double)bytes / (secs / (double)(2 * trips)) / 1e9; /* GB/s */
			ppsum[k] = sum;
		}
	}
	if (rank == 0) {
		printf("{\"peer\": \"C alone\", \"about\": \"bench/ref/w6.c, a separate C+MPI program (mpicc -O3 -march=native), MPI_Init: %s\",\n", thread_level(level));
		printf(" \"ranks\": %d, \"small\": %s, \"reps\": %d,\n", size, small ? "true" : "false", reps);
		printf(" \"figures\": [\n  {\"workload\": \"W6\", \"unit\": \"us/call\", \"samples\": ");
		print_list(ar, reps);
		printf("}");
		if (size >= 2) {
			printf(",\n  {\"workload\": \"W6\", \"unit\": \"GB/s\", \"samples\": ");
			print_list(pp, reps);
			printf("}");
		}
		printf("],\n \"checksums\": [\n  {\"workload\": \"W6\", \"what\": \"sum of the allreduce results\", \"values\": ");
		print_list(arsum, reps);
		printf(", \"ok\": ");
		print_bools(reps);
		printf("}");
		if (size >= 2) {
			printf(",\n  {\"workload\": \"W6\", \"what\": \"ping-pong buffer sum\", \"values\": ");
			print_list(ppsum, reps);
			printf(", \"ok\": ");
			print_bools(reps);
			printf("}");
		}
		printf("]}\n");
		fflush(stdout);
	}
	free(ar);
	free(arsum);
	free(pp);
	free(ppsum);
	MPI_Finalize();
	return 0;
}
