package dist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// How Save and SaveCheckpoint write files.
//
// Two write paths produce the same file:
//
//   - MPI-IO: the ranks open the file together and write their blocks with
//     collective calls (independent ones for strided runs), as parallel file
//     systems prefer.
//   - POSIX: rank 0 creates the file at its final size and writes the
//     header; then every rank opens it with ordinary file I/O and writes its
//     own byte ranges with pwrite. It needs a file system on which every
//     rank sees the same file (a local one, or a POSIX-shared one).
//
// XPMPI_IO=posix or XPMPI_IO=mpiio chooses; by default a job whose ranks
// are all on one node writes with POSIX I/O and any other job with MPI-IO.
// Load, LoadInto and checkpoint reads take the same path (pread, or
// MPI-IO's collective reads), so that on one node a read is one copy out
// of the page cache.
// The POSIX path exists because a library's success code cannot be
// trusted: Open MPI 4.1's MPI-IO prints a failed pwrite and still returns
// MPI_SUCCESS, and with three ranks its collective write can hang after
// one. Whatever the path, every rank then reads back what it wrote and
// compares it with memory (see verifier), so a lost write is an error on
// every rank, never a file that looks complete.

// ioPath is a way of writing a file.
type ioPath int

const (
	ioDefault ioPath = iota // by XPMPI_IO, else by where the ranks are
	ioMPI                   // MPI-IO
	ioPOSIX                 // ordinary file I/O on every rank
)

func (p ioPath) String() string {
	switch p {
	case ioMPI:
		return "mpiio"
	case ioPOSIX:
		return "posix"
	}
	return "default"
}

// ioOverride is the write path tests force (ioDefault: none).
var ioOverride ioPath

// WritePathFromEnv returns the write path XPMPI_IO chooses for saves:
// "posix", "mpiio", or "" where it is unset (each save then picks by where
// the ranks are), and an error naming the variable for any other value.
func WritePathFromEnv() (string, error) {
	switch v := strings.TrimSpace(os.Getenv("XPMPI_IO")); strings.ToLower(v) {
	case "posix":
		return "posix", nil
	case "mpiio", "mpi-io", "mpi":
		return "mpiio", nil
	case "":
		return "", nil
	default:
		return "", fmt.Errorf("XPMPI_IO=%q: want posix or mpiio (unset: posix when every rank is on one node)", v)
	}
}

// writePath returns the write path for the ranks of c: the same on every
// rank as long as XPMPI_IO is.
func writePath(c mpi.Comm) (ioPath, error) {
	if ioOverride != ioDefault {
		return ioOverride, nil
	}
	switch v, err := WritePathFromEnv(); {
	case err != nil:
		return ioDefault, err
	case v == "posix":
		return ioPOSIX, nil
	case v == "mpiio":
		return ioMPI, nil
	}
	if c.Size() == 1 || !mpi.Initialized() {
		return ioPOSIX, nil
	}
	if _, n := mpi.NodeRank(); n == mpi.World().Size() {
		return ioPOSIX, nil
	}
	return ioMPI, nil
}

// eachRun calls f with each run of the data file that this rank of l
// writes (and verifies): its byte offset in the data and its elements in
// host, in increasing order of offset.
func eachRun[T backend.Numeric](l Layout, rank int, host []T, f func(off int64, run []T) error) error {
	size := int64(unsafe.Sizeof(*new(T)))
	if lo, hi, ok := l.flatRange(rank); ok {
		data := host
		if l.axis == Replicated {
			data = host[lo:hi]
		}
		if len(data) == 0 {
			return nil
		}
		return f(int64(lo)*size, data)
	}
	var err error
	start, shape := l.box(rank)
	boxRuns(make([]int, len(l.shape)), l.shape, start, shape, func(globalOff, packedOff, n int) {
		if err == nil {
			err = f(int64(globalOff)*size, host[packedOff:packedOff+n])
		}
	})
	return err
}

// writePOSIX writes the runs of this rank to the file at path, which rank
// 0 has made at its final size, with ordinary file I/O, and syncs it.
func writePOSIX[T backend.Numeric](path string, l Layout, rank int, host []T, dataOff int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := faultWriter(f)
	err = eachRun(l, rank, host, func(off int64, run []T) error {
		b := asBytes(run)
		for len(b) > 0 {
			n := min(len(b), ioChunkBytes)
			if _, err := w.WriteAt(b[:n], dataOff+off); err != nil {
				return err
			}
			b, off = b[n:], off+int64(n)
		}
		return nil
	})
	return firstErr(err, f.Sync(), f.Close())
}

// createSized creates (or truncates) the file at path with the given size
// and writes head at its start (rank 0's part of both write paths).
func createSized(path string, size int64, head []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err = f.Truncate(size); err == nil && len(head) > 0 {
		_, err = faultWriter(f).WriteAt(head, 0)
	}
	return firstErr(err, f.Close())
}

// verifyBuf is the size of the buffer that verification reads through
// where the file cannot be mapped.
const verifyBuf = 4 << 20

// verifier reads back from a file what one rank wrote and compares it with
// the data in memory, byte for byte, and folds the file's bytes into a
// CRC-32C (see crcSum), so that a checkpoint's checksum comes from what
// reached the file, not from memory. A byte comparison is strictly
// stronger than comparing CRCs, and says where the file differs.
//
// Where it can, it maps the file read-only and compares the page cache's
// bytes where they lie (a third less time than copying them out through a
// buffer first, for a 512 MiB file); bytes beyond the mapping (a file
// shorter than what was written) and files that cannot be mapped are read
// with ReadAt.
type verifier struct {
	f    *os.File
	path string
	m    []byte // the file's first len(m) bytes, mapped; nil if not mapped
	buf  []byte // for ReadAt, made at its first use
	need int64  // the bytes this rank reads back at most (the buffer's size)
	crc  crcSum
}

func newVerifier(path string, need int64) (*verifier, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	v := &verifier{f: f, path: path, need: need}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		v.m = mapFile(f, st.Size())
	}
	return v, nil
}

// check compares the file's bytes at fileOff with mem; sumOff is where
// they go in the checksum (their offset in the data), or -1 for none.
func (v *verifier) check(fileOff, sumOff int64, mem []byte) error {
	if fileOff >= 0 && fileOff+int64(len(mem)) <= int64(len(v.m)) {
		return v.checkMapped(fileOff, sumOff, mem)
	}
	if v.buf == nil {
		v.buf = make([]byte, max(1, min(v.need, verifyBuf)))
	}
	for len(mem) > 0 {
		n := min(len(mem), len(v.buf))
		got, err := v.f.ReadAt(v.buf[:n], fileOff)
		if got < n {
			if err == nil || errors.Is(err, io.EOF) {
				return fmt.Errorf("%s ends at byte %d, before the end (%d) of what this rank wrote: the write was lost although it was reported as done", v.path, fileOff+int64(got), fileOff+int64(len(mem)))
			}
			return fmt.Errorf("reading back %s at byte %d: %w", v.path, fileOff, err)
		}
		if err := v.compare(fileOff, sumOff, v.buf[:n], mem[:n]); err != nil {
			return err
		}
		if sumOff >= 0 {
			sumOff += int64(n)
		}
		mem, fileOff = mem[n:], fileOff+int64(n)
	}
	return nil
}

// checkMapped is check on the mapped bytes. A file that another process
// shortens while it is read faults (SIGBUS) at the first page past its new
// end; that fault comes back as an error, not a crash of the job.
func (v *verifier) checkMapped(fileOff, sumOff int64, mem []byte) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			err = fmt.Errorf("reading back %s: the file became shorter while it was read (%v): another process changed it", v.path, r)
		}
	}()
	return v.compare(fileOff, sumOff, v.m[fileOff:fileOff+int64(len(mem))], mem)
}

// compare compares got, the file's bytes at fileOff, with mem, and adds
// them to the checksum at sumOff (unless sumOff < 0).
func (v *verifier) compare(fileOff, sumOff int64, got, mem []byte) error {
	if !bytes.Equal(got, mem) {
		i := 0
		for got[i] == mem[i] {
			i++
		}
		return fmt.Errorf("the bytes of %s at offset %d differ from the data written there: the write was lost or damaged although it was reported as done", v.path, fileOff+int64(i))
	}
	if sumOff >= 0 {
		v.crc.add(sumOff, got)
	}
	return nil
}

// close syncs the file through the reading handle too (on Linux an fsync
// reports a write-back error that no one has seen yet, whichever handle
// made the write), unmaps it and closes it.
func (v *verifier) close() error {
	err := v.f.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.EBADF) {
		err = nil // file systems that cannot sync a read-only handle
	}
	if err != nil {
		err = fmt.Errorf("sync of %s: %w", v.path, err)
	}
	return firstErr(err, v.release())
}

// release unmaps and closes the file, without the sync.
func (v *verifier) release() error {
	err := unmapFile(v.m)
	v.m = nil
	return firstErr(err, v.f.Close())
}

// verifyWritten reads back what this rank of l wrote to path (rank 0 also
// the header, and the file's size) and compares it with memory. With sum,
// it returns this rank's part of the checksum of the data as read.
func verifyWritten[T backend.Numeric](path string, l Layout, rank int, host []T, header []byte, total int64) (crcSum, error) {
	dataOff := int64(len(header))
	v, err := newVerifier(path, total)
	if err != nil {
		return crcSum{}, err
	}
	if rank == 0 {
		if st, err := v.f.Stat(); err != nil {
			return crcSum{}, firstErr(err, v.release())
		} else if st.Size() != total {
			v.release()
			return crcSum{}, fmt.Errorf("%s has %d bytes after the write, not %d", path, st.Size(), total)
		}
		if err := v.check(0, -1, header); err != nil {
			v.release()
			return crcSum{}, err
		}
	}
	err = eachRun(l, rank, host, func(off int64, run []T) error {
		return v.check(dataOff+off, off, asBytes(run))
	})
	if err != nil {
		v.release()
		return crcSum{}, err
	}
	return v.crc, v.close()
}

// Fault injection for the fault suite: the same variables as the
// LD_PRELOAD library tests/testdata/failwrite, so that one test setting
// makes the C library's writes (MPI-IO) and the POSIX path's writes fail
// alike on one rank.
//
//	XPMPI_FAILWRITE_RANK   the rank (in the world communicator) whose
//	                       writes fail
//	XPMPI_FAILWRITE_ERRNO  EIO (default) or ENOSPC
//	XPMPI_FAILWRITE_MATCH  only files whose path ends with this (default .npy)
//
// Without XPMPI_FAILWRITE_RANK nothing changes.
var failWrite = sync.OnceValue(func() func(path string) error {
	r, ok := os.LookupEnv("XPMPI_FAILWRITE_RANK")
	if !ok {
		return nil
	}
	want, err := strconv.Atoi(strings.TrimSpace(r))
	me := 0
	if mpi.Initialized() {
		me = mpi.World().Rank()
	}
	if err != nil || want != me {
		return nil
	}
	errno := syscall.EIO
	if os.Getenv("XPMPI_FAILWRITE_ERRNO") == "ENOSPC" {
		errno = syscall.ENOSPC
	}
	match := os.Getenv("XPMPI_FAILWRITE_MATCH")
	if match == "" {
		match = ".npy"
	}
	return func(path string) error {
		if strings.HasSuffix(path, match) {
			return errno
		}
		return nil
	}
})

// writerAt is what the POSIX path writes through.
type writerAt interface {
	WriteAt(b []byte, off int64) (int, error)
}

// Hooks for the package's own tests, which make one rank's writes fail or
// vanish in process: nil outside tests.
var (
	testWrapPOSIX func(path string, w writerAt) writerAt
	testWrapMPI   func(f mpi.File) mpi.File
)

// faultWriter returns f, or a writer whose writes fail where the fault
// injection variables say.
func faultWriter(f *os.File) writerAt {
	var w writerAt = f
	if fail := failWrite(); fail != nil {
		if err := fail(f.Name()); err != nil {
			w = failingWriter{f.Name(), err}
		}
	}
	if testWrapPOSIX != nil {
		w = testWrapPOSIX(f.Name(), w)
	}
	return w
}

type failingWriter struct {
	path string
	err  error
}

func (w failingWriter) WriteAt(b []byte, off int64) (int, error) {
	return 0, &os.PathError{Op: "write", Path: w.path, Err: w.err}
}
