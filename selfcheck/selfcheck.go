package selfcheck

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/xpmpi/xpmpi/mpi"
)

// Check is one self-check. Run is collective over the communicator it is
// given: every rank calls it, and it returns an error on the ranks where
// the result is wrong (Run agrees on it).
type Check struct {
	Name string
	Run  func(comm mpi.Comm) error
}

// Checks lists the self-checks in the order Run runs them. Each works at any
// rank count, one included.
func Checks() []Check {
	return []Check{
		{"barrier", func(c mpi.Comm) error { return c.Barrier() }},
		{"bcast", checkBcast},
		{"allreduce", checkAllreduce},
		{"reduce", checkReduce},
		{"gather/allgather", checkGather},
		{"gatherv/scatterv", checkGatherv},
		{"alltoall(v)", checkAlltoall},
		{"sendrecv ring", checkRing},
		{"isend/irecv", checkNonblocking},
		{"split", checkSplit},
		{"checking mode", checkMismatchDetection},
		{"halo exchange", checkHalo},
		{"redistribute", checkRedistribute},
		{"distributed sort", checkSort},
	}
}

// Options says what Run does. The zero value runs every check of Checks
// with no time limit.
type Options struct {
	// Checks are the checks to run; nil means Checks().
	Checks []Check
	// Fault, if not empty, is the name of a fault of Faults to inject on
	// rank Rank instead of running the checks.
	Fault string
	// Rank is the rank where Fault happens.
	Rank int
	// Timeout, if positive, starts mpi.StartWatchdog for the duration of
	// Run: a job still in Run after Timeout is aborted, each rank naming
	// the collective it is in. The fault "hang" ends only so.
	Timeout time.Duration
}

// Result is one row of a Report: one check's agreed result.
type Result struct {
	Name   string  `json:"name"`
	Result string  `json:"result"` // pass or FAIL
	Millis float64 `json:"ms,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// Report is what Run returns: one Result per check, in order, and the
// counts. Its JSON form is what `xpmpi selftest --json` prints.
type Report struct {
	Checks []Result `json:"checks"`
	Passed int      `json:"passed"`
	Failed int      `json:"failed"`
	Ranks  int      `json:"ranks"`
}

// FailedError is Run's error when some checks failed; the Report says which.
type FailedError struct {
	Failed, Total int
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("selfcheck: %d of %d checks failed", e.Failed, e.Total)
}

// Run runs the checks (opts.Checks, or every check of Checks) on every rank
// of comm, agrees on each result, and returns the Report, the same on every
// rank but for the times. Its error is a *FailedError if any check failed
// on any rank, so that every rank returns it.
//
// With opts.Fault set, Run injects that fault on rank opts.Rank instead and
// returns what it led to on this rank with an empty Report: the error every
// rank agreed on ("collective-error"), the *mpi.MismatchError of the
// checking mode ("mismatch"), an abort of the whole job ("panic"; "hang"
// with opts.Timeout). An unknown fault, or a rank not in comm, is an error
// on every rank before anything is injected.
//
// Run is collective over comm. The checks "checking mode" and the fault
// "mismatch" turn the process-wide checking mode (mpi.SetChecking) on for
// their duration, so Run must not run concurrently with other collectives
// on this process.
func Run(comm mpi.Comm, opts Options) (Report, error) {
	if opts.Fault != "" {
		if !slices.Contains(FaultNames(), opts.Fault) {
			return Report{}, fmt.Errorf("selfcheck: fault %q: want one of %s", opts.Fault, strings.Join(FaultNames(), ", "))
		}
		if opts.Rank < 0 || opts.Rank >= comm.Size() {
			return Report{}, fmt.Errorf("selfcheck: rank %d is not a rank of this job of %d", opts.Rank, comm.Size())
		}
	}
	if opts.Timeout < 0 {
		return Report{}, fmt.Errorf("selfcheck: timeout %v: want a positive duration (0: no limit)", opts.Timeout)
	}
	if opts.Timeout > 0 {
		stop, err := mpi.StartWatchdog(comm, opts.Timeout)
		if err != nil {
			return Report{}, err
		}
		defer stop()
	}
	if opts.Fault != "" {
		return Report{}, inject(comm, opts.Fault, opts.Rank)
	}
	checks := opts.Checks
	if checks == nil {
		checks = Checks()
	}
	rep := Report{Ranks: comm.Size()}
	for _, c := range checks {
		start := time.Now()
		err := mpi.Agree(comm, c.Run(comm))
		d := time.Since(start)
		if err != nil {
			rep.Failed++
			rep.Checks = append(rep.Checks, Result{Name: c.Name, Result: "FAIL", Error: err.Error()})
		} else {
			rep.Passed++
			rep.Checks = append(rep.Checks, Result{Name: c.Name, Result: "pass", Millis: d.Seconds() * 1e3})
		}
	}
	if rep.Failed > 0 {
		return rep, &FailedError{Failed: rep.Failed, Total: len(checks)}
	}
	return rep, nil
}
