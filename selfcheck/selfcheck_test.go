package selfcheck_test

import (
	"errors"
	"fmt"
	_ "github.com/xpmpi/xpmpi/backend/cpu" // the CPU backend, which a program registers by importing it
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/selfcheck"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// TestChecksPass runs every check on the world and on every smaller rank
// count the world can be split into: ranks below k form one communicator
// and the others another, and both run the checks at once. Under mpirun at
// 1 to 4 ranks that covers each rank count several times over.
func TestChecksPass(t *testing.T) {
	world := mpitest.World(t)
	for k := 1; k <= world.Size(); k++ {
		color := 0
		if world.Rank() >= k {
			color = 1
		}
		sub, err := world.Split(color, world.Rank())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := selfcheck.Run(sub, selfcheck.Options{})
		ok := err == nil && rep.Passed == len(selfcheck.Checks()) && rep.Failed == 0 && rep.Ranks == sub.Size()
		for i, c := range selfcheck.Checks() {
			ok = ok && rep.Checks[i].Name == c.Name && rep.Checks[i].Result == "pass"
		}
		mpitest.Check(t, world, ok, "split %d of %d: %d ranks: %v: %+v", k, world.Size(), sub.Size(), err, rep)
		if err := sub.Free(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFailedCheckIsReported runs a check that fails on the last rank only:
// every rank reports it failed, naming that rank, and the checks after it
// still run.
func TestFailedCheckIsReported(t *testing.T) {
	world := mpitest.World(t)
	last := world.Size() - 1
	checks := []selfcheck.Check{
		{Name: "fails on the last rank", Run: func(c mpi.Comm) error {
			if c.Rank() == last {
				return errors.New("wrong answer")
			}
			return nil
		}},
		selfcheck.Checks()[0],
	}
	rep, err := selfcheck.Run(world, selfcheck.Options{Checks: checks})
	var failed *selfcheck.FailedError
	ok := errors.As(err, &failed) && failed.Failed == 1 && failed.Total == 2 &&
		rep.Failed == 1 && rep.Passed == 1 && len(rep.Checks) == 2 &&
		rep.Checks[0].Result == "FAIL" &&
		rep.Checks[0].Error == fmt.Sprintf("failed on rank %d: wrong answer", last) &&
		rep.Checks[1].Result == "pass"
	mpitest.Check(t, world, ok, "%v: %+v", err, rep)
}

// TestFaultIsReported injects the faults that return rather than end the
// job on each rank in turn: every rank returns the error, which names the
// rank.
func TestFaultIsReported(t *testing.T) {
	world := mpitest.World(t)
	for r := 0; r < world.Size(); r++ {
		rep, err := selfcheck.Run(world, selfcheck.Options{Fault: "collective-error", Rank: r})
		var re *mpi.RankError
		ok := errors.As(err, &re) && len(re.Ranks) == 1 && re.Ranks[0] == r &&
			strings.Contains(err.Error(), fmt.Sprintf("failed on rank %d: injected failure", r)) &&
			len(rep.Checks) == 0
		mpitest.Check(t, world, ok, "collective-error on rank %d: %v", r, err)
		if world.Size() < 2 {
			continue // one rank cannot call a different collective than another
		}
		_, err = selfcheck.Run(world, selfcheck.Options{Fault: "mismatch", Rank: r})
		var me *mpi.MismatchError
		ok = errors.As(err, &me) && strings.Contains(err.Error(), fmt.Sprintf("rank %d called Dot", r))
		mpitest.Check(t, world, ok, "mismatch on rank %d: %v", r, err)
	}
}

// TestBadOptions: an unknown fault, a rank outside the job and a negative
// timeout are errors on every rank before anything is injected.
func TestBadOptions(t *testing.T) {
	world := mpitest.World(t)
	for _, c := range []struct {
		opts selfcheck.Options
		want string
	}{
		{selfcheck.Options{Fault: "explode"}, `selfcheck: fault "explode": want one of panic, collective-error, mismatch, hang`},
		{selfcheck.Options{Fault: "panic", Rank: world.Size()}, fmt.Sprintf("selfcheck: rank %d is not a rank of this job of %d", world.Size(), world.Size())},
		{selfcheck.Options{Fault: "hang", Rank: -1}, fmt.Sprintf("selfcheck: rank -1 is not a rank of this job of %d", world.Size())},
		{selfcheck.Options{Timeout: -1}, "selfcheck: timeout -1ns: want a positive duration (0: no limit)"},
	} {
		_, err := selfcheck.Run(world, c.opts)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.opts, err, c.want)
		}
	}
}

func TestFaultNames(t *testing.T) {
	if got := strings.Join(selfcheck.FaultNames(), " "); got != "panic collective-error mismatch hang" {
		t.Errorf("FaultNames: %s", got)
	}
	for _, f := range selfcheck.Faults() {
		if f.Help == "" {
			t.Errorf("fault %s has no help", f.Name)
		}
	}
}
