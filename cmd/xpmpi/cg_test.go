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
	n := 24
	if testing.Short() {
		n = 8 // fewer iterations, each a few collectives
	}
	side := strconv.Itoa(n)
	cmd.SetArgs([]string{"--n", side, "--tol", "1e-9"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	res, err := cg.Solve(world, cg.Config{N: n, Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Iters
	for _, want := range []string{"cg: " + side + " x " + side + " interior", "time to solution", "relative residual", "checksum", "ranks"} {
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
	cmd.SetArgs([]string{"--n", side, "--maxiter", "2"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "no convergence") {
		t.Fatalf("2 iterations: error %v", err)
	}
}

// TestCGSolverFlag: --solver takes xpmpi or petsc, checked before any
// output; petsc in a binary built without it says how to rebuild.
func TestCGSolverFlag(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "cg", "--n", "8", "--solver", "trilinos"}, `--solver "trilinos": want xpmpi or petsc`},
		{[]string{"run", "cg", "--n", "8", "--petsc", "-ksp_type cg"}, "--petsc without --solver petsc"},
		{[]string{"run", "cg", "--n", "8", "--solver", "petsc", "--reproducible"}, "--reproducible with --solver petsc"},
	}
	if petscVersion() == "" {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"run", "cg", "--n", "8", "--solver", "petsc"}, "rebuild with go build -tags mpi,petsc"})
	}
	for _, c := range cases {
		out, _, err := execute(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || out != "" {
			t.Errorf("%v: error %v, output %q; want %q before any output", c.args, err, out, c.want)
		}
	}
}
