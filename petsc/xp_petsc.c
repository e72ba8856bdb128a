#include <stdio.h>
#include <string.h>
#include "xp_petsc.h"
#include "_cgo_export.h"

// The message of the last error, recorded by xp_error_handler at the
// error's origin (PETSC_ERROR_INITIAL). Package petsc calls PETSc under one
// lock, so one buffer serves.
static char xp_msg[4096];

static PetscErrorCode xp_error_handler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx) {
	(void)comm;
	(void)ctx;
	if (p == PETSC_ERROR_INITIAL || xp_msg[0] == 0) {
		const char *text = NULL;
		PetscErrorMessage(n, &text, NULL);
		snprintf(xp_msg, sizeof xp_msg, "%s%s%s (in %s at %s:%d)", text ? text : "unknown error",
		         mess && mess[0] ? ": " : "", mess ? mess : "", fun ? fun : "?", file ? file : "?", line);
	}
	return n;
}

void xp_clear_error(void) { xp_msg[0] = 0; }
const char *xp_last_error(void) { return xp_msg; }

MPI_Comm xp_comm(uintptr_t h) { return (MPI_Comm)h; }

int xp_petsc_init(uintptr_t comm, int argc, char **argv) {
	// PETSc keeps argc and argv (PetscGetArgs): they live as long as the
	// process.
	static int sargc;
	static char **sargv;
	sargc = argc;
	sargv = argv;
	PETSC_COMM_WORLD = xp_comm(comm);
	// Used only where PETSc starts MPI itself; package mpi has started it at
	// MPI_THREAD_SERIALIZED.
	PETSC_MPI_THREAD_REQUIRED = MPI_THREAD_SERIALIZED;
	PetscErrorCode rc = PetscInitialize(&sargc, &sargv, NULL, NULL);
	if (rc) return rc;
	return PetscPushErrorHandler(xp_error_handler, NULL);
}

int xp_petsc_finalize(void) {
	PetscPopErrorHandler();
	return PetscFinalize();
}

int xp_petsc_have_cuda(void) {
#if defined(PETSC_HAVE_CUDA)
	return 1;
#else
	return 0;
#endif
}

void xp_petsc_version(char *buf, int len) {
	if (PetscGetVersion(buf, (size_t)len)) snprintf(buf, len, "PETSc (unknown version)");
}

// PETSc's own way to say "the values may have changed" (its
// PetscObjectStateIncrease is in a private header): VecRestoreArray
// increases the Vec's state, so cached norms are forgotten.
int xp_vec_touch(Vec v) {
	PetscScalar *a;
	PetscErrorCode rc = VecGetArray(v, &a);
	if (rc) return rc;
	return VecRestoreArray(v, &a);
}

// VecRestoreArray* set the pointer they are given to NULL: restore a copy.
int xp_vec_read_ptr(Vec v, const PetscScalar **p) {
	const PetscScalar *a;
	PetscErrorCode rc = VecGetArrayRead(v, &a);
	if (rc) return rc;
	*p = a;
	return VecRestoreArrayRead(v, &a);
}

int xp_vec_ptr(Vec v, PetscScalar **p) {
	PetscScalar *a;
	PetscErrorCode rc = VecGetArray(v, &a);
	if (rc) return rc;
	*p = a;
	return VecRestoreArray(v, &a);
}

int xp_vec_create(uintptr_t comm, PetscInt n, PetscInt N, PetscScalar *a, Vec *v) {
	return VecCreateMPIWithArray(xp_comm(comm), 1, n, N, n > 0 ? a : NULL, v);
}

int xp_vec_create_owned(uintptr_t comm, PetscInt n, PetscInt N, Vec *v) {
	return VecCreateMPI(xp_comm(comm), n, N, v);
}

// apply runs the Go operator of handle h on x and y's local arrays.
static PetscErrorCode apply(uintptr_t h, Vec x, Vec y) {
	const PetscScalar *xa;
	PetscScalar *ya;
	PetscInt nx, ny;
	PetscCall(VecGetLocalSize(x, &nx));
	PetscCall(VecGetLocalSize(y, &ny));
	PetscCall(VecGetArrayRead(x, &xa));
	PetscCall(VecGetArray(y, &ya));
	int bad = xpGoApply(h, (double *)xa, nx, ya, ny);
	PetscCall(VecRestoreArray(y, &ya));
	PetscCall(VecRestoreArrayRead(x, &xa));
	if (bad) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "the Go operator got vectors of %d and %d local elements, not those of its layouts", (int)nx, (int)ny);
	return 0;
}

static PetscErrorCode xp_shell_mult(Mat A, Vec x, Vec y) {
	void *ctx;
	PetscCall(MatShellGetContext(A, &ctx));
	PetscCall(apply((uintptr_t)ctx, x, y));
	return 0;
}

static PetscErrorCode xp_pc_apply(PC pc, Vec x, Vec y) {
	void *ctx;
	PetscCall(PCShellGetContext(pc, &ctx));
	PetscCall(apply((uintptr_t)ctx, x, y));
	return 0;
}

int xp_mat_shell(uintptr_t comm, PetscInt m, PetscInt n, PetscInt M, PetscInt N, uintptr_t h, Mat *A) {
	PetscCall(MatCreateShell(xp_comm(comm), m, n, M, N, (void *)h, A));
	PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))xp_shell_mult));
	return 0;
}

int xp_pc_shell(PC pc, uintptr_t h) {
	PetscCall(PCSetType(pc, PCSHELL));
	PetscCall(PCShellSetContext(pc, (void *)h));
	PetscCall(PCShellSetApply(pc, xp_pc_apply));
	PetscCall(PCShellSetName(pc, "Go"));
	return 0;
}

int xp_ksp_create(uintptr_t comm, KSP *ksp) { return KSPCreate(xp_comm(comm), ksp); }

const char *xp_ksp_reason(int r) {
	if (r < -11 || r > 9) return "unknown";
	return KSPConvergedReasons[r];
}

int xp_option_get(const char *name, char *buf, int len, int *set) {
	PetscBool flg = PETSC_FALSE;
	buf[0] = 0;
	PetscErrorCode rc = PetscOptionsGetString(NULL, NULL, name, buf, (size_t)len, &flg);
	*set = flg ? 1 : 0;
	return rc;
}

int xp_mat_aij(uintptr_t comm, PetscInt m, PetscInt M, const PetscInt *dnnz, const PetscInt *onnz, Mat *A) {
	PetscCall(MatCreate(xp_comm(comm), A));
	PetscCall(MatSetSizes(*A, m, m, M, M));
	PetscCall(MatSetType(*A, MATAIJ));
	// One of the two applies: MATSEQAIJ on one rank, MATMPIAIJ on several.
	PetscCall(MatSeqAIJSetPreallocation(*A, 0, dnnz));
	PetscCall(MatMPIAIJSetPreallocation(*A, 0, dnnz, 0, onnz));
	// A row that needs more than its preallocation is an error, not a
	// silent malloc.
	PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
	return 0;
}

int xp_mat_set_row(Mat A, PetscInt row, PetscInt n, const PetscInt *cols, const PetscScalar *vals) {
	return MatSetValues(A, 1, &row, n, cols, vals, INSERT_VALUES);
}

int xp_mat_assemble(Mat A) {
	PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
	PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
	return 0;
}

int xp_mat_info(Mat A, double *used, double *allocated, double *mallocs) {
	MatInfo info;
	PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
	*used = info.nz_used;
	*allocated = info.nz_allocated;
	*mallocs = info.mallocs;
	return 0;
}

static PetscErrorCode xp_snes_residual(SNES snes, Vec x, Vec f, void *ctx) {
	(void)snes;
	PetscCall(apply((uintptr_t)ctx, x, f));
	return 0;
}

int xp_snes_create(uintptr_t comm, SNES *snes) { return SNESCreate(xp_comm(comm), snes); }

int xp_snes_function(SNES snes, uintptr_t h) { return SNESSetFunction(snes, NULL, xp_snes_residual, (void *)h); }

// Jacobian-free Newton-Krylov: the Jacobian is MatMFFD (finite differences
// of the residual), and nothing to build a preconditioner from.
int xp_snes_mf(SNES snes) {
	KSP ksp;
	PC pc;
	PetscCall(SNESSetUseMatrixFree(snes, PETSC_FALSE, PETSC_TRUE));
	PetscCall(SNESGetKSP(snes, &ksp));
	PetscCall(KSPGetPC(ksp, &pc));
	PetscCall(PCSetType(pc, PCNONE));
	return 0;
}

const char *xp_snes_reason(int r) {
	if (r < -11 || r > 6) return "unknown";
	return SNESConvergedReasons[r];
}

static PetscErrorCode xp_ksp_monitor_fn(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx) {
	(void)ksp;
	xpGoMonitor((uintptr_t)ctx, (int)it, (double)rnorm);
	return 0;
}

int xp_ksp_monitor(KSP ksp, uintptr_t h) { return KSPMonitorSet(ksp, xp_ksp_monitor_fn, (void *)h, NULL); }

static PetscErrorCode xp_snes_jac(SNES snes, Vec x, Mat A, Mat P, void *ctx) {
	const PetscScalar *xa;
	PetscInt n;
	(void)snes;
	(void)A;
	(void)P;
	PetscCall(VecGetLocalSize(x, &n));
	PetscCall(VecGetArrayRead(x, &xa));
	int bad = xpGoJacobian((uintptr_t)ctx, (double *)xa, n);
	PetscCall(VecRestoreArrayRead(x, &xa));
	if (bad) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "the Go Jacobian got a vector of %d local elements, not that of its layout", (int)n);
	return 0;
}

int xp_snes_jacobian(SNES snes, Mat A, Mat P, uintptr_t h) { return SNESSetJacobian(snes, A, P, xp_snes_jac, (void *)h); }
