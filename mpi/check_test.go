package mpi_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func withChecking(t *testing.T) {
	prev := mpi.SetChecking(true)
	t.Cleanup(func() { mpi.SetChecking(prev) })
}

func TestCheckingPasses(t *testing.T) {
	c := mpitest.World(t)
	withChecking(t)
	buf := []float64{1, 2}
	if err := mpi.AllreduceInPlace(c, buf, mpi.Sum); err != nil {
		t.Fatal(err)
	}
	if err := mpi.Bcast(c, buf, c.Size()-1); err != nil {
		t.Fatal(err)
	}
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckingMismatch(t *testing.T) {
	c := mpitest.World(t)
	if c.Size() < 2 {
		t.Skip("a mismatch needs two ranks")
	}
	withChecking(t)
	last := c.Size() - 1
	buf := []float64{1}
	var err error
	if c.Rank() == last {
		err = mpi.Bcast(c, buf, 0)
	} else {
		err = mpi.AllreduceInPlace(c, buf, mpi.Sum)
	}
	var me *mpi.MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("rank %d: error %v, want a mismatch", c.Rank(), err)
	}
	want := fmt.Sprintf("rank %d called Bcast(datatype float64, count 1, root 0), rank 0 called Allreduce", last)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	// Same call, different root.
	err = mpi.Bcast(c, buf, c.Rank()%2)
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "rank 1 called Bcast(datatype float64, count 1, root 1)") {
		t.Fatalf("different roots: %v", err)
	}
	// A user-level check names the user's calls.
	name := "Sum"
	if c.Rank() == 1 {
		name = "Dot"
	}
	err = mpi.CheckCollective(c, name)
	if err == nil || !strings.Contains(err.Error(), "rank 1 called Dot, rank 0 called Sum") {
		t.Fatalf("CheckCollective: %v", err)
	}
}

func TestAgree(t *testing.T) {
	c := mpitest.World(t)
	if err := mpi.Agree(c, nil); err != nil {
		t.Fatalf("Agree with no failure: %v", err)
	}
	var local error
	if c.Rank() == c.Size()-1 {
		local = errors.New("disk full")
	}
	err := mpi.Agree(c, local)
	var re *mpi.RankError
	if !errors.As(err, &re) || len(re.Ranks) != 1 || re.Ranks[0] != c.Size()-1 {
		t.Fatalf("rank %d: Agree = %v", c.Rank(), err)
	}
	if want := fmt.Sprintf("failed on rank %d: disk full", c.Size()-1); err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
	// Failures on every rank are listed in order.
	err = mpi.Agree(c, fmt.Errorf("bad %d", c.Rank()))
	if !errors.As(err, &re) || len(re.Ranks) != c.Size() || re.Msgs[0] != "bad 0" {
		t.Fatalf("Agree on every rank: %v", err)
	}
}
