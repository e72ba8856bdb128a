/*
 * xpref: the plain C + MPI reference of BENCH.md's workloads (see xpref.h).
 *
 * Ordinary C as one would write it for the job: plain loops that the
 * compiler (mpicc -O3 -march=native) vectorizes where it can, one thread per
 * rank, OpenMP only for the full-thread variant of the triad.
 */
#include "xpref.h"

#include <cblas.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>

/* OpenBLAS's thread count (declared here: the cblas.h that Debian's
 * alternatives select may be another BLAS's). */
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);

#define CHECK(call)                        \
	do {                                   \
		int rc_ = (call);                  \
		if (rc_ != MPI_SUCCESS) return rc_; \
	} while (0)

int xpref_abi(void) { return XPREF_ABI; }

const char *xpref_mpi_impl(void) {
#if defined(OPEN_MPI) && OPEN_MPI
	return "Open MPI";
#elif defined(MPICH_VERSION)
	return "MPICH";
#else
	return "MPI";
#endif
}

/* block returns the first index and the count of rank's block of n
 * elements over size ranks: the first n % size ranks get one more. */
static void block(int64_t n, int size, int rank, int64_t *lo, int64_t *count) {
	int64_t q = n / size, rem = n % size;
	*count = q + (rank < rem ? 1 : 0);
	*lo = rank * q + (rank < rem ? rank : rem);
}

static double *alloc_doubles(int64_t n) {
	size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
	bytes = (bytes + 63) / 64 * 64;
	return aligned_alloc(64, bytes);
}

/* finish sets r->seconds to the slowest rank's elapsed time. */
static int finish(double elapsed, xpref_result *r) {
	CHECK(MPI_Allreduce(&elapsed, &r->seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
	return MPI_SUCCESS;
}

/* ---- W1: triad ---- */

int xpref_triad(const xpref_params *p, xpref_result *r) {
	int64_t n = p->n;
	int threads = (int)p->threads;
	const double a = 0.5;
	double *x = alloc_doubles(n), *y = alloc_doubles(n);
	if (!x || !y) {
		free(x);
		free(y);
		return -1;
	}
	memset(r, 0, sizeof *r);
	if (threads > 1) {
		omp_set_num_threads(threads);
#pragma omp parallel for schedule(static)
		for (int64_t i = 0; i < n; i++) {
			x[i] = (double)(i % 1024) / 1024.0;
			y[i] = 1.0;
		}
	} else {
		for (int64_t i = 0; i < n; i++) {
			x[i] = (double)(i % 1024) / 1024.0;
			y[i] = 1.0;
		}
	}
	double t0 = 0;
	for (int64_t s = -1; s < p->iters; s++) { /* sweep -1 is the warm-up */
		if (s == 0) t0 = MPI_Wtime();
		if (threads > 1) {
#pragma omp parallel for schedule(static)
			for (int64_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
		} else {
			for (int64_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
		}
	}
	double elapsed = MPI_Wtime() - t0;
	double sum = 0;
	for (int64_t i = 0; i < n; i++) sum += y[i];
	free(x);
	free(y);
	r->checksum = sum;
	r->ok = 1;
	return finish(elapsed, r);
}

/* ---- W2: distributed dot ---- */

int xpref_dot(const xpref_params *p, xpref_result *r) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t lo, m;
	block(p->n, size, rank, &lo, &m);
	double *x = alloc_doubles(m), *y = alloc_doubles(m);
	if (!x || !y) {
		free(x);
		free(y);
		return -1;
	}
	memset(r, 0, sizeof *r);
	for (int64_t i = 0; i < m; i++) {
		int64_t g = lo + i;
		x[i] = (double)(g % 8) / 8.0;
		y[i] = (double)(g % 16) / 16.0;
	}
	double dot = 0;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	for (int64_t k = 0; k < p->iters; k++) {
		double local = 0;
		/* Vectorized as a performance-aware C programmer writes it (issue
		 * 15): without the pragma GCC keeps one scalar chain of adds. */
#pragma omp simd reduction(+ : local)
		for (int64_t i = 0; i < m; i++) local += x[i] * y[i];
		CHECK(MPI_Allreduce(&local, &dot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	}
	double elapsed = MPI_Wtime() - t0;
	free(x);
	free(y);
	r->checksum = dot;
	r->ok = 1;
	return finish(elapsed, r);
}

/* ---- W3: Jacobi ---- */

/* exchange fills the ghost rows 0 and rows+1 of u (rows x cols interior
 * block with a ghost row on either side) from the neighbouring ranks, which
 * are up (or MPI_PROC_NULL) and down. */
static int exchange(double *u, int64_t rows, int64_t cols, int up, int down) {
	MPI_Request req[4];
	int tag = 0x4841;
	CHECK(MPI_Irecv(u, (int)cols, MPI_DOUBLE, up, tag, MPI_COMM_WORLD, &req[0]));
	CHECK(MPI_Irecv(u + (rows + 1) * cols, (int)cols, MPI_DOUBLE, down, tag, MPI_COMM_WORLD, &req[1]));
	CHECK(MPI_Isend(u + cols, (int)cols, MPI_DOUBLE, up, tag, MPI_COMM_WORLD, &req[2]));
	CHECK(MPI_Isend(u + rows * cols, (int)cols, MPI_DOUBLE, down, tag, MPI_COMM_WORLD, &req[3]));
	CHECK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
	return MPI_SUCCESS;
}

/* neighbours returns the ranks above and below this rank's row block, or
 * MPI_PROC_NULL: ranks with an empty block (only the last ones, when there
 * are fewer rows than ranks) take no part. */
static void neighbours(int64_t n, int size, int rank, int *up, int *down) {
	int64_t lo, m;
	block(n, size, rank + 1 < size ? rank + 1 : rank, &lo, &m);
	*up = (rank > 0) ? rank - 1 : MPI_PROC_NULL;
	*down = (rank + 1 < size && m > 0) ? rank + 1 : MPI_PROC_NULL;
}

int xpref_jacobi(const xpref_params *p, xpref_result *r) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t n = p->n, cols = n + 2, lo, rows;
	block(n, size, rank, &lo, &rows);
	int up, down;
	neighbours(n, size, rank, &up, &down);
	if (rows == 0) up = down = MPI_PROC_NULL;
	int64_t len = (rows + 2) * cols;
	double *u = alloc_doubles(len), *v = alloc_doubles(len);
	if (!u || !v) {
		free(u);
		free(v);
		return -1;
	}
	memset(r, 0, sizeof *r);
	memset(u, 0, len * sizeof(double));
	memset(v, 0, len * sizeof(double));
	if (lo == 0 && rows > 0) {
		/* The top edge is the ghost row above global row 0. */
		for (int64_t j = 0; j < cols; j++) u[j] = v[j] = 1.0;
	}
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	for (int64_t it = 0; it < p->iters; it++) {
		if (rows > 0) {
			CHECK(exchange(u, rows, cols, up, down));
			for (int64_t i = 1; i <= rows; i++) {
				const double *um = u + (i - 1) * cols, *u0 = u + i * cols, *up1 = u + (i + 1) * cols;
				double *v0 = v + i * cols;
				for (int64_t j = 1; j <= n; j++)
					v0[j] = 0.25 * (um[j] + up1[j] + u0[j - 1] + u0[j + 1]);
			}
		}
		double *t = u;
		u = v;
		v = t;
	}
	double elapsed = MPI_Wtime() - t0;
	double local = 0;
	for (int64_t i = 1; i <= rows; i++)
		for (int64_t j = 1; j <= n; j++) local += u[i * cols + j];
	free(u);
	free(v);
	CHECK(MPI_Allreduce(&local, &r->checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	r->ok = 1;
	return finish(elapsed, r);
}

/* ---- W4: conjugate gradient ---- */

static int global_dot(const double *a, const double *b, int64_t m, double *out) {
	double local = 0;
#pragma omp simd reduction(+ : local)
	for (int64_t i = 0; i < m; i++) local += a[i] * b[i];
	CHECK(MPI_Allreduce(&local, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	return MPI_SUCCESS;
}

/* cg_state is a rank's part of W4: its block of rows of the n x n grid,
 * its neighbours, x, r and q = A p (rows x n), and d, the search direction,
 * (rows + 2) x (n + 2) with ghost rows and zero walls. */
typedef struct cg_state {
	int64_t n, cols, rows, m;
	int up, down;
	double *x, *res, *q, *d;
} cg_state;

static void cg_free(cg_state *s) {
	free(s->x);
	free(s->res);
	free(s->q);
	free(s->d);
}

/* cg_start allocates and sets up a rank's part of W4 for x0 = 0, b = 1:
 * r = b and d = r. It returns -1 if memory runs out. */
static int cg_start(int64_t n, cg_state *s) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t lo;
	s->n = n;
	s->cols = n + 2;
	block(n, size, rank, &lo, &s->rows);
	neighbours(n, size, rank, &s->up, &s->down);
	if (s->rows == 0) s->up = s->down = MPI_PROC_NULL;
	s->m = s->rows * n;
	s->x = alloc_doubles(s->m);
	s->res = alloc_doubles(s->m);
	s->q = alloc_doubles(s->m);
	s->d = alloc_doubles((s->rows + 2) * s->cols);
	if (!s->x || !s->res || !s->q || !s->d) {
		cg_free(s);
		return -1;
	}
	memset(s->d, 0, (s->rows + 2) * s->cols * sizeof(double));
	for (int64_t i = 0; i < s->m; i++) {
		s->x[i] = 0;
		s->res[i] = 1; /* r = b - A x0 = b */
		s->q[i] = 0;
	}
	for (int64_t i = 0; i < s->rows; i++)
		for (int64_t j = 0; j < n; j++) s->d[(i + 1) * s->cols + j + 1] = s->res[i * n + j];
	return 0;
}

/* cg_finish frees s and fills r: the sum of x over all ranks, the slowest
 * rank's seconds, k iterations, the relative residual and the seconds per
 * iteration. */
static int cg_finish(cg_state *s, double elapsed, int64_t k, double relres, xpref_result *r) {
	double local = 0;
	for (int64_t i = 0; i < s->m; i++) local += s->x[i];
	cg_free(s);
	CHECK(MPI_Allreduce(&local, &r->checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	CHECK(finish(elapsed, r));
	r->extra[0] = (double)k;
	r->extra[1] = relres;
	r->extra[2] = k > 0 ? r->seconds / (double)k : 0;
	return MPI_SUCCESS;
}

int xpref_cg(const xpref_params *p, xpref_result *r) {
	cg_state st;
	if (cg_start(p->n, &st) != 0) return -1;
	memset(r, 0, sizeof *r);
	int64_t n = st.n, cols = st.cols, rows = st.rows, m = st.m;
	int up = st.up, down = st.down;
	double *x = st.x, *res = st.res, *q = st.q, *d = st.d;
	double bnorm = sqrt((double)n * (double)n);
	double rr, pq;
	int64_t k = 0;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	CHECK(global_dot(res, res, m, &rr));
	while (sqrt(rr) / bnorm > p->tol && k < p->iters) {
		CHECK(exchange(d, rows, cols, up, down));
		/* q = A d and d.q */
		double local = 0;
		for (int64_t i = 0; i < rows; i++) {
			const double *dm = d + i * cols, *d0 = d + (i + 1) * cols, *dp = d + (i + 2) * cols;
			double *qi = q + i * n;
			for (int64_t j = 1; j <= n; j++) {
				qi[j - 1] = 4 * d0[j] - dm[j] - dp[j] - d0[j - 1] - d0[j + 1];
			}
		}
		for (int64_t i = 0; i < rows; i++) {
			const double *d0 = d + (i + 1) * cols + 1, *qi = q + i * n;
#pragma omp simd reduction(+ : local)
			for (int64_t j = 0; j < n; j++) local += d0[j] * qi[j];
		}
		CHECK(MPI_Allreduce(&local, &pq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		double alpha = rr / pq;
		for (int64_t i = 0; i < rows; i++) {
			const double *d0 = d + (i + 1) * cols + 1;
			double *xi = x + i * n;
			for (int64_t j = 0; j < n; j++) xi[j] += alpha * d0[j];
		}
		for (int64_t i = 0; i < m; i++) res[i] -= alpha * q[i];
		double rrNew;
		CHECK(global_dot(res, res, m, &rrNew));
		double beta = rrNew / rr;
		for (int64_t i = 0; i < rows; i++) {
			double *d0 = d + (i + 1) * cols + 1;
			const double *ri = res + i * n;
			for (int64_t j = 0; j < n; j++) d0[j] = ri[j] + beta * d0[j];
		}
		rr = rrNew;
		k++;
	}
	double elapsed = MPI_Wtime() - t0;
	CHECK(cg_finish(&st, elapsed, k, sqrt(rr) / bnorm, r));
	r->ok = sqrt(rr) / bnorm <= p->tol;
	return MPI_SUCCESS;
}

/* ---- W5: sample sort ---- */

/* philox4x32_10 is Random123's Philox4x32 with ten rounds. */
static void philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
	for (int i = 0; i < 10; i++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
		uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;
		c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
}

/* uniform returns key g: the top 53 bits of the first 64-bit word of the
 * Philox block of (seed, stream g, counter 0), times 2^-53. */
static double uniform(uint64_t seed, uint64_t g) {
	uint32_t c[4] = {0, 0, (uint32_t)g, (uint32_t)(g >> 32)};
	philox4x32_10(c, (uint32_t)seed, (uint32_t)(seed >> 32));
	uint64_t x0 = (uint64_t)c[1] << 32 | c[0];
	return (double)(x0 >> 11) * 0x1p-53;
}

/* ordered maps a double's bits to an unsigned integer of the same order. */
static inline uint64_t ordered(double v) {
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return (u >> 63) ? ~u : (u | (uint64_t)1 << 63);
}

/* radix_sort sorts a[0:m] with an LSD radix sort on the ordered bits,
 * 8 bits per pass, skipping passes whose digit is the same for every key;
 * tmp has room for m keys. */
static void radix_sort(double *a, double *tmp, int64_t m) {
	static int64_t hist[8][256];
	memset(hist, 0, sizeof hist);
	for (int64_t i = 0; i < m; i++) {
		uint64_t u = ordered(a[i]);
		for (int d = 0; d < 8; d++) hist[d][(u >> (8 * d)) & 255]++;
	}
	double *src = a, *dst = tmp;
	for (int d = 0; d < 8; d++) {
		int64_t *h = hist[d], sum = 0;
		int trivial = 0;
		for (int b = 0; b < 256; b++)
			if (h[b] == m) trivial = 1;
		if (trivial) continue;
		for (int b = 0; b < 256; b++) {
			int64_t c = h[b];
			h[b] = sum;
			sum += c;
		}
		for (int64_t i = 0; i < m; i++) {
			uint64_t u = ordered(src[i]);
			dst[h[(u >> (8 * d)) & 255]++] = src[i];
		}
		double *t = src;
		src = dst;
		dst = t;
	}
	if (src != a) memcpy(a, src, m * sizeof(double));
}

/* lower_bound returns the first index of a[0:m] whose key is not below v. */
static int64_t lower_bound(const double *a, int64_t m, double v) {
	int64_t lo = 0, hi = m;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void merge(double *dst, const double *a, int64_t na, const double *b, int64_t nb) {
	int64_t i = 0, j = 0, k = 0;
	while (i < na && j < nb) dst[k++] = (b[j] < a[i]) ? b[j++] : a[i++];
	while (i < na) dst[k++] = a[i++];
	while (j < nb) dst[k++] = b[j++];
}

/* merge_runs merges the sorted runs [off[i], off[i+1]) of a, pairwise
 * level by level; tmp has the length of a. It returns the buffer that
 * holds the result (a or tmp). */
static double *merge_runs(double *a, double *tmp, int64_t *off, int runs) {
	while (runs > 1) {
		int out = 0;
		for (int i = 0; i < runs; i += 2) {
			int64_t s = off[i], mid = off[i + 1 < runs ? i + 1 : runs], e = off[i + 2 < runs ? i + 2 : runs];
			if (i + 1 < runs)
				merge(tmp + s, a + s, mid - s, a + mid, e - mid);
			else
				memcpy(tmp + s, a + s, (e - s) * sizeof(double));
			off[out++] = s;
		}
		off[out] = off[runs];
		runs = out;
		double *t = a;
		a = tmp;
		tmp = t;
	}
	return a;
}

/* sort_buffer returns the scratch buffer *buf of at least n doubles, kept
 * across calls as a C programmer who sorts repeatedly keeps it (xpmpi's W5
 * sorts in place with dist.SortInto, and Go's heap reuses its scratch):
 * grown and written once, so that no later call takes the page faults of
 * fresh memory (glibc maps blocks over 32 MiB anew on every malloc). */
static double *sort_buffer(double **buf, int64_t *cap, int64_t n) {
	if (n > *cap) {
		free(*buf);
		*buf = alloc_doubles(n);
		*cap = *buf ? n : 0;
		if (*buf) memset(*buf, 0, (size_t)n * sizeof(double));
	}
	return *buf;
}

static double *sort_tmp, *sort_recv, *sort_rtmp;
static int64_t sort_tmp_cap, sort_recv_cap, sort_rtmp_cap;

int xpref_sort(const xpref_params *p, xpref_result *r) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t lo, m;
	block(p->n, size, rank, &lo, &m);
	double *keys = alloc_doubles(m), *tmp = sort_buffer(&sort_tmp, &sort_tmp_cap, m);
	int *scount = calloc(size, sizeof(int)), *sdispl = calloc(size, sizeof(int));
	int *rcount = calloc(size, sizeof(int)), *rdispl = calloc(size, sizeof(int));
	int *samplecount = calloc(size, sizeof(int)), *sampledispl = calloc(size, sizeof(int));
	int64_t *off = calloc(size + 1, sizeof(int64_t));
	double *recv = NULL, *rtmp = NULL, *allsamples = NULL, *samples = NULL;
	int rc = -1;
	if (!keys || !tmp || !scount || !sdispl || !rcount || !rdispl || !samplecount || !sampledispl || !off) goto out;
	memset(r, 0, sizeof *r);
	for (int64_t i = 0; i < m; i++) keys[i] = uniform(p->seed, (uint64_t)(lo + i));

	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	radix_sort(keys, tmp, m);
	double *sorted = keys;
	int64_t total = m;
	if (size > 1) {
		/* Regular samples: 128 per splitter from each rank's sorted block. */
		int s = 128 * (size - 1);
		if (s > m) s = (int)m;
		samples = malloc((s > 0 ? s : 1) * sizeof(double));
		for (int i = 0; i < s; i++) samples[i] = keys[(int64_t)(i + 1) * m / (s + 1)];
		if ((rc = MPI_Allgather(&s, 1, MPI_INT, samplecount, 1, MPI_INT, MPI_COMM_WORLD))) goto out;
		int all = 0;
		for (int i = 0; i < size; i++) {
			sampledispl[i] = all;
			all += samplecount[i];
		}
		allsamples = malloc((all > 0 ? all : 1) * sizeof(double));
		if ((rc = MPI_Allgatherv(samples, s, MPI_DOUBLE, allsamples, samplecount, sampledispl, MPI_DOUBLE, MPI_COMM_WORLD))) goto out;
		qsort(allsamples, all, sizeof(double), cmp_double);
		/* Splitter k cuts at the (k+1)/size quantile of the samples;
		 * piece k holds the keys below splitter k and not below k-1. */
		int64_t prev = 0;
		for (int k = 0; k < size - 1; k++) {
			int64_t cut = m;
			if (all > 0) cut = lower_bound(keys, m, allsamples[(int64_t)(k + 1) * all / size]);
			if (cut < prev) cut = prev;
			sdispl[k] = (int)prev;
			scount[k] = (int)(cut - prev);
			prev = cut;
		}
		sdispl[size - 1] = (int)prev;
		scount[size - 1] = (int)(m - prev);
		if ((rc = MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD))) goto out;
		total = 0;
		for (int i = 0; i < size; i++) {
			rdispl[i] = (int)total;
			off[i] = total;
			total += rcount[i];
		}
		off[size] = total;
		recv = sort_buffer(&sort_recv, &sort_recv_cap, total);
		rtmp = sort_buffer(&sort_rtmp, &sort_rtmp_cap, total);
		if (!recv || !rtmp) {
			rc = -1;
			goto out;
		}
		if ((rc = MPI_Alltoallv(keys, scount, sdispl, MPI_DOUBLE, recv, rcount, rdispl, MPI_DOUBLE, MPI_COMM_WORLD))) goto out;
		sorted = merge_runs(recv, rtmp, off, size);
	}
	double elapsed = MPI_Wtime() - t0;

	/* Verify: each block in order, the blocks in order, n keys in all. */
	int ok = 1;
	for (int64_t i = 1; i < total; i++)
		if (sorted[i] < sorted[i - 1]) ok = 0;
	double ends[3] = {(double)total, total ? sorted[0] : 0, total ? sorted[total - 1] : 0};
	double *allends = malloc(3 * size * sizeof(double));
	if ((rc = MPI_Allgather(ends, 3, MPI_DOUBLE, allends, 3, MPI_DOUBLE, MPI_COMM_WORLD))) {
		free(allends);
		goto out;
	}
	int64_t count = 0, start = 0, maxrecv = 0;
	double last = -INFINITY;
	for (int i = 0; i < size; i++) {
		int64_t c = (int64_t)allends[3 * i];
		if (i < rank) start += c;
		count += c;
		if (c > maxrecv) maxrecv = c;
		if (c > 0) {
			if (allends[3 * i + 1] < last) ok = 0;
			last = allends[3 * i + 2];
		}
	}
	free(allends);
	if (count != p->n) ok = 0;
	double sum = 0;
	for (int64_t i = 0; i < total; i++) sum += sorted[i] * (double)((start + i) % 1024 + 1);
	int allok;
	if ((rc = MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD))) goto out;
	if ((rc = MPI_Allreduce(&sum, &r->checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD))) goto out;
	if ((rc = finish(elapsed, r))) goto out;
	r->ok = allok;
	r->extra[0] = p->n > 0 ? (double)maxrecv / ((double)p->n / size) : 1;
	rc = MPI_SUCCESS;
out:
	free(keys);
	free(scount);
	free(sdispl);
	free(rcount);
	free(rdispl);
	free(samplecount);
	free(sampledispl);
	free(off);
	free(samples);
	free(allsamples);
	return rc;
}

/* ---- W6: MPI micro-benchmarks ---- */

int xpref_allreduce(const xpref_params *p, xpref_result *r) {
	memset(r, 0, sizeof *r);
	double one = 1, out = 0, acc = 0;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	for (int64_t k = 0; k < p->iters; k++) {
		CHECK(MPI_Allreduce(&one, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		acc += out;
	}
	double elapsed = MPI_Wtime() - t0;
	r->checksum = acc;
	r->ok = 1;
	return finish(elapsed, r);
}

int xpref_pingpong(const xpref_params *p, xpref_result *r) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(r, 0, sizeof *r);
	if (size < 2) return MPI_ERR_COMM;
	int count = (int)(p->n / 8);
	double *buf = alloc_doubles(count);
	if (!buf) return -1;
	for (int i = 0; i < count; i++) buf[i] = (double)(i % 1000);
	const int tag = 7;
	double elapsed = 0;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	for (int64_t k = -1; k < p->iters; k++) { /* round trip -1 is the warm-up */
		if (k == 0) elapsed = MPI_Wtime();
		if (rank == 0) {
			CHECK(MPI_Send(buf, count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD));
			CHECK(MPI_Recv(buf, count, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		} else if (rank == 1) {
			CHECK(MPI_Recv(buf, count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			CHECK(MPI_Send(buf, count, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD));
		}
	}
	elapsed = MPI_Wtime() - elapsed;
	double sum = 0;
	for (int i = 0; i < count; i++) sum += buf[i];
	free(buf);
	CHECK(MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
	CHECK(MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
	r->checksum = sum;
	r->seconds = elapsed;
	r->ok = 1;
	return MPI_SUCCESS;
}

int xpref_allreduce1(const xpref_params *p, xpref_result *r) {
	(void)p;
	double one = 1;
	return MPI_Allreduce(&one, &r->checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int xpref_noop(const xpref_params *p, xpref_result *r) {
	(void)p;
	(void)r;
	return 0;
}

int xpref_filewrite(const xpref_params *p, xpref_result *r) {
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int64_t n = p->n;
	double tw = 0, tr = 0, sum = 0;
	int ok = 1;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		const char *dir = getenv("XPREF_W7_DIR");
		char path[4096];
		snprintf(path, sizeof path, "%s/xpref-w7-%d.bin", dir ? dir : "/tmp", (int)getpid());
		double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
		for (int64_t g = 0; g < n; g++) x[g] = (double)(g % 1024) / 1024;
		/* The same bytes as xpmpi's .npy file: a 128-byte header, then the
		 * data, which the read takes with pread at offset 128, as
		 * dist.LoadInto does on one node (issue 15). */
		enum { HEAD = 128 };
		char head[HEAD];
		memset(head, ' ', sizeof head);
		memcpy(head, "\x93NUMPY", 6);
		head[HEAD - 1] = '\n';
		double t0 = MPI_Wtime();
		FILE *f = fopen(path, "wb");
		if (f == NULL || fwrite(head, 1, HEAD, f) != HEAD || fwrite(x, sizeof(double), (size_t)n, f) != (size_t)n || fflush(f) != 0 || fsync(fileno(f)) != 0) ok = 0;
		if (f != NULL) fclose(f);
		tw = MPI_Wtime() - t0;
		memset(x, 0, (size_t)n * sizeof(double));
		t0 = MPI_Wtime();
		int fd = open(path, O_RDONLY);
		if (fd < 0 || pread(fd, head, HEAD, 0) != HEAD) ok = 0;
		size_t want = (size_t)n * sizeof(double), got = 0;
		while (ok && got < want) {
			ssize_t k = pread(fd, (char *)x + got, want - got > (1u << 30) ? (1u << 30) : want - got, (off_t)(HEAD + got));
			if (k <= 0) ok = 0;
			else got += (size_t)k;
		}
		if (fd >= 0) close(fd);
		tr = MPI_Wtime() - t0;
		for (int64_t g = 0; g < n; g++) sum += x[g];
		unlink(path);
		free(x);
	}
	double t[2] = {tw, tr};
	MPI_Bcast(t, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	r->seconds = t[0] + t[1];
	r->extra[0] = t[0];
	r->extra[1] = t[1];
	r->checksum = sum;
	r->ok = ok;
	return 0;
}

/* ---- W10: batched Newton on Kepler's equation ---- */

int xpref_kepler(const xpref_params *p, xpref_result *r) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t lo, m;
	block(p->n, size, rank, &lo, &m);
	double *mean = alloc_doubles(m), *ecc = alloc_doubles(m), *root = alloc_doubles(m);
	if (!mean || !ecc || !root) {
		free(mean);
		free(ecc);
		free(root);
		return -1;
	}
	memset(r, 0, sizeof *r);
	for (int64_t i = 0; i < m; i++) {
		int64_t g = lo + i;
		mean[i] = 2 * M_PI * (double)(g % 1009) / 1009;
		ecc[i] = 0.8 * (double)((g * 7919) % 1000) / 1000;
	}
	int64_t steps = 0;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	for (int64_t i = 0; i < m; i++) {
		double x = mean[i], e = ecc[i], mm = mean[i];
		for (int it = 0; it < 50; it++) {
			double fv = x - e * sin(x) - mm;
			if (fv == 0) break;
			double dv = 1 - e * cos(x);
			if (dv == 0) break;
			double dx = fv / dv;
			x -= dx;
			steps++;
			if (fabs(dx) < 1.48e-8) break;
		}
		root[i] = x;
	}
	double elapsed = MPI_Wtime() - t0;
	double local[2] = {0, (double)steps}, global[2];
	for (int64_t i = 0; i < m; i++) local[0] += root[i];
	free(mean);
	free(ecc);
	free(root);
	CHECK(MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	r->checksum = global[0];
	r->extra[0] = global[1];
	r->ok = 1;
	return finish(elapsed, r);
}

/* ---- W10: RK45 on many small systems ---- */

static void vdp(double mu, const double *y, double *dy) {
	dy[0] = y[1];
	dy[1] = mu * (1 - y[0] * y[0]) * y[1] - y[0];
}

/* rms2 is SciPy's norm of a 2-vector: its 2-norm over sqrt(2). */
static double rms2(const double *v) { return sqrt((v[0] * v[0] + v[1] * v[1]) / 2); }

/* rk45_system integrates one oscillator from 0 to tf and returns its
 * accepted steps, or -1 if the step became too small. */
static int64_t rk45_system(double mu, double *y, double tf, double rtol, double atol) {
	static const double A[6][5] = {
		{0},
		{1. / 5},
		{3. / 40, 9. / 40},
		{44. / 45, -56. / 15, 32. / 9},
		{19372. / 6561, -25360. / 2187, 64448. / 6561, -212. / 729},
		{9017. / 3168, -355. / 33, 46732. / 5247, 49. / 176, -5103. / 18656},
	};
	static const double B[6] = {35. / 384, 0, 500. / 1113, 125. / 192, -2187. / 6784, 11. / 84};
	static const double E[7] = {-71. / 57600, 0, 71. / 16695, -71. / 1920, 17253. / 339200, -22. / 525, 1. / 40};
	double f[2], K[7][2], ynew[2], tmp[2], tmp2[2];
	double t = 0;
	vdp(mu, y, f);
	/* Hairer's first step, as SciPy's select_initial_step (order 4). */
	for (int i = 0; i < 2; i++) tmp[i] = y[i] / (atol + fabs(y[i]) * rtol);
	double d0 = rms2(tmp);
	for (int i = 0; i < 2; i++) tmp[i] = f[i] / (atol + fabs(y[i]) * rtol);
	double d1 = rms2(tmp);
	double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
	for (int i = 0; i < 2; i++) tmp[i] = y[i] + h0 * f[i];
	vdp(mu, tmp, tmp2);
	for (int i = 0; i < 2; i++) tmp[i] = (tmp2[i] - f[i]) / (atol + fabs(y[i]) * rtol);
	double d2 = rms2(tmp) / h0;
	double h1 = (d1 <= 1e-15 && d2 <= 1e-15) ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / fmax(d1, d2), 1. / 5);
	double habs = fmin(100 * h0, h1);
	int64_t steps = 0;
	while (t < tf) {
		double minstep = 10 * fabs(nextafter(t, INFINITY) - t);
		if (habs < minstep) habs = minstep;
		int rejected = 0;
		double tnew, h;
		for (;;) {
			if (habs < minstep) return -1;
			h = habs;
			tnew = t + h;
			if (tnew > tf) tnew = tf;
			h = tnew - t;
			habs = fabs(h);
			K[0][0] = f[0];
			K[0][1] = f[1];
			for (int s = 1; s < 6; s++) {
				double ys[2];
				for (int i = 0; i < 2; i++) {
					double dy = 0;
					for (int j = 0; j < s; j++) dy += A[s][j] * K[j][i];
					ys[i] = y[i] + dy * h;
				}
				vdp(mu, ys, K[s]);
			}
			for (int i = 0; i < 2; i++) {
				double dy = 0;
				for (int j = 0; j < 6; j++) dy += B[j] * K[j][i];
				ynew[i] = y[i] + h * dy;
			}
			vdp(mu, ynew, K[6]);
			for (int i = 0; i < 2; i++) {
				double sc = atol + fmax(fabs(y[i]), fabs(ynew[i])) * rtol;
				double e = 0;
				for (int j = 0; j < 7; j++) e += K[j][i] * E[j];
				tmp[i] = e * h / sc;
			}
			double en = rms2(tmp);
			if (en < 1) {
				double factor = en == 0 ? 10 : fmin(10, 0.9 * pow(en, -0.2));
				if (rejected) factor = fmin(1, factor);
				habs *= factor;
				break;
			}
			habs *= fmax(0.2, 0.9 * pow(en, -0.2));
			rejected = 1;
		}
		steps++;
		t = tnew;
		y[0] = ynew[0];
		y[1] = ynew[1];
		f[0] = K[6][0];
		f[1] = K[6][1];
	}
	return steps;
}

int xpref_rk45(const xpref_params *p, xpref_result *r) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t lo, m;
	block(p->n, size, rank, &lo, &m);
	double *y = alloc_doubles(2 * m);
	if (!y) return -1;
	memset(r, 0, sizeof *r);
	for (int64_t i = 0; i < m; i++) {
		y[2 * i] = 2;
		y[2 * i + 1] = 0;
	}
	int64_t steps = 0;
	int ok = 1;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	for (int64_t i = 0; i < m; i++) {
		double mu = 0.5 + (double)((lo + i) % 100) / 100;
		int64_t s = rk45_system(mu, y + 2 * i, 10, 1e-6, 1e-9);
		if (s < 0) ok = 0;
		else steps += s;
	}
	double elapsed = MPI_Wtime() - t0;
	double local[3] = {0, (double)steps, (double)ok}, global[3];
	for (int64_t i = 0; i < 2 * m; i++) local[0] += y[i];
	free(y);
	CHECK(MPI_Allreduce(local, global, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	r->checksum = global[0];
	r->extra[0] = global[1];
	r->ok = global[2] == size;
	return finish(elapsed, r);
}

/* ---- W4, fused ---- */

int xpref_cg_fused(const xpref_params *p, xpref_result *r) {
	cg_state st;
	if (cg_start(p->n, &st) != 0) return -1;
	memset(r, 0, sizeof *r);
	int64_t n = st.n, cols = st.cols, rows = st.rows, m = st.m;
	int up = st.up, down = st.down;
	double *x = st.x, *res = st.res, *q = st.q, *d = st.d;
	double bnorm = sqrt((double)n * (double)n);
	double rr, pq;
	int64_t k = 0;
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	double rrl = 0;
#pragma omp simd reduction(+ : rrl)
	for (int64_t i = 0; i < m; i++) rrl += res[i] * res[i];
	CHECK(MPI_Allreduce(&rrl, &rr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	while (sqrt(rr) / bnorm > p->tol && k < p->iters) {
		CHECK(exchange(d, rows, cols, up, down));
		/* q = A d and d.q in one loop */
		double local = 0;
		for (int64_t i = 0; i < rows; i++) {
			const double *dm = d + i * cols, *d0 = d + (i + 1) * cols, *dp = d + (i + 2) * cols;
			double *qi = q + i * n;
#pragma omp simd reduction(+ : local)
			for (int64_t j = 1; j <= n; j++) {
				double v = 4 * d0[j] - dm[j] - dp[j] - d0[j - 1] - d0[j + 1];
				qi[j - 1] = v;
				local += d0[j] * v;
			}
		}
		CHECK(MPI_Allreduce(&local, &pq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		double alpha = rr / pq;
		/* x += alpha d, r -= alpha q and r.r in one loop */
		double rl = 0;
		for (int64_t i = 0; i < rows; i++) {
			const double *d0 = d + (i + 1) * cols + 1, *qi = q + i * n;
			double *xi = x + i * n, *ri = res + i * n;
#pragma omp simd reduction(+ : rl)
			for (int64_t j = 0; j < n; j++) {
				xi[j] += alpha * d0[j];
				double v = ri[j] - alpha * qi[j];
				ri[j] = v;
				rl += v * v;
			}
		}
		double rrNew;
		CHECK(MPI_Allreduce(&rl, &rrNew, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		double beta = rrNew / rr;
		for (int64_t i = 0; i < rows; i++) {
			double *d0 = d + (i + 1) * cols + 1;
			const double *ri = res + i * n;
#pragma omp simd
			for (int64_t j = 0; j < n; j++) d0[j] = ri[j] + beta * d0[j];
		}
		rr = rrNew;
		k++;
	}
	double elapsed = MPI_Wtime() - t0;
	CHECK(cg_finish(&st, elapsed, k, sqrt(rr) / bnorm, r));
	r->ok = r->extra[1] <= p->tol;
	return MPI_SUCCESS;
}

int xpref_blas_threads(const xpref_params *p, xpref_result *r) {
	memset(r, 0, sizeof *r);
	r->extra[0] = openblas_get_num_threads();
	if (p->threads > 0) openblas_set_num_threads((int)p->threads);
	r->ok = 1;
	return 0;
}

/* ---- matrix product with OpenBLAS (issue 12) ---- */

/* The matrices, checksum weights and ring of bench/matmul.go. */
static double mm_a(int64_t i, int64_t j) { return (double)((i * 7 + j * 3) % 17 - 8) / 8; }
static double mm_b(int64_t i, int64_t j) { return (double)((i * 5 + j * 11) % 13 - 6) / 8; }
static double mm_w(int64_t i, int64_t j) { return (double)((i + 2 * j) % 5 + 1); }

/* The width of the panels of the grid case: dist.MatMulPanelWidth. */
#define MM_PANEL 256

/* xpref_matmul's mode 2: A, B and C on a 1 x size process grid (split by
 * columns), multiplied as dist.MatMul does on a grid (SUMMA): for each
 * rank's columns of A, in panels of at most MM_PANEL, the owner packs the
 * panel (or uses its whole block in place) and broadcasts it to every
 * rank, and each rank adds the product of the panel by its rows of its
 * block of B to its block of C. */
static int matmul_grid(const xpref_params *p, xpref_result *r) {
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t n = p->n, clo, nc;
	block(n, size, rank, &clo, &nc); /* the columns of A, B and C here */
	double *a = alloc_doubles(n * nc), *b = alloc_doubles(n * nc), *c = alloc_doubles(n * nc);
	double *pan = alloc_doubles(n * MM_PANEL);
	if (!a || !b || !c || !pan) {
		free(a);
		free(b);
		free(c);
		free(pan);
		return -1;
	}
	memset(r, 0, sizeof *r);
	openblas_set_num_threads(p->threads > 0 ? (int)p->threads : 1);
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < nc; j++) {
			a[i * nc + j] = mm_a(i, clo + j);
			b[i * nc + j] = mm_b(i, clo + j);
		}
	memset(c, 0, (size_t)(n * nc) * sizeof(double));
	memset(pan, 0, (size_t)(n * MM_PANEL) * sizeof(double));
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	int first = 1;
	for (int q = 0; q < size; q++) {
		int64_t qlo, qk;
		block(n, size, q, &qlo, &qk);
		for (int64_t lo = 0; lo < qk; lo += MM_PANEL) {
			int64_t w = qk - lo < MM_PANEL ? qk - lo : MM_PANEL, lda = w;
			double *ap = pan;
			if (q == rank && (size == 1 || w == qk)) {
				ap = a + lo;
				lda = qk;
			} else if (q == rank) {
				for (int64_t i = 0; i < n; i++) memcpy(pan + i * w, a + i * qk + lo, (size_t)w * sizeof(double));
			}
			if (size > 1 && n > 0) CHECK(MPI_Bcast(ap, (int)(n * w), MPI_DOUBLE, q, MPI_COMM_WORLD));
			if (n > 0 && nc > 0)
				cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)nc, (int)w, 1, ap, (int)lda,
				            b + (qlo + lo) * nc, (int)nc, first ? 0 : 1, c, (int)nc);
			first = 0;
		}
	}
	double elapsed = MPI_Wtime() - t0;
	double sum = 0;
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < nc; j++) sum += c[i * nc + j] * mm_w(i, clo + j);
	free(a);
	free(b);
	free(c);
	free(pan);
	CHECK(MPI_Allreduce(&sum, &r->checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	r->ok = 1;
	return finish(elapsed, r);
}

int xpref_matmul(const xpref_params *p, xpref_result *r) {
	if (p->iters == 2) return matmul_grid(p, r);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int64_t n = p->n, lo, m, blo, bm, maxb = 0;
	int ring = p->iters == 1;
	block(n, size, rank, &lo, &m);
	block(n, size, rank, &blo, &bm);
	for (int q = 0; q < size; q++) {
		int64_t l, c;
		block(n, size, q, &l, &c);
		if (c > maxb) maxb = c;
	}
	/* B: the whole matrix, or this rank's rows and two panels for the
	 * blocks passing by. */
	int64_t brows = ring ? bm : n;
	double *a = alloc_doubles(m * n), *c = alloc_doubles(m * n), *b = alloc_doubles(brows * n);
	double *panel[2] = {ring ? alloc_doubles(maxb * n) : NULL, ring ? alloc_doubles(maxb * n) : NULL};
	if (!a || !c || !b || (ring && (!panel[0] || !panel[1]))) {
		free(a);
		free(c);
		free(b);
		free(panel[0]);
		free(panel[1]);
		return -1;
	}
	memset(r, 0, sizeof *r);
	openblas_set_num_threads(p->threads > 0 ? (int)p->threads : 1);
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) a[i * n + j] = mm_a(lo + i, j);
	int64_t b0 = ring ? blo : 0;
	for (int64_t i = 0; i < brows; i++)
		for (int64_t j = 0; j < n; j++) b[i * n + j] = mm_b(b0 + i, j);
	memset(c, 0, (size_t)(m * n) * sizeof(double));
	if (ring) {
		memset(panel[0], 0, (size_t)(maxb * n) * sizeof(double));
		memset(panel[1], 0, (size_t)(maxb * n) * sizeof(double));
	}
	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double t0 = MPI_Wtime();
	if (!ring) {
		if (m > 0 && n > 0)
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)n, 1, a, (int)n, b, (int)n, 0, c, (int)n);
	} else {
		/* At step s this rank holds the rows of B of rank q = rank+s: it
		 * sends them to rank-1 and receives those of q+1 from rank+1 while
		 * it multiplies its columns q of A by them. */
		int next = (rank + 1) % size, prev = (rank + size - 1) % size;
		double *cur = b;
		for (int s = 0; s < size; s++) {
			int q = (rank + s) % size;
			int64_t qlo, qc, rlo, rc;
			block(n, size, q, &qlo, &qc);
			MPI_Request req[2];
			if (s < size - 1) {
				block(n, size, (q + 1) % size, &rlo, &rc);
				CHECK(MPI_Irecv(panel[s % 2], (int)(rc * n), MPI_DOUBLE, next, 0x4d4d, MPI_COMM_WORLD, &req[0]));
				CHECK(MPI_Isend(cur, (int)(qc * n), MPI_DOUBLE, prev, 0x4d4d, MPI_COMM_WORLD, &req[1]));
			}
			if (m > 0 && n > 0)
				cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)qc, 1, a + qlo, (int)n, cur,
				            (int)n, s == 0 ? 0 : 1, c, (int)n);
			if (s == size - 1) break;
			CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
			cur = panel[s % 2];
		}
	}
	double elapsed = MPI_Wtime() - t0;
	double sum = 0;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) sum += c[i * n + j] * mm_w(lo + i, j);
	free(a);
	free(c);
	free(b);
	free(panel[0]);
	free(panel[1]);
	CHECK(MPI_Allreduce(&sum, &r->checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	r->ok = 1;
	return finish(elapsed, r);
}

/* ---- W8: 2-D FFT (FFTW, loaded at run time) ---- */

#include "w8fft.c"
