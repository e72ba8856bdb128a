// C helpers of package petsc: initialization with an error handler that
// returns instead of aborting, the last error's message, and the
// trampolines through which PETSc calls Go (shell matrices and
// preconditioners).
#ifndef XP_PETSC_H
#define XP_PETSC_H

#include <stdint.h>
#include <petscsnes.h>

int xp_petsc_init(uintptr_t comm, int argc, char **argv);
int xp_petsc_finalize(void);
int xp_petsc_have_cuda(void);
void xp_petsc_version(char *buf, int len);

void xp_clear_error(void);
const char *xp_last_error(void);

MPI_Comm xp_comm(uintptr_t h);
int xp_vec_touch(Vec v);
int xp_vec_read_ptr(Vec v, const PetscScalar **p);
int xp_vec_ptr(Vec v, PetscScalar **p);
int xp_vec_create(uintptr_t comm, PetscInt n, PetscInt N, PetscScalar *a, Vec *v);
int xp_vec_create_owned(uintptr_t comm, PetscInt n, PetscInt N, Vec *v);

int xp_mat_shell(uintptr_t comm, PetscInt m, PetscInt n, PetscInt M, PetscInt N, uintptr_t h, Mat *A);
int xp_pc_shell(PC pc, uintptr_t h);
int xp_ksp_create(uintptr_t comm, KSP *ksp);
const char *xp_ksp_reason(int r);

int xp_option_get(const char *name, char *buf, int len, int *set);



int xp_mat_aij(uintptr_t comm, PetscInt m, PetscInt M, const PetscInt *dnnz, const PetscInt *onnz, Mat *A);
int xp_mat_set_row(Mat A, PetscInt row, PetscInt n, const PetscInt *cols, const PetscScalar *vals);
int xp_mat_assemble(Mat A);
int xp_mat_info(Mat A, double *used, double *allocated, double *mallocs);
int xp_snes_create(uintptr_t comm, SNES *snes);
int xp_snes_function(SNES snes, uintptr_t h);
int xp_snes_mf(SNES snes);
const char *xp_snes_reason(int r);

int xp_ksp_monitor(KSP ksp, uintptr_t h);

int xp_snes_jacobian(SNES snes, Mat A, Mat P, uintptr_t h);

#endif
