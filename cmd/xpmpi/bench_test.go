package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestBenchNeedsMPIBuild(t *testing.T) {
	if mpi.Built {
		t.Skip("the mpi build runs the bench")
	}
	world := mpitest.World(t)
	root := newRoot(world)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"bench", "--small", "--reps", "1"})
	err := root.Execute()
	if !errors.Is(err, bench.ErrNeedsMPI) {
		t.Fatalf("error %v", err)
	}
	const msg = "xpmpi bench needs the mpi build (go build -tags mpi) and the reference library (scripts/bench.sh builds both)"
	if err.Error() != msg {
		t.Fatalf("message %q", err)
	}
	if out.Len() != 0 {
		t.Fatalf("printed %q", out.String())
	}
}

// TestBenchBaselineFlagsOneFile: --write-baseline and --add-baseline-run
// on one file (by another spelling of its path, or a link to it) are
// refused before the bench runs and leave the file as it was; on two files
// they pass the check and reach the bench (in the default build, whose
// refusal says so).
func TestBenchBaselineFlagsOneFile(t *testing.T) {
	world := mpitest.World(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.json")
	const content = "{}\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.json")
	for _, c := range []struct {
		write, add string
		refused    bool
	}{
		{path, path, true},
		{path, dir + "/./baseline.json", true}, // Join would clean the "."
		{path, link, true},
		{other, other, true}, // neither exists yet
		{path, other, false},
	} {
		if !c.refused && mpi.Built {
			continue // the mpi build would run the bench and write the files
		}
		root := newRoot(world)
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs([]string{"bench", "--small", "--reps", "1", "--quiet", "--write-baseline", c.write, "--add-baseline-run", c.add})
		err := root.Execute()
		refused := err != nil && strings.Contains(err.Error(), "name the same file")
		if refused != c.refused {
			t.Errorf("--write-baseline %s --add-baseline-run %s: error %v, want refused %v", c.write, c.add, err, c.refused)
		}
		if !c.refused && !errors.Is(err, bench.ErrNeedsMPI) {
			t.Errorf("--write-baseline %s --add-baseline-run %s: error %v, want the bench's own", c.write, c.add, err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != content {
			t.Fatalf("the baseline is now %q (%v), was %q", got, err, content)
		}
	}
}
