package launch_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/launch"
)

// lookup is an environment of exactly the variables in env.
func lookup(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
}

func TestDetect(t *testing.T) {
	type want struct {
		kind       launch.Kind
		launched   bool
		overridden bool
		variable   string
		rank, size int
		sizeVar    string
		local      [2]int // local rank, local size
		ignored    []string
	}
	none := want{kind: launch.None, rank: -1, local: [2]int{0, 1}}
	cases := []struct {
		name string
		env  map[string]string
		want want
	}{
		{"empty", nil, none},
		{"Open MPI, as mpirun -np 2 sets it",
			map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
				"OMPI_COMM_WORLD_LOCAL_SIZE": "2", "PMIX_RANK": "1", "PMIX_NAMESPACE": "711327745"},
			want{launch.OpenMPI, true, false, "OMPI_COMM_WORLD_RANK", 1, 2, "OMPI_COMM_WORLD_SIZE", [2]int{1, 2}, nil}},
		{"MPICH hydra, as mpiexec.mpich -np 3 sets it",
			map[string]string{"PMI_RANK": "2", "PMI_SIZE": "3", "PMI_FD": "6", "HYDI_CONTROL_FD": "7",
				"MPI_LOCALRANKID": "2", "MPI_LOCALNRANKS": "3"},
			want{launch.Hydra, true, false, "PMI_RANK", 2, 3, "PMI_SIZE", [2]int{2, 3}, nil}},
		{"hydra seen by its local rank alone",
			map[string]string{"MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"},
			want{launch.Hydra, true, false, "MPI_LOCALRANKID", -1, 0, "", [2]int{1, 2}, nil}},
		{"srun --mpi=pmi2 step",
			map[string]string{"SLURM_PROCID": "5", "SLURM_STEP_ID": "0", "SLURM_NTASKS": "8", "SLURM_STEP_NUM_TASKS": "8",
				"SLURM_LOCALID": "1", "PMI_RANK": "5", "PMI_SIZE": "8", "PMI_FD": "4"},
			want{launch.Slurm, true, false, "SLURM_PROCID", 5, 8, "SLURM_STEP_NUM_TASKS", [2]int{1, 1}, nil}},
		{"srun --mpi=pmix step, SLURM_NTASKS only",
			map[string]string{"SLURM_PROCID": "0", "SLURM_STEP_ID": "2", "SLURM_NTASKS": "4", "PMIX_RANK": "0"},
			want{launch.Slurm, true, false, "SLURM_PROCID", 0, 4, "SLURM_NTASKS", [2]int{0, 1}, nil}},
		{"a batch script: Slurm variables but no MPI step",
			map[string]string{"SLURM_PROCID": "3", "SLURM_NTASKS": "16", "SLURM_LOCALID": "1"},
			want{launch.None, false, false, "", -1, 0, "", [2]int{1, 1}, nil}},
		{"a non-MPI srun step",
			map[string]string{"SLURM_PROCID": "3", "SLURM_STEP_ID": "1", "SLURM_NTASKS": "4"},
			want{launch.None, false, false, "", -1, 0, "", [2]int{0, 1}, nil}},
		{"mpirun inside an srun allocation: Open MPI's variables win",
			map[string]string{"SLURM_PROCID": "0", "SLURM_STEP_ID": "0", "SLURM_NTASKS": "64", "PMIX_RANK": "3",
				"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4"},
			want{launch.OpenMPI, true, false, "OMPI_COMM_WORLD_RANK", 3, 4, "OMPI_COMM_WORLD_SIZE", [2]int{0, 1}, nil}},
		{"hydra bootstrapped by Slurm: hydra's variables win",
			map[string]string{"SLURM_PROCID": "1", "SLURM_STEP_ID": "0", "SLURM_NTASKS": "2",
				"PMI_RANK": "6", "PMI_SIZE": "8", "MPI_LOCALRANKID": "2", "MPI_LOCALNRANKS": "4"},
			want{launch.Hydra, true, false, "PMI_RANK", 6, 8, "PMI_SIZE", [2]int{2, 4}, nil}},
		{"PMIx without Open MPI's variables",
			map[string]string{"PMIX_RANK": "0", "PMIX_SIZE": "2"},
			want{launch.PMIx, true, false, "PMIX_RANK", 0, 2, "PMIX_SIZE", [2]int{0, 1}, nil}},
		{"a bare PMI server",
			map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2", "PMI_LOCAL_RANK": "1"},
			want{launch.PMI, true, false, "PMI_RANK", 1, 2, "PMI_SIZE", [2]int{1, 1}, nil}},
		{"MVAPICH",
			map[string]string{"MV2_COMM_WORLD_RANK": "0", "MV2_COMM_WORLD_SIZE": "2", "MV2_COMM_WORLD_LOCAL_RANK": "0", "MV2_COMM_WORLD_LOCAL_SIZE": "2"},
			want{launch.MVAPICH, true, false, "MV2_COMM_WORLD_RANK", 0, 2, "MV2_COMM_WORLD_SIZE", [2]int{0, 2}, nil}},
		{"PALS",
			map[string]string{"PALS_RANKID": "7", "PALS_LOCAL_RANKID": "3", "PMI_SIZE": "8"},
			want{launch.PALS, true, false, "PALS_RANKID", 7, 8, "PMI_SIZE", [2]int{3, 1}, nil}},
		{"ALPS",
			map[string]string{"ALPS_APP_PE": "2", "PMI_SIZE": "4"},
			want{launch.ALPS, true, false, "ALPS_APP_PE", 2, 4, "PMI_SIZE", [2]int{0, 1}, nil}},
		{"XPMPI_MPI=0 under Open MPI",
			map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "XPMPI_MPI": "0"},
			want{launch.OpenMPI, false, true, "OMPI_COMM_WORLD_RANK", 1, 2, "OMPI_COMM_WORLD_SIZE", [2]int{0, 1}, nil}},
		{"XPMPI_MPI=no under hydra",
			map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALRANKID": "0", "XPMPI_MPI": " no "},
			want{launch.Hydra, false, true, "PMI_RANK", 0, 2, "PMI_SIZE", [2]int{0, 1}, nil}},
		{"XPMPI_MPI=1 alone",
			map[string]string{"XPMPI_MPI": "1", "LOCAL_RANK": "3", "LOCAL_WORLD_SIZE": "4"},
			want{launch.Unknown, true, true, "", -1, 0, "", [2]int{3, 4}, nil}},
		{"XPMPI_MPI=true under Open MPI keeps the kind",
			map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "1", "XPMPI_MPI": "TRUE"},
			want{launch.OpenMPI, true, true, "OMPI_COMM_WORLD_RANK", 0, 1, "OMPI_COMM_WORLD_SIZE", [2]int{0, 1}, nil}},

		// Garbage.
		{"XPMPI_MPI garbage is ignored",
			map[string]string{"XPMPI_MPI": "maybe", "PMIX_RANK": "0"},
			want{launch.PMIx, true, false, "PMIX_RANK", 0, 0, "", [2]int{0, 1}, []string{"XPMPI_MPI"}}},
		{"empty and blank values count as not set",
			map[string]string{"OMPI_COMM_WORLD_RANK": "", "PMI_RANK": "  ", "XPMPI_MPI": "", "OMPI_COMM_WORLD_LOCAL_RANK": ""},
			none},
		{"unparsable size: the launcher is seen, its size is not",
			map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "two"},
			want{launch.OpenMPI, true, false, "OMPI_COMM_WORLD_RANK", 0, 0, "", [2]int{0, 1}, []string{"OMPI_COMM_WORLD_SIZE"}}},
		{"zero and negative sizes are not sizes",
			map[string]string{"PMI_RANK": "0", "MPI_LOCALRANKID": "0", "PMI_SIZE": "0", "MPI_LOCALNRANKS": "-2"},
			want{launch.Hydra, true, false, "PMI_RANK", 0, 0, "", [2]int{0, 1}, []string{"PMI_SIZE", "MPI_LOCALNRANKS"}}},
		{"a size too big for an int",
			map[string]string{"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "99999999999999999999999"},
			want{launch.OpenMPI, true, false, "OMPI_COMM_WORLD_RANK", 0, 0, "", [2]int{0, 1}, []string{"OMPI_COMM_WORLD_SIZE"}}},
		{"hex, floats and trailing junk are not integers",
			map[string]string{"OMPI_COMM_WORLD_RANK": "0x1", "OMPI_COMM_WORLD_SIZE": "2.0", "OMPI_COMM_WORLD_LOCAL_RANK": "1abc", "OMPI_COMM_WORLD_LOCAL_SIZE": "2 ranks"},
			want{launch.OpenMPI, true, false, "OMPI_COMM_WORLD_RANK", -1, 0, "", [2]int{0, 1},
				[]string{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}}},
		{"a negative local rank falls through to the next variable",
			map[string]string{"PMI_RANK": "0", "MPI_LOCALRANKID": "-1", "PMI_LOCAL_RANK": "3", "OMPI_COMM_WORLD_LOCAL_SIZE": "x", "PMI_LOCAL_SIZE": "4"},
			want{launch.Hydra, true, false, "PMI_RANK", 0, 0, "", [2]int{3, 4}, []string{"MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_SIZE"}}},
		{"surrounding blanks and a plus sign are accepted",
			map[string]string{"OMPI_COMM_WORLD_RANK": " 1\n", "OMPI_COMM_WORLD_SIZE": "+3 "},
			want{launch.OpenMPI, true, false, "OMPI_COMM_WORLD_RANK", 1, 3, "OMPI_COMM_WORLD_SIZE", [2]int{0, 1}, nil}},
		{"Slurm's size falls through a garbage SLURM_STEP_NUM_TASKS",
			map[string]string{"SLURM_PROCID": "0", "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "", "SLURM_NTASKS": "n/a", "PMI_RANK": "0", "PMI_SIZE": "2"},
			want{launch.Slurm, true, false, "SLURM_PROCID", 0, 2, "PMI_SIZE", [2]int{0, 1}, []string{"SLURM_NTASKS"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := launch.DetectWith(lookup(c.env))
			w := c.want
			if d.Kind != w.kind || d.Launched != w.launched || d.Overridden != w.overridden {
				t.Errorf("Kind %v, Launched %v, Overridden %v; want %v, %v, %v", d.Kind, d.Launched, d.Overridden, w.kind, w.launched, w.overridden)
			}
			if d.Variable != w.variable {
				t.Errorf("Variable %q, want %q", d.Variable, w.variable)
			}
			if d.Rank != w.rank || d.Size != w.size || d.SizeVariable != w.sizeVar {
				t.Errorf("Rank %d, Size %d from %q; want %d, %d from %q", d.Rank, d.Size, d.SizeVariable, w.rank, w.size, w.sizeVar)
			}
			if d.LocalRank != w.local[0] || d.LocalSize != w.local[1] {
				t.Errorf("local rank %d of %d, want %d of %d", d.LocalRank, d.LocalSize, w.local[0], w.local[1])
			}
			if len(d.Ignored) != len(w.ignored) {
				t.Fatalf("Ignored %q, want entries for %q", d.Ignored, w.ignored)
			}
			for i, name := range w.ignored {
				if !strings.HasPrefix(d.Ignored[i], name+"=") {
					t.Errorf("Ignored[%d] = %q, want one for %s", i, d.Ignored[i], name)
				}
			}
		})
	}
}

// TestProcessEnvironment checks that the functions without arguments read
// the process's environment, each time.
func TestProcessEnvironment(t *testing.T) {
	for _, v := range []string{
		"XPMPI_MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
		"OMPI_COMM_WORLD_LOCAL_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "PMIX_SIZE", "MV2_COMM_WORLD_RANK",
		"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
		"HYDI_CONTROL_FD", "ALPS_APP_PE", "PALS_RANKID", "PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE", "SLURM_PROCID",
		"SLURM_STEP_ID", "SLURM_LOCALID", "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
	} {
		t.Setenv(v, "") // restored after the test; empty counts as not set
	}
	if launch.Launched() || launch.Which() != launch.None || launch.Variable() != "" ||
		launch.LocalRank() != 0 || launch.LocalSize() != 1 || launch.Size() != 0 {
		t.Fatalf("a clean environment: %+v", launch.Detect())
	}
	t.Setenv("OMPI_COMM_WORLD_RANK", "2")
	t.Setenv("OMPI_COMM_WORLD_SIZE", "4")
	t.Setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0")
	t.Setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2")
	if !launch.Launched() || launch.Which() != launch.OpenMPI || launch.Variable() != "OMPI_COMM_WORLD_RANK" ||
		launch.LocalRank() != 0 || launch.LocalSize() != 2 || launch.Size() != 4 {
		t.Fatalf("under Open MPI: %+v", launch.Detect())
	}
	t.Setenv("XPMPI_MPI", "0")
	if launch.Launched() || launch.Which() != launch.OpenMPI {
		t.Fatalf("XPMPI_MPI=0 under Open MPI: %+v", launch.Detect())
	}
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for k := launch.None; k <= launch.Unknown; k++ {
		s := k.String()
		if s == "" || strings.HasPrefix(s, "launch.Kind(") || seen[s] {
			t.Errorf("Kind %d: String %q (empty, generic or repeated)", int(k), s)
		}
		seen[s] = true
	}
	if s := launch.Kind(99).String(); s != "launch.Kind(99)" {
		t.Errorf("Kind(99).String() = %q", s)
	}
	for k, lib := range map[launch.Kind]string{launch.OpenMPI: "Open MPI", launch.Hydra: "MPICH", launch.Slurm: "", launch.None: ""} {
		if got := k.Library(); got != lib {
			t.Errorf("%v.Library() = %q, want %q", k, got, lib)
		}
	}
}
