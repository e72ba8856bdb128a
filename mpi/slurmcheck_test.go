package mpi

import (
	"errors"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/launch"
)

func TestCheckSlurmStep(t *testing.T) {
	noPMI := map[string]string{"SLURM_PROCID": "1", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "4"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range noPMI {
			m[a] = b
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name   string
		env    map[string]string
		world  int
		refuse bool
	}{
		{"srun --mpi=none, 4 tasks, one-rank world", noPMI, 1, true},
		{"srun --mpi=none, 1 task", with("SLURM_STEP_NUM_TASKS", "1"), 1, false},
		{"a world of 4: PMI found after all", noPMI, 4, false},
		{"XPMPI_MPI=0: separate jobs on purpose", with("XPMPI_MPI", "0"), 1, false},
		{"srun --mpi=pmix: checkLauncher's case", with("PMIX_RANK", "1"), 1, false},
		{"a batch script: no step", map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "4"}, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := launch.DetectWith(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			err := checkSlurmStep(d, c.world, "MPICH")
			if (err != nil) != c.refuse {
				t.Fatalf("err %v, want a refusal: %v", err, c.refuse)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, ErrLauncherMismatch) {
				t.Errorf("%v is not ErrLauncherMismatch", err)
			}
			for _, w := range []string{"4 tasks", "--mpi=pmix", "--mpi=pmi2", "XPMPI_MPI=0"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}
