//go:build hdf5 && mpi && !mpich

package h5

// #include <stdlib.h>
// #include "xp_h5.h"
import "C"

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"github.com/xpmpi/xpmpi/mpi"
)

// Reading and writing without collective HDF5 calls.
//
// Every writer of this package (Save, SaveCheckpoint, CreateGroup,
// SetAttrs) keeps every rank out of HDF5's collective calls, because a
// collective write that fails on one rank hangs the others: with HDF5's
// MPI-IO driver and collective transfers, a write that failed on one rank
// (Open MPI 4.1, EIO on rank 0 of 3) left the other ranks waiting inside
// HDF5 forever, and HDF5's collective metadata writes at H5Fflush and
// H5Fclose are the same kind of call. Instead every HDF5 file is opened by
// one rank at a time with HDF5's default (POSIX, serial) driver, and
// every step that can fail on some ranks only is followed by mpi.Agree,
// which cannot hang: every rank reaches it whatever its own step did.
//
//   - The file's structure (the file, groups, the dataset, attributes) is
//     made by rank 0 alone, which closes and syncs the file before the
//     others touch it.
//   - Contiguous datasets (the default; no Chunks, no Gzip) are made with
//     their storage allocated at creation, nothing written; the ranks learn
//     where the data lies and write their parts themselves (writeParts):
//     pwrite where every rank is on one node, independent MPI-IO writes
//     across nodes (XPMPI_IO chooses), then every rank reads back its part
//     through a handle of its own and compares it with memory. This is the
//     checkpoints' path; it measured as fast as the collective transfer it
//     replaces, within a loaded machine's noise (docs/FORMATS.md).
//   - Chunked and compressed datasets (Chunks, Gzip, or a dataset already
//     in the file that is not contiguous) are written by the ranks in turn
//     (writeTurns): rank r opens the file with the serial driver, writes
//     its hyperslab through HDF5 (which compresses its chunks, and reads,
//     merges and rewrites a chunk that an earlier rank wrote part of),
//     closes and syncs the file, and mpi.Agree passes the turn on (or
//     stops every rank with r's error). Parallel HDF5 writes filtered data
//     only collectively, and writing the compressed chunks ourselves would
//     mean doing HDF5's chunk index: the turns cost the parallelism of the
//     compression and of the write (the ranks compress one after another,
//     and a chunk that two ranks share is compressed twice), never a hang.
//     Then every rank opens the file read-only and reads its hyperslab
//     back, all at once.
//
// Readers (Load, LoadInto, ReadAttrs, LoadCheckpointArray) open the file
// on every rank at once, read-only, each on its own with the serial
// driver, and each reads its own hyperslab: a read that fails on one rank
// is that rank's error, agreed. With HDF5's collective reads, a read of a
// contiguous dataset's data that failed on rank 0 of 3 (pread failing
// with EIO under LD_PRELOAD) left the other ranks waiting inside HDF5,
// as the writes did. Every rank reads the file's metadata itself (HDF5's
// MPI-IO driver had rank 0 read it and broadcast it): more small reads at
// large rank counts.
//
// What this asks of the file system: that a rank's writes, closed and
// synced, are seen by the next rank's open on another node (POSIX file
// systems, NFS's close-to-open consistency, Lustre, GPFS), and, for
// HDF5's file locking, flock (or HDF5_USE_FILE_LOCKING=FALSE).

// dset is a dataset that the ranks write.
type dset struct {
	name  string // its path, "/fields/u"
	dt    backend.DType
	shape []int
	off   int64 // the byte offset of its contiguous storage; -1: none
}

// hostBlock is this rank's part of an array, in host memory, as bytes.
type hostBlock struct {
	data     []byte // the rank's block (all of it for a replicated array)
	size     int    // bytes per element
	memshape []int  // data's shape
	memstart []int  // where the rank's part lies in data
	start    []int  // where it lies in the global array
	count    []int  // its extent
	shape    []int  // the global array's shape
}

// runs calls f with each run of b's part along the last axis, merged
// where the part spans whole trailing axes: its byte offset in the global
// array's data and its bytes, in increasing order of offset.
func (b hostBlock) runs(f func(off int64, p []byte) error) error {
	nd := len(b.count)
	for _, k := range b.count {
		if k == 0 {
			return nil
		}
	}
	// Axes from inner that the part spans whole, in memory and globally,
	// make one run.
	inner := nd - 1
	run := b.count[nd-1]
	for inner > 0 && b.count[inner] == b.shape[inner] && b.memshape[inner] == b.shape[inner] {
		inner--
		run *= b.count[inner]
	}
	idx := make([]int, nd)
	for {
		moff, goff := int64(0), int64(0)
		for a := 0; a < nd; a++ {
			moff = moff*int64(b.memshape[a]) + int64(b.memstart[a]+idx[a])
			goff = goff*int64(b.shape[a]) + int64(b.start[a]+idx[a])
		}
		sz := int64(b.size)
		if err := f(goff*sz, b.data[moff*sz:(moff+int64(run))*sz]); err != nil {
			return err
		}
		a := inner - 1
		for ; a >= 0; a-- {
			idx[a]++
			if idx[a] < b.count[a] {
				break
			}
			idx[a] = 0
		}
		if a < 0 {
			return nil
		}
	}
}

// bcastOffsets gives every rank rank 0's offsets of ds.
func bcastOffsets(c mpi.Comm, ds []dset) error {
	offs := make([]int64, len(ds))
	for i := range ds {
		offs[i] = ds[i].off
	}
	if err := mpi.Bcast(c, offs, 0); err != nil {
		return err
	}
	for i := range ds {
		ds[i].off = offs[i]
	}
	return nil
}

// writeParts writes every rank's part (blocks[i]) of each contiguous
// dataset ds[i] into its storage, allocated at ds[i].off, syncs the file,
// and reads the parts back, comparing them with memory and folding them
// into sums (where not nil). It returns the failed step ("write" or
// "verify") and its error, the same on every rank, naming the rank and the
// dataset. No HDF5 call: the file is closed.
func writeParts(c mpi.Comm, path string, ds []dset, blocks []hostBlock, sums []crc32c.Sum) (string, error) {
	wp, err := dist.WritePathFromEnv()
	if err := mpi.Agree(c, err); err != nil {
		return "write", err
	}
	if wp == "" {
		wp = "posix"
		if _, n := mpi.NodeRank(); c.Size() > 1 && n != mpi.World().Size() {
			wp = "mpiio"
		}
	}
	// The package's tests make one rank's write fail here.
	var hookErr error
	for _, d := range ds {
		if testWriteError != nil && hookErr == nil {
			if err := testWriteError(c, d.name); err != nil {
				hookErr = fmt.Errorf("dataset %s: %w", d.name, err)
			}
		}
	}
	if wp == "posix" {
		err = writePOSIX(path, ds, blocks)
		err = mpi.Agree(c, firstErr(err, hookErr))
	} else {
		err = writeMPIIO(c, path, ds, blocks, hookErr)
	}
	if err != nil {
		return "write", err
	}
	if testAfterWrite != nil {
		testAfterWrite(c, path)
	}
	if err := mpi.Agree(c, verifyRuns(path, ds, blocks, sums)); err != nil {
		return "verify", err
	}
	return "", nil
}

// writePOSIX writes this rank's runs of every array with pwrite calls and
// syncs the file.
func writePOSIX(path string, ds []dset, blocks []hostBlock) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := faultWriter(f)
	for i, b := range blocks {
		if ds[i].off < 0 {
			continue
		}
		err = b.runs(func(off int64, p []byte) error {
			_, err := w.WriteAt(p, ds[i].off+off)
			return err
		})
		if err != nil {
			f.Close()
			return fmt.Errorf("dataset %s: %w", ds[i].name, err)
		}
	}
	return firstErr(f.Sync(), f.Close())
}

// writeMPIIO writes this rank's runs of every array with independent
// MPI-IO writes and syncs the file; its error is agreed.
func writeMPIIO(c mpi.Comm, path string, ds []dset, blocks []hostBlock, hookErr error) error {
	f, err := mpi.OpenFile(c, path, mpi.WriteOnly)
	if err := mpi.Agree(c, err); err != nil {
		return err
	}
	var werr error
	for i, b := range blocks {
		if ds[i].off < 0 || werr != nil {
			continue
		}
		werr = b.runs(func(off int64, p []byte) error {
			for len(p) > 0 {
				n := min(len(p), 1<<30)
				if err := f.WriteAt(ds[i].off+off, unsafe.Pointer(&p[0]), n, mpi.Byte); err != nil {
					return err
				}
				p, off = p[n:], off+int64(n)
			}
			return nil
		})
		if werr != nil {
			werr = fmt.Errorf("dataset %s: %w", ds[i].name, werr)
		}
	}
	err = mpi.Agree(c, firstErr(werr, hookErr))
	if err == nil {
		err = mpi.Agree(c, f.Sync())
	}
	return firstErr(err, mpi.Agree(c, f.Close()))
}

// verifyRuns reads back this rank's runs of every dataset through a file
// handle of its own, compares them with memory, and folds the bytes read
// into sums (where it is not nil).
func verifyRuns(path string, ds []dset, blocks []hostBlock, sums []crc32c.Sum) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var buf []byte
	for i, b := range blocks {
		if ds[i].off < 0 {
			continue
		}
		name, at := "dataset "+ds[i].name, ds[i].off
		err := b.runs(func(off int64, p []byte) error {
			if cap(buf) < len(p) {
				buf = make([]byte, len(p))
			}
			q := buf[:len(p)]
			n, err := f.ReadAt(q, at+off)
			if n < len(p) {
				return fmt.Errorf("%s: %d bytes at byte %d of the data are missing (the file ends at byte %d): the write was lost although it was reported as done (%v)", name, len(p)-n, off+int64(n), at+off+int64(n), err)
			}
			if !bytes.Equal(p, q) {
				k := 0
				for k < len(p) && p[k] == q[k] {
					k++
				}
				return fmt.Errorf("%s: the bytes at byte %d of the data differ from the data written: the write was lost although it was reported as done", name, off+int64(k))
			}
			if sums != nil {
				sums[i].Add(off, q)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// openLocal opens the HDF5 file at path on this rank alone, with HDF5's
// serial (POSIX) driver; modeCreate makes it anew.
func openLocal(path string, mode C.int) (*file, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var id C.hid_t
	if _, err := lib(func() C.int {
		id = C.xp_h5_serial_open(cpath, mode)
		return C.int(min(id, 0))
	}); err != nil {
		return nil, err
	}
	return &file{id: id, path: path}, nil
}

// closeLocal closes f on this rank.
func (f *file) closeLocal() error {
	_, err := lib(func() C.int { return C.xp_h5_serial_close(f.id) })
	return err
}

// createAlloc makes the contiguous dataset name (and the groups above it)
// with its storage allocated, and returns the storage's byte offset (-1:
// none, the dataset has no elements).
func (f *file) createAlloc(name string, dt backend.DType, shape []int) (int64, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	hs := hsizes(shape)
	var off C.int64_t
	_, err := lib(func() C.int {
		return C.xp_h5_create_alloc(f.id, cname, C.int(dt), C.int(len(shape)), &hs[0], &off)
	})
	return int64(off), err
}

// storage reports whether dataset name is contiguous, and its storage's
// byte offset (-1: none allocated, or in an external file).
func (f *file) storage(name string) (contiguous bool, off int64, err error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var o C.int64_t
	rc, err := lib(func() C.int { return C.xp_h5_storage(f.id, cname, &o) })
	return rc == 1, int64(o), err
}

// checkFile opens the file with HDF5 on this rank and checks that every
// dataset of ds has its type and shape and its data at its offset.
func checkFile(path string, ds []dset) error {
	f, err := openLocal(path, modeRead)
	if err != nil {
		return err
	}
	for _, d := range ds {
		var in info
		in, err = f.datasetInfo(d.name)
		if err == nil && (in.dt != d.dt || !equalInts(in.shape, d.shape)) {
			err = fmt.Errorf("%s holds %v of shape %v, written as %v of shape %v", where(path, d.name), in.dt, in.shape, d.dt, d.shape)
		}
		if err == nil {
			var ok bool
			var off int64
			ok, off, err = f.storage(d.name)
			if err == nil && (!ok || off != d.off && d.off >= 0) {
				err = fmt.Errorf("%s has its data at byte %d (contiguous: %v), written at %d", where(path, d.name), off, ok, d.off)
			}
		}
		if err != nil {
			break
		}
	}
	return firstErr(err, f.closeLocal())
}

// writeTurns writes every rank's part b of dataset d, which exists in the
// file, through HDF5, one rank after the other, then every rank reads its
// part back and compares it with memory (see the top of this file). It
// returns the failed step ("write" or "verify") and its error, the same on
// every rank.
func writeTurns(c mpi.Comm, path string, d dset, b hostBlock) (string, error) {
	for r := 0; r < c.Size(); r++ {
		var err error
		if c.Rank() == r {
			if !b.empty() {
				err = writeTurn(path, d, b)
			}
			// The package's tests make one rank's write fail here.
			if testWriteError != nil {
				if e := testWriteError(c, d.name); e != nil {
					err = fmt.Errorf("dataset %s: %w", d.name, e)
				}
			}
		}
		if err := mpi.Agree(c, err); err != nil {
			return "write", err
		}
	}
	if testAfterWrite != nil {
		testAfterWrite(c, path)
	}
	var err error
	if !b.empty() {
		err = readBack(path, d, b)
	}
	if err := mpi.Agree(c, err); err != nil {
		return "verify", err
	}
	return "", nil
}

func (b hostBlock) empty() bool {
	for _, k := range b.count {
		if k == 0 {
			return true
		}
	}
	return false
}

// writeTurn writes b into dataset d of the file at path, on this rank
// alone, and syncs the file.
func writeTurn(path string, d dset, b hostBlock) error {
	f, err := openLocal(path, modeWrite)
	if err != nil {
		return fmt.Errorf("dataset %s: %w", d.name, err)
	}
	err = f.ioBytes(d, true, b.start, b.count, b.memshape, b.memstart, b.data)
	if err = firstErr(err, f.closeLocal()); err != nil {
		return fmt.Errorf("dataset %s: %w", d.name, err)
	}
	return syncFile(path)
}

// readBack reads b's part of dataset d of the file at path through HDF5
// and compares it with memory.
func readBack(path string, d dset, b hostBlock) error {
	f, err := openLocal(path, modeRead)
	if err != nil {
		return fmt.Errorf("dataset %s: %w", d.name, err)
	}
	n := b.size
	for _, k := range b.count {
		n *= k
	}
	back := make([]byte, n)
	err = f.ioBytes(d, false, b.start, b.count, b.count, make([]int, len(b.count)), back)
	if err = firstErr(err, f.closeLocal()); err != nil {
		return fmt.Errorf("dataset %s: %w", d.name, err)
	}
	at := 0
	return b.runs(func(off int64, p []byte) error {
		q := back[at : at+len(p)]
		at += len(p)
		if !bytes.Equal(p, q) {
			k := 0
			for p[k] == q[k] {
				k++
			}
			return fmt.Errorf("dataset %s: the bytes at byte %d of the data differ from the data written: the write was lost although HDF5 reported it as done", d.name, off+int64(k))
		}
		return nil
	})
}

// ioBytes reads or writes the box at start of extent count of dataset d,
// which lies at memstart in buf (an array of memshape of d's elements), on
// this rank alone.
func (f *file) ioBytes(d dset, write bool, start, count, memshape, memstart []int, buf []byte) error {
	cname := C.CString(d.name)
	defer C.free(unsafe.Pointer(cname))
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	w := C.int(0)
	if write {
		w = 1
	}
	hs, hc, hm, hms := hsizes(start), hsizes(count), hsizes(memshape), hsizes(memstart)
	_, err := lib(func() C.int {
		return C.xp_h5_io(f.id, cname, C.int(d.dt), w, C.int(len(start)), &hs[0], &hc[0], &hm[0], &hms[0], p)
	})
	return err
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return firstErr(f.Sync(), f.Close())
}

// hostOf returns x's block in host memory (a copy where it lives on a
// device: free it with done), the same outcome on every rank.
func hostOf[T backend.Numeric](x *dist.Array[T]) (data []T, done func(), err error) {
	host, herr := backend.ToHost(x.Local())
	done = func() {}
	if herr == nil && host != x.Local() {
		done = func() { host.Free() }
	}
	if err := mpi.Agree(x.Comm(), herr); err != nil {
		return nil, done, err
	}
	return host.Data(), done, nil
}

// Fault injection for the fault suite, as package dist's POSIX path does:
// the variables of the LD_PRELOAD library tests/testdata/failwrite, which
// makes the C library's writes (MPI-IO, HDF5's own) fail, here for the
// pwrite calls Go makes.
//
//	XPMPI_FAILWRITE_RANK   the rank (in the world communicator) whose
//	                       writes fail
//	XPMPI_FAILWRITE_ERRNO  EIO (default) or ENOSPC
//	XPMPI_FAILWRITE_MATCH  only files whose path ends with this (default
//	                       .npy: set .h5 for HDF5 checkpoints)
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

type writerAt interface {
	WriteAt(b []byte, off int64) (int, error)
}

type failingWriter struct{ err error }

func (w failingWriter) WriteAt(b []byte, off int64) (int, error) {
	return 0, fmt.Errorf("pwrite at byte %d: %w", off, w.err)
}

// faultWriter returns f, or a writer whose writes fail where the fault
// injection variables say.
func faultWriter(f *os.File) writerAt {
	if fail := failWrite(); fail != nil {
		if err := fail(f.Name()); err != nil {
			return failingWriter{err}
		}
	}
	return f
}
