package selfcheck

import (
	"fmt"
	"strings"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Fault is a fault that Run can inject on one rank, with what it shows.
type Fault struct {
	Name string
	Help string
}

// Faults lists the faults of Options.Fault.
func Faults() []Fault {
	return []Fault{
		{"panic", "rank R panics: the job aborts with the panic and the rank"},
		{"collective-error", "rank R fails inside a collective: every rank returns the same error, naming rank R"},
		{"mismatch", "rank R calls a different collective (checking mode on): every rank reports which call each made"},
		{"hang", "rank R never enters a collective: the watchdog (--timeout, default 5s with this fault) aborts the job, each rank naming the collective it is in"},
	}
}

// FaultNames returns the names of Faults, in order.
func FaultNames() []string {
	var names []string
	for _, f := range Faults() {
		names = append(names, f.Name)
	}
	return names
}

// inject makes rank r misbehave in the chosen way, inside a sequence of
// collectives that the other ranks follow normally. The injected panic's
// message, "selftest: injected panic on rank R", is what `xpmpi selftest`
// has always printed.
func inject(comm mpi.Comm, fault string, r int) error {
	me := comm.Rank()
	if err := comm.Barrier(); err != nil {
		return err
	}
	switch fault {
	case "panic":
		if me == r {
			panic(fmt.Sprintf("selftest: injected panic on rank %d", r))
		}
		_, err := mpi.AllreduceValue(comm, 1.0, mpi.Sum)
		return err
	case "collective-error":
		var local error
		if me == r {
			local = fmt.Errorf("injected failure (as if a file would not open)")
		}
		return mpi.Agree(comm, local)
	case "mismatch":
		prev := mpi.SetChecking(true)
		defer mpi.SetChecking(prev)
		x, err := dist.Full(comm, []int{16}, 1.0)
		if err != nil {
			return err
		}
		if me == r {
			_, err = dist.Dot(x, x)
		} else {
			_, err = dist.Sum(x)
		}
		return err
	case "hang":
		if me == r {
			select {} // never joins the allreduce below
		}
		_, err := mpi.AllreduceValue(comm, 1.0, mpi.Sum)
		return err
	}
	return fmt.Errorf("selfcheck: fault %q: want one of %s", fault, strings.Join(FaultNames(), ", "))
}
