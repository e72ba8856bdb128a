package mpi

import (
	"fmt"

	"github.com/xpmpi/xpmpi/launch"
)

// checkSlurmStep refuses a one-rank world in a Slurm step of several tasks
// that no launcher's rank variables mark (srun --mpi=none, or a cluster
// whose default MpiDefault is none): every task would run alone as a
// separate one-rank job, which checkLauncher cannot see, since the step
// gives no rank variable to compare with. XPMPI_MPI=0 runs the separate
// jobs on purpose (and XPMPI_MPI=1 leaves the decision to checkLauncher).
func checkSlurmStep(d launch.Info, worldSize int, impl string) error {
	if d.Overridden || d.Kind != launch.None || d.SlurmTasks <= 1 || worldSize != 1 {
		return nil
	}
	return &mismatchError{msg: fmt.Sprintf("mpi: srun started this program as %d tasks (SLURM_STEP_NUM_TASKS=%d) "+
		"without a PMI server, and %s made a world of 1 rank, so each task would run alone as a separate one-rank job. "+
		"Fix: srun --mpi=pmix for Open MPI, srun --mpi=pmi2 for MPICH (srun --mpi=list shows what this Slurm has), "+
		"or mpirun inside the allocation (XPMPI_MPI=0 runs the separate jobs on purpose)",
		d.SlurmTasks, d.SlurmTasks, impl)}
}
