package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/solvers/cg"
)

func TestCGCommand(t *testing.T) {
	world := mpitest.World(t)
	cmd := newCGCmd(world)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--n", "24", "--tol", "1e-9"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	res, err := cg.Solve(world, cg.Config{N: 24, Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Iters
	for _, want := range []string{"cg: 24 x 24 interior", "time to solution", "relative residual", "checksum", "ranks"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(out.String(), "iterations "+strconv.Itoa(k)+"\n") {
		t.Fatalf("output does not say %d iterations:\n%s", k, out.String())
	}
	// Too few iterations: an error.
	cmd = newCGCmd(world)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--n", "24", "--maxiter", "2"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "no convergence") {
		t.Fatalf("2 iterations: error %v", err)
	}
}
