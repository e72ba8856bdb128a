package main

import (
	"bytes"
	"errors"
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
