package mpi

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/launch"
)

func detect(env map[string]string) launch.Info {
	return launch.DetectWith(func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	})
}

func TestCheckLauncher(t *testing.T) {
	ompi := map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2"}
	hydra := map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALRANKID": "0"}
	with := func(env map[string]string, k, v string) map[string]string {
		out := map[string]string{}
		for a, b := range env {
			out[a] = b
		}
		out[k] = v
		return out
	}
	cases := []struct {
		name    string
		env     map[string]string
		world   int
		impl    string
		version string
		want    []string // substrings of the error; nil: no error
	}{
		{"no launcher", nil, 1, "Open MPI", "Open MPI v4.1.4", nil},
		{"Open MPI under its own mpirun", ompi, 2, "Open MPI", "Open MPI v4.1.4", nil},
		{"MPICH under hydra", hydra, 2, "MPICH", "MPICH Version:\t4.0.2", nil},
		{"MPICH binary under Open MPI's mpirun", ompi, 1, "MPICH", "MPICH Version:\t4.0.2",
			[]string{"links MPICH (MPICH Version: 4.0.2)", "Open MPI's mpirun", "OMPI_COMM_WORLD_SIZE=2", "its rank 1",
				"world of 1 rank where the launcher started 2", "separate one-rank job", "mpiexec.mpich", "go build -tags mpi)"}},
		{"Open MPI binary under hydra", hydra, 1, "Open MPI", "Open MPI v4.1.4, package: Debian OpenMPI",
			[]string{"links Open MPI (Open MPI v4.1.4, package: Debian OpenMPI)", "MPICH's hydra mpiexec", "PMI_SIZE=2",
				"world of 1 rank", "mpirun.openmpi", "-tags mpi,mpich"}},
		{"a world of another size, same library", with(ompi, "OMPI_COMM_WORLD_SIZE", "4"), 2, "Open MPI", "",
			[]string{"world of 2 ranks where the launcher started 4", "mpirun.openmpi"}},
		{"Slurm: no library to suggest", map[string]string{"SLURM_PROCID": "0", "SLURM_STEP_ID": "0", "SLURM_NTASKS": "3", "PMIX_RANK": "0"},
			1, "Open MPI", "", []string{"Slurm's srun", "SLURM_NTASKS=3", "mpirun.openmpi"}},
		{"XPMPI_MPI=0 turns the check off", with(ompi, "XPMPI_MPI", "0"), 1, "MPICH", "", nil},
		{"a launcher that does not say its size", map[string]string{"PMIX_RANK": "0"}, 1, "MPICH", "", nil},
		{"a garbage size is no size", with(hydra, "PMI_SIZE", "lots"), 1, "Open MPI", "", nil},
		{"XPMPI_MPI=1 alone", map[string]string{"XPMPI_MPI": "1"}, 1, "Open MPI", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkLauncher(detect(c.env), c.world, c.impl, c.version)
			if c.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrLauncherMismatch) {
				t.Errorf("errors.Is(err, ErrLauncherMismatch) is false: %v", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "mpi: ") {
				t.Errorf("the message does not start with the package name: %s", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the message lacks %q: %s", w, msg)
				}
			}
		})
	}
}

func TestOverrideWarning(t *testing.T) {
	ompi := map[string]string{"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "XPMPI_MPI": "0"}
	msg := overrideWarning(detect(ompi), 0, 1)
	for _, w := range []string{"mpi: warning: XPMPI_MPI=0", "Open MPI's mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE=2", "rank 0 of 1"} {
		if !strings.Contains(msg, w) {
			t.Errorf("the warning lacks %q: %q", w, msg)
		}
	}
	for name, env := range map[string]map[string]string{
		"no launcher":            {"XPMPI_MPI": "0"},
		"no override":            {"OMPI_COMM_WORLD_RANK": "1"},
		"XPMPI_MPI=1":            {"OMPI_COMM_WORLD_RANK": "1", "XPMPI_MPI": "1"},
		"XPMPI_MPI garbage":      {"OMPI_COMM_WORLD_RANK": "1", "XPMPI_MPI": "off"},
		"batch script variables": {"SLURM_PROCID": "0", "SLURM_NTASKS": "4", "XPMPI_MPI": "0"},
	} {
		if w := overrideWarning(detect(env), 0, 1); w != "" {
			t.Errorf("%s: warning %q, want none", name, w)
		}
	}
}

// TestOverrideWarningOnce checks that the warning is printed once however
// often it is asked for. It uses the process's sync.Once: where Init has
// already warned (a test binary run with XPMPI_MPI=0 under a launcher),
// nothing more may be printed either.
func TestOverrideWarningOnce(t *testing.T) {
	d := detect(map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALRANKID": "0", "XPMPI_MPI": "0"})
	var buf bytes.Buffer
	for range 3 {
		warnOverrideOnce(&buf, d, 0, 1)
	}
	if n := strings.Count(buf.String(), "XPMPI_MPI=0"); n > 1 {
		t.Fatalf("the warning was printed %d times:\n%s", n, buf.String())
	}
	if launch.Detect().Overridden || buf.Len() > 0 {
		return // Init may have used the Once already
	}
	t.Fatal("the warning was never printed")
}
