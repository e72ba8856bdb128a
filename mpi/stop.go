package mpi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ExitStopped is the exit code of a program that stopped on request
// (StopRequested, StopError) after saving its state: 75, EX_TEMPFAIL of
// sysexits.h, "try again later". Main returns it when f returns a
// *StopError. A batch system can requeue on it: Slurm's RequeueExit=75 in
// slurm.conf requeues a batch job that exits with it, and the job's
// script then restarts from the checkpoint.
const ExitStopped = 75

// ErrStopped is what a *StopError is (errors.Is): the run stopped on
// request, not on a failure.
var ErrStopped = errors.New("mpi: stopped on request")

// StopError is the error of a run that stopped because StopRequested said
// so, after saving what it needs to go on. It is the same on every rank.
type StopError struct {
	Step       int64         // the step the saved state is at
	Reason     string        // what asked for the stop ("SIGUSR1 on rank 2", ...)
	Checkpoint string        // where the state was saved
	Saved      time.Duration // how long the save took (slowest rank)
}

func (e *StopError) Error() string {
	return fmt.Sprintf("stopped at step %d on request (%s): checkpoint %s written in %.3g s; restart from it",
		e.Step, e.Reason, e.Checkpoint, e.Saved.Seconds())
}

// Is reports whether target is ErrStopped.
func (e *StopError) Is(target error) bool { return target == ErrStopped }

var stopState struct {
	mu      sync.Mutex
	reason  string
	pending atomic.Bool
	ch      chan os.Signal
}

// NotifyStop makes the signals sigs (SIGTERM and SIGUSR1 if none are
// given) requests to stop: a signal no longer ends the process but marks a
// stop pending on this rank, which StopRequested reports to every rank at
// the next call. Slurm sends SIGTERM at a job's time limit and on
// preemption (then SIGKILL after KillWait seconds), and the signal of
// sbatch --signal=USR1@SECONDS (or scancel --signal=USR1) that long before
// the limit. It returns a function that restores the signals' default
// handling. A second call adds its signals to the first's.
func NotifyStop(sigs ...os.Signal) (restore func()) {
	if len(sigs) == 0 {
		sigs = []os.Signal{syscall.SIGTERM, syscall.SIGUSR1}
	}
	stopState.mu.Lock()
	if stopState.ch == nil {
		stopState.ch = make(chan os.Signal, 4)
		go func(ch chan os.Signal) {
			for s := range ch {
				RequestStop(signalName(s))
			}
		}(stopState.ch)
	}
	ch := stopState.ch
	stopState.mu.Unlock()
	signal.Notify(ch, sigs...)
	return func() { signal.Reset(sigs...) }
}

// RequestStop marks a stop pending on this rank, as a signal given to
// NotifyStop does; reason says why (the first reason is kept). It needs no
// other rank.
func RequestStop(reason string) {
	stopState.mu.Lock()
	if !stopState.pending.Load() {
		stopState.reason = reason
		stopState.pending.Store(true)
	}
	stopState.mu.Unlock()
}

// StopPending reports whether a stop is pending on this rank, and why.
func StopPending() (bool, string) {
	stopState.mu.Lock()
	defer stopState.mu.Unlock()
	return stopState.pending.Load(), stopState.reason
}

// StopRequested is collective over c: it reports on every rank whether a
// stop is pending on any rank (a signal that reached one rank only stops
// them all), and the reason, with the rank of the first rank that has one.
// Call it at a point where every rank can save its state, such as the end of
// an iteration, then save, and return a *StopError (Main exits with
// ExitStopped):
//
//	mpi.NotifyStop()
//	for it := 0; it < n; it++ {
//		step()
//		if stop, why, err := mpi.StopRequested(world); err != nil {
//			return err
//		} else if stop {
//			save(it + 1)
//			return &mpi.StopError{Step: int64(it + 1), Reason: why, Checkpoint: dir}
//		}
//	}
//
// It costs one small allreduce; a pending stop one more.
func StopRequested(c Comm) (bool, string, error) {
	pending, reason := StopPending()
	none, err := AllTrue(c, !pending)
	if err != nil || none {
		return false, "", err
	}
	// Who has a reason: the lowest such rank tells the others.
	who := int32(c.Size())
	if pending {
		who = int32(c.Rank())
	}
	first, err := AllreduceValue(c, who, Min)
	if err != nil {
		return false, "", err
	}
	b := make([]byte, 64)
	copy(b, reason)
	if err := BcastBytes(c, b, int(first)); err != nil {
		return false, "", err
	}
	return true, fmt.Sprintf("%s on rank %d", bytes.TrimRight(b, "\x00"), first), nil
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGUSR2:
		return "SIGUSR2"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// clearStop forgets a pending stop (for tests).
func clearStop() {
	stopState.mu.Lock()
	stopState.pending.Store(false)
	stopState.reason = ""
	stopState.mu.Unlock()
}

// ClearStopForTest forgets a pending stop, so that a test can run again
// after a stop it asked for. Programs have no use for it: a stopped run
// ends the process.
func ClearStopForTest() { clearStop() }
