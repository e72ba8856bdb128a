// C helpers of the mpi package's cgo binding (build tag mpi). MPI's handles
// and constants are macros or link-time objects that cgo cannot name
// portably across Open MPI and MPICH, so the Go side passes small integer
// codes and these helpers map them.
#ifndef XPMPI_MPI_H
#define XPMPI_MPI_H

#include <mpi.h>
#include <stdint.h>

// Datatype codes: the order of the Go Datatype constants.
/* The order of mpi.Datatype, which follows backend.DType (world_mpi.go checks it). */
enum { XP_FLOAT32, XP_FLOAT64, XP_INT32, XP_INT64, XP_UINT32, XP_UINT64, XP_INT8, XP_INT16, XP_UINT8, XP_UINT16, XP_COMPLEX64, XP_COMPLEX128, XP_BYTE };
// Op codes: the order of the Go Op constants.
enum { XP_SUM, XP_PROD, XP_MIN, XP_MAX, XP_LAND, XP_LOR };

// xp_init asks for MPI_THREAD_MULTIPLE if level is 2, MPI_THREAD_SERIALIZED
// if 1 and MPI_THREAD_SINGLE if 0 (mpi.threadRequest), and makes the
// binding's own operations.
int xp_init(int level, int *provided);
int xp_finalize(void);
// xp_wait_mode sets how the binding waits, collectively over the world:
// want 1 sleeps between tests, 0 blocks in MPI, -1 sleeps where a node runs
// more ranks than CPUs, MPI is not Open MPI (which yields there itself) and
// not CUDA-aware. Every rank gets the
// largest of the ranks' choices, which it returns.
int xp_wait_mode(int want);
// xp_backoff waits as the binding's test loops do in sleep mode after
// test i found nothing, with ns the last nap (0 at first), and returns the
// next.
long xp_backoff(int i, long ns);
MPI_Comm xp_comm_world(void);
MPI_Comm xp_comm_self(void);
MPI_Comm xp_comm_null(void);
MPI_Request xp_request_null(void);
int xp_undefined(void);
int xp_any_source(void);
int xp_any_tag(void);
int xp_thread_serialized(void);
int xp_thread_funneled(void);
int xp_thread_multiple(void);
int xp_set_errors_return(MPI_Comm c);
void xp_error_string(int code, char *buf, int len);
const char *xp_implementation(void);
void xp_library_version(char *buf, int len);
int xp_cuda_aware(void);

int xp_barrier(MPI_Comm c);
int xp_bcast(void *buf, int count, int dt, int root, MPI_Comm c);
int xp_reduce(const void *s, void *r, int inplace, int count, int dt, int op, int root, MPI_Comm c);
int xp_allreduce(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c);
// A value of at most 8 bytes and a return code, returned by value: the
// scalar helpers take no pointer to Go memory.
typedef struct { uint64_t v; int rc; } xp_value;
xp_value xp_allreduce_value(uint64_t v, int dt, int op, MPI_Comm c);
xp_value xp_reduce_value(uint64_t v, int dt, int op, int root, MPI_Comm c);
int xp_gather(const void *s, int count, void *r, int dt, int root, MPI_Comm c);
int xp_gatherv(const void *s, int scount, void *r, const int *counts, const int *displs, int dt, int root, MPI_Comm c);
int xp_allgather(const void *s, int count, void *r, int dt, MPI_Comm c);
int xp_allgatherv(const void *s, int scount, void *r, const int *counts, const int *displs, int dt, MPI_Comm c);
int xp_scatter(const void *s, int count, void *r, int dt, int root, MPI_Comm c);
int xp_scatterv(const void *s, const int *counts, const int *displs, void *r, int rcount, int dt, int root, MPI_Comm c);
int xp_alltoall(const void *s, int count, void *r, int dt, MPI_Comm c);
int xp_alltoallv(const void *s, const int *scounts, const int *sdispls, void *r, const int *rcounts, const int *rdispls, int dt, MPI_Comm c);

int xp_send(const void *buf, int count, int dt, int dest, int tag, MPI_Comm c);
// The receives return the status as source, tag and element count.
int xp_recv(void *buf, int count, int dt, int src, int tag, MPI_Comm c, int *st);
int xp_sendrecv(const void *s, int scount, int dest, int stag, void *r, int rcount, int src, int rtag, int dt, MPI_Comm c, int *st);
int xp_isend(const void *buf, int count, int dt, int dest, int tag, MPI_Comm c, MPI_Request *req);
int xp_irecv(void *buf, int count, int dt, int src, int tag, MPI_Comm c, MPI_Request *req);
typedef struct { int rc, flag, st[3]; } xp_done;
xp_done xp_test_v(MPI_Request *req, int dt);
xp_done xp_wait_v(MPI_Request *req, int dt);

/* The binding's wildcards and null rank (mpi.AnySource, AnyTag, ProcNull). */
enum { XP_ANY_SOURCE = -1, XP_ANY_TAG = -1, XP_PROC_NULL = -2 };

int xp_scan(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c);
int xp_exscan(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c);
int xp_iallreduce(const void *s, void *r, int inplace, int count, int dt, int op, MPI_Comm c, MPI_Request *req);
int xp_ialltoallv(const void *s, const int *scounts, const int *sdispls, void *r, const int *rcounts, const int *rdispls, int dt, MPI_Comm c, MPI_Request *req);
int xp_probe(int src, int tag, int dt, MPI_Comm c, int *st);
int xp_iprobe(int src, int tag, int dt, MPI_Comm c, int *flag, int *st);
int xp_dims_create(int n, int ndims, int *dims);
int xp_cart_create(MPI_Comm c, int ndims, const int *dims, const int *periods, int reorder, MPI_Comm *out);
int xp_cart_coords(MPI_Comm c, int rank, int ndims, int *coords);
int xp_cart_shift(MPI_Comm c, int dim, int disp, int *src, int *dst);

int xp_comm_split(MPI_Comm c, int color, int key, MPI_Comm *out);
int xp_comm_split_shared(MPI_Comm c, MPI_Comm *out);
int xp_comm_free(MPI_Comm *c);
int xp_comm_rank(MPI_Comm c, int *rank);
int xp_comm_size(MPI_Comm c, int *size);
int xp_abort(MPI_Comm c, int code);
double xp_wtime(void);



// MPI-IO. Flags: the Go package's file flags.
enum { XP_RDONLY = 1, XP_WRONLY = 2, XP_RDWR = 4, XP_CREATE = 8, XP_EXCL = 16 };
const char *xp_error_class(int code);
int xp_file_open(MPI_Comm c, const char *path, int flags, MPI_File *fh);
int xp_file_close(MPI_File *fh);
int xp_file_write_at_all(MPI_File fh, long long off, const void *buf, int count, int dt);
int xp_file_read_at_all(MPI_File fh, long long off, void *buf, int count, int dt, int *got);
int xp_file_write_at(MPI_File fh, long long off, const void *buf, int count, int dt);
int xp_file_read_at(MPI_File fh, long long off, void *buf, int count, int dt, int *got);
int xp_file_sync(MPI_File fh);
int xp_file_set_size(MPI_File fh, long long size);
int xp_file_get_size(MPI_File fh, long long *size);

// MPI-IO file views (issue 15): the view of a C-order subarray of ndims
// dimensions of dt elements at byte disp (arg: sizes, subsizes, starts,
// ndims each), or with ndims 0 the plain view of dt elements.
int xp_file_set_view_subarray(MPI_File fh, long long disp, int dt, int ndims, const int *arg);
#endif
