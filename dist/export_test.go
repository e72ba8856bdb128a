package dist

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// NPCompare is npCompare, NumPy's sort order (NaNs last), for the tests.
func NPCompare[T backend.Element](a, b T) int { return npCompare(a, b) }

// Write faults that the tests inject on one rank.
const (
	FaultNone  = iota
	FaultLie   // writes report success and write nothing
	FaultError // writes fail with EIO
)

// InjectWriteFault makes the writes of rank r of c (of every file) fault
// as kind says, on both write paths, until restore is called. It is not
// collective; every rank calls it with the same arguments.
func InjectWriteFault(c mpi.Comm, r, kind int) (restore func()) {
	if c.Rank() == r && kind != FaultNone {
		testWrapPOSIX = func(path string, w writerAt) writerAt { return faultyWriter{w, path, kind} }
		testWrapMPI = func(f mpi.File) mpi.File { return &faultyFile{File: f, kind: kind} }
	}
	return func() { testWrapPOSIX, testWrapMPI = nil, nil }
}

// SetWritePath forces the write path ("posix", "mpiio", or "" for the
// default) until restore is called.
func SetWritePath(p string) (restore func()) {
	old := ioOverride
	switch p {
	case "posix":
		ioOverride = ioPOSIX
	case "mpiio":
		ioOverride = ioMPI
	case "":
		ioOverride = ioDefault
	default:
		panic("SetWritePath " + p)
	}
	return func() { ioOverride = old }
}

// SetMinRunBytes sets the shortest run written in place, until restore.
func SetMinRunBytes(n int) (restore func()) {
	old := minRunBytes
	minRunBytes = n
	return func() { minRunBytes = old }
}

// UnlockCheckpointDirs releases this process's checkpoint locks.
func UnlockCheckpointDirs() { unlockCheckpointDirs() }

// LockCheckpointDir takes the lock of a checkpoint directory.
func LockCheckpointDir(dir string) error { return lockCheckpointDir(dir) }

type faultyWriter struct {
	w    writerAt
	path string
	kind int
}

func (f faultyWriter) WriteAt(b []byte, off int64) (int, error) {
	if f.kind == FaultLie {
		return len(b), nil
	}
	return 0, fmt.Errorf("write %s: %w", f.path, syscall.EIO)
}

// faultyFile still takes part in every collective call, with nothing to
// write, so that the other ranks do not wait for it.
type faultyFile struct {
	mpi.File
	kind int
}

func (f *faultyFile) WriteAtAll(off int64, buf unsafe.Pointer, count int, dt mpi.Datatype) error {
	err := f.File.WriteAtAll(0, buf, 0, dt)
	if f.kind == FaultLie || err != nil {
		return err
	}
	return fmt.Errorf("File_write_at_all: %w", syscall.EIO)
}

func (f *faultyFile) WriteAt(off int64, buf unsafe.Pointer, count int, dt mpi.Datatype) error {
	if f.kind == FaultLie {
		return nil
	}
	return fmt.Errorf("File_write_at: %w", syscall.EIO)
}

// SetSelectionLimits sets the number of candidates at which a distributed
// selection (Quantile and its kin) gathers them, the size of its first
// round's sample (whatever its share of the elements) and the bracket's
// slack in standard deviations, until
// restore is called: small limits make small arrays take every path of the
// selection. Every rank calls it with the same arguments.
func SetSelectionLimits(gather, sample int64, slack float64) (restore func()) {
	g, s, sl, sh := gatherLimit, sampleSize, sampleSlack, sampleShare
	gatherLimit, sampleSize, sampleSlack, sampleShare = gather, sample, slack, 1
	return func() { gatherLimit, sampleSize, sampleSlack, sampleShare = g, s, sl, sh }
}

// SelectionMisses returns how many first rounds of a selection have
// missed (their bracket held not the positions sought) in this process.
func SelectionMisses() int { return bracketMisses }
