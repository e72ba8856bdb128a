//go:build mpi

package tests

import (
	"fmt"
	"testing"
	"time"
)

// TestReadmeExampleMPI builds the README's example with -tags mpi and runs
// it under mpirun at 1 and 4 ranks: rank 0 alone prints the sum its comment
// promises, the same at every rank count.
func TestReadmeExampleMPI(t *testing.T) {
	t.Parallel() // see doc.go
	mpirun(t)    // skips, with the reason, where there is no launcher
	prog, sum := buildReadmeExample(t, "mpi")
	for _, np := range []int{1, 4} {
		t.Run(fmt.Sprintf("np%d", np), func(t *testing.T) {
			r := launch(t, time.Minute, np, prog)
			if r.code != 0 {
				r.fail(t, "the README's example at %d ranks failed", np)
				return
			}
			if want := "sum: " + sum + "\n"; r.stdout != want {
				r.fail(t, "the README's example at %d ranks printed %q, its comment promises %q", np, r.stdout, want)
			}
		})
	}
}
