package mpi

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/xpmpi/xpmpi/launch"
)

var world struct {
	mu        sync.Mutex
	comm      Comm
	err       error
	finalized bool
	nodeRank  int
	nodeSize  int
	warning   string
}

// ErrNeedMPIBuild is returned by Init in a binary built without the mpi tag
// that was started by a launcher with more than one rank.
var ErrNeedMPIBuild = fmt.Errorf("mpi: this binary was built without MPI support but was started by an MPI launcher with several ranks; each rank would run alone as rank 0 of 1. Rebuild with -tags mpi (go build -tags mpi ...)")

// Init starts MPI, once, and returns the world communicator. Later calls
// return the same communicator, or the same error.
//
// In the default build the world is the serial stand-in, unless a launcher
// started several ranks, where Init returns ErrNeedMPIBuild. In either build,
// where MPI's world size differs from the number of ranks the launcher says
// it started (package launch), Init ends MPI and returns an error that
// matches ErrLauncherMismatch, on every rank. XPMPI_MPI=0 turns both checks
// off and prints a warning to standard error, once per process.
func Init() (Comm, error) {
	world.mu.Lock()
	defer world.mu.Unlock()
	if world.comm != nil || world.err != nil {
		return world.comm, world.err
	}
	if world.finalized {
		return nil, errorf("Init", "MPI was finalized and cannot start again")
	}
	d := launch.Detect()
	c, err := initWorld()
	if err != nil {
		world.err = err
		return nil, err
	}
	warnOverrideOnce(os.Stderr, d, c.Rank(), c.Size())
	impl, version, _ := libraryInfo()
	err = checkLauncher(d, c.Size(), impl, version)
	if err == nil {
		err = checkSlurmStep(d, c.Size(), impl)
	}
	if err != nil {
		// Every rank of the launcher's job sees the same mismatch and ends
		// its own MPI (a one-rank world, usually) without waiting for
		// another.
		_ = finalize()
		world.err, world.finalized = err, true
		return nil, err
	}
	c = wrap(c)
	world.comm = c
	world.nodeRank, world.nodeSize = 0, 1
	if node, err := c.SplitShared(); err == nil && node != nil {
		world.nodeRank, world.nodeSize = node.Rank(), node.Size()
		node.Free()
	}
	if d.Launched && world.nodeRank != d.LocalRank {
		world.warning = fmt.Sprintf("the launcher's local rank %d differs from MPI's node rank %d; MPI's is used", d.LocalRank, world.nodeRank)
	}
	return c, nil
}

// World returns the world communicator. It panics if Init has not succeeded.
func World() Comm {
	world.mu.Lock()
	defer world.mu.Unlock()
	if world.comm == nil {
		panic("mpi: World called before a successful Init")
	}
	return world.comm
}

// Initialized reports whether Init has succeeded and Finalize has not run.
func Initialized() bool {
	world.mu.Lock()
	defer world.mu.Unlock()
	return world.comm != nil
}

// NodeRank returns the rank of this process among the ranks of its node and
// the number of ranks there, from a shared-memory split of the world, once
// Init has run; before, it returns the launcher's launch.LocalRank and
// launch.LocalSize.
func NodeRank() (rank, size int) {
	world.mu.Lock()
	defer world.mu.Unlock()
	if world.comm == nil {
		d := launch.Detect()
		return d.LocalRank, d.LocalSize
	}
	return world.nodeRank, world.nodeSize
}

// NodeRankWarning returns a note if the launcher's local rank disagreed with
// MPI's, or "".
func NodeRankWarning() string {
	world.mu.Lock()
	defer world.mu.Unlock()
	return world.warning
}

// Finalize shuts MPI down. Every rank must call it, after its last MPI call.
func Finalize() error {
	world.mu.Lock()
	defer world.mu.Unlock()
	if world.comm == nil {
		return nil
	}
	world.comm = nil
	world.finalized = true
	return finalize()
}

// Info describes the MPI library in use.
type Info struct {
	Implementation string // "serial stand-in", "Open MPI", "MPICH", ...
	Version        string // the library's version string
	ThreadLevel    string // the thread level granted
	// WaitMode is how the binding waits for MPI, from Init: "block" (in
	// MPI's blocking calls) or "sleep" (testing, with naps between
	// tests); see the package documentation, Waiting. "n/a" in the
	// default build.
	WaitMode string
}

// LibraryInfo describes the MPI library this binary was built with.
func LibraryInfo() Info {
	impl, version, level := libraryInfo()
	return Info{Implementation: impl, Version: version, ThreadLevel: level, WaitMode: libraryWaitMode()}
}

// LibraryCUDAAware returns the MPI library's own answer to whether it takes
// device memory: MPIX_Query_cuda_support where the library's mpi-ext.h
// provides it (Open MPI). known is false where the library cannot say, and
// in the serial stand-in. It is one source of the answer that package
// staging decides with (staging.CUDAAware), after an explicit setting and
// before a recorded probe; Init's choice of wait mode reads it alone.
func LibraryCUDAAware() (aware, known bool) { return libraryCUDAAware() }

// AbortOnPanic, deferred at the top of a rank's main goroutine, turns a
// panic into an abort of the whole job: it prints the panic, the rank and the
// stack to standard error and calls c.Abort(2), so that no other rank is left
// waiting in a collective. With no panic it does nothing. c may be nil
// before Init, in which case the process exits.
//
//	defer mpi.AbortOnPanic(world)
func AbortOnPanic(c Comm) {
	r := recover()
	if r == nil {
		return
	}
	rank, size := 0, 1
	if c != nil {
		rank, size = c.Rank(), c.Size()
	}
	fmt.Fprintf(os.Stderr, "xpmpi: panic on rank %d of %d: %v\n\n%s\nxpmpi: rank %d aborts the job\n", rank, size, r, debug.Stack(), rank)
	if c == nil {
		os.Exit(2)
	}
	c.Abort(2)
}

// Main is the entry point of an xpmpi program: it starts MPI, runs f with the
// world communicator, and finalizes. A panic in f on any rank aborts the
// whole job with the panic text and the rank; an error from f is printed with
// the rank, and on more than one rank aborts the job with exit code 1 (the
// other ranks may be waiting for this one); a *StopError (ErrStopped),
// which every rank returns, ends the job without an abort and with
// ExitStopped. It returns the process exit code:
//
//	func main() { os.Exit(mpi.Main(run)) }
func Main(f func(world Comm) error) int {
	c, err := Init()
	if err != nil {
		fmt.Fprintf(os.Stderr, "xpmpi: %v\n", err)
		return 1
	}
	code := run(c, f)
	if err := Finalize(); err != nil && code == 0 {
		fmt.Fprintf(os.Stderr, "xpmpi: rank %d: %v\n", c.Rank(), err)
		code = 1
	}
	return code
}

func run(c Comm, f func(Comm) error) int {
	defer AbortOnPanic(c)
	err := f(c)
	if watchdogPassed() {
		// The watchdog ends the job with code 3 (by an abort, or by exiting
		// itself): a job past its time limit never exits 0.
		for {
			time.Sleep(time.Second)
		}
	}
	if errors.Is(err, ErrStopped) {
		// A stop is collective (StopRequested): every rank returns it,
		// and the job ends without an abort.
		if c.Rank() == 0 {
			fmt.Fprintf(os.Stderr, "xpmpi: %v (exit %d)\n", err, ExitStopped)
		}
		return ExitStopped
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "xpmpi: rank %d: %v\n", c.Rank(), err)
		if c.Size() > 1 {
			// Other ranks may be waiting for this one in a collective: only an
			// abort is sure to end them.
			c.Abort(1)
		}
		return 1
	}
	return 0
}
