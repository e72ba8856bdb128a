// Package launch tells, from environment variables alone, whether an MPI
// launcher started this process, which one, how many ranks it started and
// this process's rank among the ranks of its node.
//
// It starts nothing and links nothing (no MPI, no cgo), so that it can be
// asked before MPI starts (a rank binds its GPU from its local rank before
// MPI_Init) and from packages that must not depend on MPI, such as backend.
// Package mpi reads it too: after MPI_Init it compares MPI's world size with
// the launcher's, to refuse a binary started by another library's launcher.
//
// The launchers it knows, in the order it looks for them (a launcher started
// inside another one's job inherits the outer one's variables, so the more
// specific marks come first):
//
//	Open MPI's mpirun    OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
//	MVAPICH              MV2_COMM_WORLD_RANK, MV2_COMM_WORLD_SIZE
//	MPICH's hydra        PMI_RANK with MPI_LOCALRANKID or HYDI_CONTROL_FD; PMI_SIZE
//	HPE PALS             PALS_RANKID, PALS_SIZE
//	Cray ALPS            ALPS_APP_PE, PMI_SIZE
//	Slurm's srun         SLURM_PROCID and SLURM_STEP_ID, with PMI_RANK or PMIX_RANK
//	                     (an MPI step); SLURM_STEP_NUM_TASKS, SLURM_NTASKS, PMI_SIZE
//	PMIx                 PMIX_RANK, PMIX_SIZE
//	PMI                  PMI_RANK, PMI_SIZE
//
// SLURM_PROCID alone does not count: batch scripts have it too.
//
// XPMPI_MPI=1 or 0 overrides the answer of Launched: 1 for a launcher whose
// variables this package does not know; 0 to run copies of a program under a
// launcher as separate one-rank jobs on purpose, or for a process that
// inherited a launcher's variables without being one of its ranks (a tool a
// rank starts). A variable set to something that is not a number (or a
// negative size) counts as not set, and Info.Ignored says so.
package launch
