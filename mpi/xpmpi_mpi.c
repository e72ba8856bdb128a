//go:build mpi || petsc

#define _GNU_SOURCE
#include <string.h>
#include <stdio.h>
#include <sched.h>
#include <time.h>
#include <sys/prctl.h>
#include "xpmpi_mpi.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

static MPI_Datatype types(int dt) {
	switch (dt) {
	case XP_FLOAT32: return MPI_FLOAT;
	case XP_FLOAT64: return MPI_DOUBLE;
	case XP_INT32:   return MPI_INT32_T;
	case XP_INT64:   return MPI_INT64_T;
	case XP_UINT32:  return MPI_UINT32_T;
	case XP_UINT64:  return MPI_UINT64_T;
	case XP_INT8:    return MPI_INT8_T;
	case XP_INT16:   return MPI_INT16_T;
	case XP_UINT8:   return MPI_UINT8_T;
	case XP_UINT16:  return MPI_UINT16_T;
	case XP_COMPLEX64:  return MPI_C_FLOAT_COMPLEX;
	case XP_COMPLEX128: return MPI_C_DOUBLE_COMPLEX;
	default:         return MPI_BYTE;
	}
}

/* Sums, products, minima and maxima of the 8- and 16-bit integers are
 * user operations of our own, not the library's: Open MPI's AVX reduction
 * component saturates MPI_SUM of these types instead of wrapping
 * (open-mpi/ompi#8045, closed as wontfix), and MPICH 4.0 orders
 * MPI_UINT8_T as signed in MPI_MIN and MPI_MAX. Sums and products wrap
 * (done in unsigned int). */
#define XP_SMALL_LOOP(T, expr)                                                         \
	do {                                                                           \
		const T *a = in;                                                       \
		T *b = inout;                                                          \
		for (i = 0; i < n; i++) {                                              \
			T x = a[i], y = b[i];                                          \
			b[i] = (T)(expr);                                              \
		}                                                                      \
	} while (0)
#define XP_SMALL_OP(name, expr)                                                        \
	static void name(void *in, void *inout, int *len, MPI_Datatype *dt)            \
	{                                                                              \
		int n = *len, i;                                                       \
		if (*dt == MPI_INT8_T) XP_SMALL_LOOP(int8_t, expr);                    \
		else if (*dt == MPI_UINT8_T) XP_SMALL_LOOP(uint8_t, expr);             \
		else if (*dt == MPI_INT16_T) XP_SMALL_LOOP(int16_t, expr);             \
		else XP_SMALL_LOOP(uint16_t, expr);                                    \
	}

XP_SMALL_OP(xp_small_sum, (unsigned int)x + (unsigned int)y)
XP_SMALL_OP(xp_small_prod, (unsigned int)x * (unsigned int)y)
XP_SMALL_OP(xp_small_min, x < y ? x : y)
XP_SMALL_OP(xp_small_max, x > y ? x : y)

#if defined(MPICH_VERSION)
/* MPICH 4.0 orders MPI_UINT32_T and MPI_UINT64_T as signed in MPI_MIN and
 * MPI_MAX too (the minimum of 134 and 2^32-3 comes out 2^32-3): their
 * minima and maxima are user operations of our own there. */
#define XP_WIDE_OP(name, expr)                                                         \
	static void name(void *in, void *inout, int *len, MPI_Datatype *dt)            \
	{                                                                              \
		int n = *len, i;                                                       \
		if (*dt == MPI_UINT32_T) XP_SMALL_LOOP(uint32_t, expr);                \
		else XP_SMALL_LOOP(uint64_t, expr);                                    \
	}
XP_WIDE_OP(xp_wide_min, x < y ? x : y)
XP_WIDE_OP(xp_wide_max, x > y ? x : y)
#define XP_WIDE_UNSIGNED 1
#else
#define XP_WIDE_UNSIGNED 0
#endif

/* XP_MIN and XP_MAX of uint32 and uint64, where XP_WIDE_UNSIGNED, made by
 * xp_init. */
static MPI_Op wide_ops[2] = {MPI_OP_NULL, MPI_OP_NULL};

/* Made by xp_init, in XP_SUM, XP_PROD, XP_MIN, XP_MAX order, before any
 * other call: at MPI_THREAD_MULTIPLE the binding takes no lock, so they are
 * never made lazily by two threads at once. */
static MPI_Op small_ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};

static MPI_Op ops(int op);

static void make_small_ops(void) {
	static MPI_User_function *const fns[4] = {xp_small_sum, xp_small_prod, xp_small_min, xp_small_max};
	for (int i = 0; i < 4; i++) {
		if (MPI_Op_create(fns[i], 1, &small_ops[i]) != MPI_SUCCESS) {
			/* A call with this operation then fails with an invalid
			 * operation: an error, never a wrong result. */
			small_ops[i] = MPI_OP_NULL;
		}
	}
#if XP_WIDE_UNSIGNED
	static MPI_User_function *const wide[2] = {xp_wide_min, xp_wide_max};
	for (int i = 0; i < 2; i++) {
		if (MPI_Op_create(wide[i], 1, &wide_ops[i]) != MPI_SUCCESS) {
			wide_ops[i] = MPI_OP_NULL;
		}
	}
#endif
}

/* opsfor returns the MPI operation of op on elements of type dt. */
static MPI_Op opsfor(int op, int dt) {
	int small = dt == XP_INT8 || dt == XP_INT16 || dt == XP_UINT8 || dt == XP_UINT16;
	if (XP_WIDE_UNSIGNED && (dt == XP_UINT32 || dt == XP_UINT64) && (op == XP_MIN || op == XP_MAX)) {
		return wide_ops[op - XP_MIN];
	}
	if (!small || op < XP_SUM || op > XP_MAX) {
		return ops(op);
	}
	return small_ops[op];
}

static MPI_Op ops(int op) {
	switch (op) {
	case XP_PROD: return MPI_PROD;
	case XP_MIN:  return MPI_MIN;
	case XP_MAX:  return MPI_MAX;
	case XP_LAND: return MPI_LAND;
	case XP_LOR:  return MPI_LOR;
	default:      return MPI_SUM;
	}
}

int xp_init(int level, int *provided) {
	int required = level == 2 ? MPI_THREAD_MULTIPLE : level == 1 ? MPI_THREAD_SERIALIZED : MPI_THREAD_SINGLE;
	int rc = MPI_Init_thread(NULL, NULL, required, provided);
	if (rc != MPI_SUCCESS) return rc;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	make_small_ops();
	return MPI_SUCCESS;
}

int xp_finalize(void) { return MPI_Finalize(); }

/* ---- Waiting in sleep mode (mpi.Info.WaitMode; doc.go, Waiting) ----

   MPI libraries wait by polling: a rank blocked in MPI_Allreduce spins on
   its CPU. With more ranks on a node than CPUs, the rank a spinning rank
   waits for may not be running, and each step of a collective can cost a
   scheduler time slice. MPICH 4.0.2 over UCX never yields. In sleep mode
   every blocking call of the binding is its nonblocking form and a test
   loop that yields, then sleeps, between tests once a few found nothing,
   so that a waiting rank gives its CPU to the ranks it waits for. The mode
   is decided once, at Init, and is the same on every rank (MPI does not
   let a blocking collective match a nonblocking one). */

static int idle_mode = 0;

enum { IDLE_POLLS = 32, IDLE_YIELDS = 100, IDLE_NAP_MIN = 20000, IDLE_NAP_MAX = 200000 };

/* nap sleeps about ns nanoseconds. The thread's timer slack (50 us by
   default) would round every nap up, so it is set to 1 us, once per
   thread. */
static void nap(long ns) {
	static __thread int slack;
	if (!slack) {
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
		slack = 1;
	}
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

/* idle_backoff is the wait after test i of a test loop that found
   nothing: none for the first IDLE_POLLS tests, a sched_yield for the next
   IDLE_YIELDS, then naps of *ns, doubling from IDLE_NAP_MIN to
   IDLE_NAP_MAX ns. Measured on 2 CPUs with dist's tests at 3 ranks under
   MPICH: shorter naps, or more of them, cost more in context switches than
   they save in latency; longer ones leave the CPUs idle. */
static void idle_backoff(int i, long *ns) {
	if (i < IDLE_POLLS) return;
	if (i < IDLE_POLLS + IDLE_YIELDS) {
		sched_yield();
		return;
	}
	if (*ns < IDLE_NAP_MIN) *ns = IDLE_NAP_MIN;
	nap(*ns);
	*ns *= 2;
	if (*ns > IDLE_NAP_MAX) *ns = IDLE_NAP_MAX;
}

long xp_backoff(int i, long ns) {
	idle_backoff(i, &ns);
	return ns;
}

static int idle_wait(MPI_Request *r, MPI_Status *st) {
	long ns = 0;
	for (int i = 0;; i++) {
		int flag = 0;
		int rc = MPI_Test(r, &flag, st ? st : MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS || flag) return rc;
		idle_backoff(i, &ns);
	}
}

/* IDLE(call) runs the nonblocking call, which sets MPI_Request q, and
   waits for it by test and sleep. */
#define IDLE(call) do { \
	MPI_Request q; \
	int rc_ = (call); \
	if (rc_ != MPI_SUCCESS) return rc_; \
	return idle_wait(&q, NULL); \
} while (0)

/* oversubscribed reports whether this node runs more of the world's ranks
   than the CPUs they may run on: the union of the node's ranks' affinity
   masks. */
static int oversubscribed(void) {
	MPI_Comm node;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return 0;
	int size = 1, over = 0;
	MPI_Comm_size(node, &size);
	cpu_set_t mine, all;
	CPU_ZERO(&mine);
	CPU_ZERO(&all);
	if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
	if (MPI_Allreduce(&mine, &all, (int)sizeof all, MPI_BYTE, MPI_BOR, node) == MPI_SUCCESS) {
		int cpus = CPU_COUNT(&all);
		over = cpus > 0 && size > cpus;
	}
	MPI_Comm_free(&node);
	return over;
}

int xp_wait_mode(int want) {
	int mine = want;
#if defined(OPEN_MPI) && OPEN_MPI
	/* Open MPI yields the CPU on an oversubscribed node by itself
	   (mpi_yield_when_idle), and sleep mode was slower there: dist's
	   tests at 4 ranks on 2 CPUs took 49-56 s, against 46 s blocking. */
	if (want < 0) mine = 0;
#endif
	if (mine < 0) mine = xp_cuda_aware() == 1 ? 0 : oversubscribed();
	int mode = mine;
	if (MPI_Allreduce(&mine, &mode, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) mode = 0;
	idle_mode = mode;
	return mode;
}
MPI_Comm xp_comm_world(void) { return MPI_COMM_WORLD; }
MPI_Comm xp_comm_self(void) { return MPI_COMM_SELF; }
MPI_Comm xp_comm_null(void) { return MPI_COMM_NULL; }
MPI_Request xp_request_null(void) { return MPI_REQUEST_NULL; }
int xp_undefined(void) { return MPI_UNDEFINED; }
int xp_any_source(void) { return MPI_ANY_SOURCE; }
int xp_any_tag(void) { return MPI_ANY_TAG; }
int xp_thread_serialized(void) { return MPI_THREAD_SERIALIZED; }
int xp_thread_funneled(void) { return MPI_THREAD_FUNNELED; }
int xp_thread_multiple(void) { return MPI_THREAD_MULTIPLE; }
int xp_set_errors_return(MPI_Comm c) { return MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN); }

void xp_error_string(int code, char *buf, int len) {
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	if (MPI_Error_string(code, s, &n) != MPI_SUCCESS) {
		snprintf(buf, len, "unknown MPI error");
		return;
	}
	snprintf(buf, len, "%.*s", n, s);
}

const char *xp_implementation(void) {
#if defined(OPEN_MPI) && OPEN_MPI
	return "Open MPI";
#elif defined(MPICH_VERSION)
	return "MPICH";
#else
	return "MPI";
#endif
}

void xp_library_version(char *buf, int len) {
	char s[MPI_MAX_LIBRARY_VERSION_STRING];
	int n = 0;
	if (MPI_Get_library_version(s, &n) != MPI_SUCCESS) {
		snprintf(buf, len, "unknown");
		return;
	}
	// The first line is the version; the rest is build detail.
	char *nl = memchr(s, '\n', n);
	if (nl != NULL) n = (int)(nl - s);
	while (n > 0 && (s[n-1] == ',' || s[n-1] == ' ' || s[n-1] == '\0')) n--;
	snprintf(buf, len, "%.*s", n, s);
}

// xp_cuda_aware returns 1 or 0 where the library can answer, -1 where not.
int xp_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
	return MPIX_Query_cuda_support() ? 1 : 0;
#else
	return -1;
#endif
}

int xp_barrier(MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Ibarrier(c, &q));
	return MPI_Barrier(c);
}

int xp_bcast(void *buf, int count, int dt, int root, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Ibcast(buf, count, types(dt), root, c, &q));
	return MPI_Bcast(buf, count, types(dt), root, c);
}

int xp_reduce(const void *s, void *r, int inplace, int count, int dt, int op, int root, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Ireduce(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), root, c, &q));
	return MPI_Reduce(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), root, c);
}

int xp_allreduce(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Iallreduce(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), c, &q));
	return MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), c);
}

xp_value xp_allreduce_value(uint64_t v, int dt, int op, MPI_Comm c) {
	xp_value r = {0, 0};
	r.rc = xp_allreduce(&v, &r.v, 0, 1, dt, op, c);
	return r;
}

xp_value xp_reduce_value(uint64_t v, int dt, int op, int root, MPI_Comm c) {
	xp_value r = {0, 0};
	r.rc = xp_reduce(&v, &r.v, 0, 1, dt, op, root, c);
	return r;
}

int xp_gather(const void *s, int count, void *r, int dt, int root, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Igather(s, count, types(dt), r, count, types(dt), root, c, &q));
	return MPI_Gather(s, count, types(dt), r, count, types(dt), root, c);
}

int xp_gatherv(const void *s, int scount, void *r, const int *counts, const int *displs, int dt, int root, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Igatherv(s, scount, types(dt), r, counts, displs, types(dt), root, c, &q));
	return MPI_Gatherv(s, scount, types(dt), r, counts, displs, types(dt), root, c);
}

int xp_allgather(const void *s, int count, void *r, int dt, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Iallgather(s, count, types(dt), r, count, types(dt), c, &q));
	return MPI_Allgather(s, count, types(dt), r, count, types(dt), c);
}

int xp_allgatherv(const void *s, int scount, void *r, const int *counts, const int *displs, int dt, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Iallgatherv(s, scount, types(dt), r, counts, displs, types(dt), c, &q));
	return MPI_Allgatherv(s, scount, types(dt), r, counts, displs, types(dt), c);
}

int xp_scatter(const void *s, int count, void *r, int dt, int root, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Iscatter(s, count, types(dt), r, count, types(dt), root, c, &q));
	return MPI_Scatter(s, count, types(dt), r, count, types(dt), root, c);
}

int xp_scatterv(const void *s, const int *counts, const int *displs, void *r, int rcount, int dt, int root, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Iscatterv(s, counts, displs, types(dt), r, rcount, types(dt), root, c, &q));
	return MPI_Scatterv(s, counts, displs, types(dt), r, rcount, types(dt), root, c);
}

int xp_alltoall(const void *s, int count, void *r, int dt, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Ialltoall(s, count, types(dt), r, count, types(dt), c, &q));
	return MPI_Alltoall(s, count, types(dt), r, count, types(dt), c);
}

int xp_alltoallv(const void *s, const int *scounts, const int *sdispls, void *r, const int *rcounts, const int *rdispls, int dt, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Ialltoallv(s, scounts, sdispls, types(dt), r, rcounts, rdispls, types(dt), c, &q));
	return MPI_Alltoallv(s, scounts, sdispls, types(dt), r, rcounts, rdispls, types(dt), c);
}

static void status_out(MPI_Status *s, int dt, int *st) {
	int n = 0;
	MPI_Get_count(s, types(dt), &n);
	st[0] = s->MPI_SOURCE;
	st[1] = s->MPI_TAG;
	st[2] = n;
	if (s->MPI_SOURCE == MPI_PROC_NULL) {
		st[0] = XP_PROC_NULL;
		st[1] = XP_ANY_TAG;
		st[2] = 0;
	}
}

/* null_status sets the status the standard gives a receive from
   MPI_PROC_NULL: MPICH 4.0.2's MPI_Wait and MPI_Test give zeros. */
static void null_status(MPI_Status *s) {
	memset(s, 0, sizeof *s);
	s->MPI_SOURCE = MPI_PROC_NULL;
	s->MPI_TAG = MPI_ANY_TAG;
}

// peer maps the binding's ProcNull and AnySource to MPI's, tagof its
// AnyTag: the values differ between libraries.
static int peer(int p) {
	if (p == XP_PROC_NULL) return MPI_PROC_NULL;
	if (p == XP_ANY_SOURCE) return MPI_ANY_SOURCE;
	return p;
}

static int tagof(int t) { return t == XP_ANY_TAG ? MPI_ANY_TAG : t; }

int xp_send(const void *buf, int count, int dt, int dest, int tag, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Isend(buf, count, types(dt), peer(dest), tag, c, &q));
	return MPI_Send(buf, count, types(dt), peer(dest), tag, c);
}

int xp_recv(void *buf, int count, int dt, int src, int tag, MPI_Comm c, int *st) {
	MPI_Status s;
	int rc;
	if (idle_mode) {
		MPI_Request q;
		rc = MPI_Irecv(buf, count, types(dt), peer(src), tagof(tag), c, &q);
		if (rc == MPI_SUCCESS) rc = idle_wait(&q, &s);
		if (peer(src) == MPI_PROC_NULL) null_status(&s);
	} else {
		rc = MPI_Recv(buf, count, types(dt), peer(src), tagof(tag), c, &s);
	}
	if (rc == MPI_SUCCESS) status_out(&s, dt, st);
	return rc;
}

int xp_sendrecv(const void *sb, int scount, int dest, int stag, void *rb, int rcount, int src, int rtag, int dt, MPI_Comm c, int *st) {
	MPI_Status s;
	int rc;
	if (idle_mode) {
		MPI_Request q[2];
		rc = MPI_Irecv(rb, rcount, types(dt), peer(src), tagof(rtag), c, &q[0]);
		if (rc != MPI_SUCCESS) return rc;
		rc = MPI_Isend(sb, scount, types(dt), peer(dest), stag, c, &q[1]);
		if (rc != MPI_SUCCESS) {
			MPI_Cancel(&q[0]);
			MPI_Wait(&q[0], MPI_STATUS_IGNORE);
			return rc;
		}
		/* The receive first, for its status; then the send. */
		rc = idle_wait(&q[0], &s);
		int rc2 = idle_wait(&q[1], NULL);
		if (rc == MPI_SUCCESS) rc = rc2;
		if (peer(src) == MPI_PROC_NULL) null_status(&s);
	} else {
		rc = MPI_Sendrecv(sb, scount, types(dt), peer(dest), stag, rb, rcount, types(dt), peer(src), tagof(rtag), c, &s);
	}
	if (rc == MPI_SUCCESS) status_out(&s, dt, st);
	return rc;
}

int xp_isend(const void *buf, int count, int dt, int dest, int tag, MPI_Comm c, MPI_Request *req) {
	return MPI_Isend(buf, count, types(dt), peer(dest), tag, c, req);
}

int xp_irecv(void *buf, int count, int dt, int src, int tag, MPI_Comm c, MPI_Request *req) {
	return MPI_Irecv(buf, count, types(dt), peer(src), tagof(tag), c, req);
}

static int xp_test(MPI_Request *req, int dt, int *flag, int *st) {
	MPI_Status s;
	int rc = MPI_Test(req, flag, &s);
	if (rc == MPI_SUCCESS && *flag) status_out(&s, dt, st);
	return rc;
}

static int xp_wait(MPI_Request *req, int dt, int *st) {
	MPI_Status s;
	int rc = idle_mode ? idle_wait(req, &s) : MPI_Wait(req, &s);
	if (rc == MPI_SUCCESS) status_out(&s, dt, st);
	return rc;
}

/* xp_test_v and xp_wait_v are xp_test and xp_wait with the results
   returned by value: no Go memory crosses (no cgo pointer check, and
   nothing of the caller's escapes to the heap). */
xp_done xp_test_v(MPI_Request *req, int dt) {
	xp_done d = {0};
	d.rc = xp_test(req, dt, &d.flag, d.st);
	return d;
}

xp_done xp_wait_v(MPI_Request *req, int dt) {
	xp_done d = {0};
	d.rc = xp_wait(req, dt, d.st);
	return d;
}

int xp_scan(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Iscan(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), c, &q));
	return MPI_Scan(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), c);
}

int xp_exscan(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c) {
	if (idle_mode) IDLE(MPI_Iexscan(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), c, &q));
	return MPI_Exscan(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), c);
}

int xp_iallreduce(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c, MPI_Request *req) {
	return MPI_Iallreduce(inplace ? MPI_IN_PLACE : s, r, count, types(dt), opsfor(op, dt), c, req);
}

int xp_ialltoallv(const void *s, const int *scounts, const int *sdispls, void *r, const int *rcounts, const int *rdispls, int dt, MPI_Comm c, MPI_Request *req) {
	return MPI_Ialltoallv(s, scounts, sdispls, types(dt), r, rcounts, rdispls, types(dt), c, req);
}

int xp_probe(int src, int tag, int dt, MPI_Comm c, int *st) {
	MPI_Status s;
	int rc;
	if (idle_mode) {
		long ns = 0;
		for (int i = 0;; i++) {
			int flag = 0;
			rc = MPI_Iprobe(peer(src), tagof(tag), c, &flag, &s);
			if (rc != MPI_SUCCESS || flag) break;
			idle_backoff(i, &ns);
		}
	} else {
		rc = MPI_Probe(peer(src), tagof(tag), c, &s);
	}
	if (rc == MPI_SUCCESS) status_out(&s, dt, st);
	return rc;
}

int xp_iprobe(int src, int tag, int dt, MPI_Comm c, int *flag, int *st) {
	MPI_Status s;
	int rc = MPI_Iprobe(peer(src), tagof(tag), c, flag, &s);
	if (rc == MPI_SUCCESS && *flag) status_out(&s, dt, st);
	return rc;
}

int xp_dims_create(int n, int ndims, int *dims) { return MPI_Dims_create(n, ndims, dims); }

int xp_cart_create(MPI_Comm c, int ndims, const int *dims, const int *periods, int reorder, MPI_Comm *out) {
	return MPI_Cart_create(c, ndims, dims, periods, reorder, out);
}

int xp_cart_coords(MPI_Comm c, int rank, int ndims, int *coords) { return MPI_Cart_coords(c, rank, ndims, coords); }

int xp_cart_shift(MPI_Comm c, int dim, int disp, int *src, int *dst) {
	int rc = MPI_Cart_shift(c, dim, disp, src, dst);
	if (*src == MPI_PROC_NULL) *src = XP_PROC_NULL;
	if (*dst == MPI_PROC_NULL) *dst = XP_PROC_NULL;
	return rc;
}

int xp_comm_split(MPI_Comm c, int color, int key, MPI_Comm *out) {
	return MPI_Comm_split(c, color, key, out);
}

int xp_comm_split_shared(MPI_Comm c, MPI_Comm *out) {
	return MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, out);
}

int xp_comm_free(MPI_Comm *c) { return MPI_Comm_free(c); }
int xp_comm_rank(MPI_Comm c, int *rank) { return MPI_Comm_rank(c, rank); }
int xp_comm_size(MPI_Comm c, int *size) { return MPI_Comm_size(c, size); }
int xp_abort(MPI_Comm c, int code) { return MPI_Abort(c, code); }
double xp_wtime(void) { return MPI_Wtime(); }

// xp_error_class returns the name of the MPI error class of code.
const char *xp_error_class(int code) {
	int cls = 0;
	if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return "";
	switch (cls) {
	case MPI_ERR_FILE: return "MPI_ERR_FILE";
	case MPI_ERR_NOT_SAME: return "MPI_ERR_NOT_SAME";
	case MPI_ERR_AMODE: return "MPI_ERR_AMODE";
	case MPI_ERR_UNSUPPORTED_DATAREP: return "MPI_ERR_UNSUPPORTED_DATAREP";
	case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
	case MPI_ERR_NO_SUCH_FILE: return "MPI_ERR_NO_SUCH_FILE";
	case MPI_ERR_FILE_EXISTS: return "MPI_ERR_FILE_EXISTS";
	case MPI_ERR_BAD_FILE: return "MPI_ERR_BAD_FILE";
	case MPI_ERR_ACCESS: return "MPI_ERR_ACCESS";
	case MPI_ERR_NO_SPACE: return "MPI_ERR_NO_SPACE";
	case MPI_ERR_QUOTA: return "MPI_ERR_QUOTA";
	case MPI_ERR_READ_ONLY: return "MPI_ERR_READ_ONLY";
	case MPI_ERR_FILE_IN_USE: return "MPI_ERR_FILE_IN_USE";
	case MPI_ERR_DUP_DATAREP: return "MPI_ERR_DUP_DATAREP";
	case MPI_ERR_CONVERSION: return "MPI_ERR_CONVERSION";
	case MPI_ERR_IO: return "MPI_ERR_IO";
	case MPI_ERR_ARG: return "MPI_ERR_ARG";
	case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
	case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
	case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
	case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN";
	case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
	default: return "";
	}
}

int xp_file_open(MPI_Comm c, const char *path, int flags, MPI_File *fh) {
	int amode = 0;
	if (flags & XP_RDONLY) amode |= MPI_MODE_RDONLY;
	if (flags & XP_WRONLY) amode |= MPI_MODE_WRONLY;
	if (flags & XP_RDWR) amode |= MPI_MODE_RDWR;
	if (flags & XP_CREATE) amode |= MPI_MODE_CREATE;
	if (flags & XP_EXCL) amode |= MPI_MODE_EXCL;
	return MPI_File_open(c, path, amode, MPI_INFO_NULL, fh);
}

int xp_file_close(MPI_File *fh) { return MPI_File_close(fh); }

int xp_file_write_at_all(MPI_File fh, long long off, const void *buf, int count, int dt) {
	MPI_Status s;
	return MPI_File_write_at_all(fh, (MPI_Offset)off, buf, count, types(dt), &s);
}

int xp_file_read_at_all(MPI_File fh, long long off, void *buf, int count, int dt, int *got) {
	MPI_Status s;
	int rc = MPI_File_read_at_all(fh, (MPI_Offset)off, buf, count, types(dt), &s);
	if (rc == MPI_SUCCESS) MPI_Get_count(&s, types(dt), got);
	return rc;
}

int xp_file_write_at(MPI_File fh, long long off, const void *buf, int count, int dt) {
	MPI_Status s;
	return MPI_File_write_at(fh, (MPI_Offset)off, buf, count, types(dt), &s);
}

int xp_file_read_at(MPI_File fh, long long off, void *buf, int count, int dt, int *got) {
	MPI_Status s;
	int rc = MPI_File_read_at(fh, (MPI_Offset)off, buf, count, types(dt), &s);
	if (rc == MPI_SUCCESS) MPI_Get_count(&s, types(dt), got);
	return rc;
}

int xp_file_sync(MPI_File fh) { return MPI_File_sync(fh); }
int xp_file_set_size(MPI_File fh, long long size) { return MPI_File_set_size(fh, (MPI_Offset)size); }

int xp_file_get_size(MPI_File fh, long long *size) {
	MPI_Offset s = 0;
	int rc = MPI_File_get_size(fh, &s);
	*size = (long long)s;
	return rc;
}

/* ---- MPI-IO file views (issue 15) ---- */

/* The subarray datatype is committed for MPI_File_set_view and freed
 * right after it: the view keeps what it needs (MPI 4.1, 14.3). */
int xp_file_set_view_subarray(MPI_File fh, long long disp, int dt, int ndims, const int *arg) {
	MPI_Datatype et = types(dt), ft = et;
	int rc;
	if (ndims > 0) {
		rc = MPI_Type_create_subarray(ndims, arg, arg + ndims, arg + 2 * ndims, MPI_ORDER_C, et, &ft);
		if (rc != MPI_SUCCESS) return rc;
		rc = MPI_Type_commit(&ft);
		if (rc != MPI_SUCCESS) {
			MPI_Type_free(&ft);
			return rc;
		}
	}
	rc = MPI_File_set_view(fh, (MPI_Offset)disp, et, ft, "native", MPI_INFO_NULL);
	if (ndims > 0) {
		int rc2 = MPI_Type_free(&ft);
		if (rc == MPI_SUCCESS) rc = rc2;
	}
	return rc;
}
