package launch_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/launch"
)

// TestSlurmStep checks what an srun step's variables give: the local size
// from SLURM_STEP_TASKS_PER_NODE at SLURM_NODEID, the node name and the
// step's task count (which a step without PMI has too).
func TestSlurmStep(t *testing.T) {
	step := func(spec, node string, more ...string) map[string]string {
		env := map[string]string{"SLURM_PROCID": "0", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "4",
			"SLURM_STEP_TASKS_PER_NODE": spec, "SLURM_NODEID": node, "SLURMD_NODENAME": "h" + node, "PMIX_RANK": "0"}
		for i := 0; i+1 < len(more); i += 2 {
			env[more[i]] = more[i+1]
		}
		return env
	}
	cases := []struct {
		name      string
		env       map[string]string
		localSize int
		node      string
		tasks     int
		ignored   string // a variable Ignored must name, or ""
	}{
		{"2 x 2, node 0", step("2(x2)", "0"), 2, "h0", 4, ""},
		{"2 x 2, node 1", step("2(x2)", "1"), 2, "h1", 4, ""},
		{"3,1 node 1", step("3,1", "1"), 1, "h1", 4, ""},
		{"2(x3),1 node 2", step("2(x3),1", "2"), 2, "h2", 4, ""},
		{"2(x3),1 node 3", step("2(x3),1", "3"), 1, "h3", 4, ""},
		{"a node past the list", step("2(x2)", "2"), 1, "h2", 4, "SLURM_STEP_TASKS_PER_NODE"},
		{"garbage", step("2(y2)", "0"), 1, "h0", 4, "SLURM_STEP_TASKS_PER_NODE"},
		{"zero tasks", step("0,4", "0"), 1, "h0", 4, "SLURM_STEP_TASKS_PER_NODE"},
		{"the launcher's own local size wins", step("2(x2)", "0", "MPI_LOCALNRANKS", "3"), 3, "h0", 4, ""},
		{"a batch script: no step", map[string]string{"SLURM_PROCID": "0", "SLURM_NODEID": "0",
			"SLURM_TASKS_PER_NODE": "2(x2)", "SLURMD_NODENAME": "h1"}, 1, "h1", 0, ""},
		{"srun --mpi=none: no PMI, the step's tasks", map[string]string{"SLURM_PROCID": "2", "SLURM_STEP_ID": "0",
			"SLURM_STEP_NUM_TASKS": "4", "SLURM_STEP_TASKS_PER_NODE": "2(x2)", "SLURM_NODEID": "1"}, 2, "", 4, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := launch.DetectWith(lookup(c.env))
			if d.LocalSize != c.localSize || d.Node != c.node || d.SlurmTasks != c.tasks {
				t.Errorf("local size %d, node %q, step tasks %d; want %d, %q, %d",
					d.LocalSize, d.Node, d.SlurmTasks, c.localSize, c.node, c.tasks)
			}
			got := strings.Join(d.Ignored, "; ")
			if (c.ignored == "") != (got == "") || !strings.Contains(got, c.ignored) {
				t.Errorf("Ignored %q, want one naming %q", got, c.ignored)
			}
		})
	}
}
