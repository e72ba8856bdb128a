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

// ckptIO is what writeCheckpoint does with an array of any element type.
type ckptIO interface {
	// host returns this rank's block in host memory (agreed), and a
	// function that frees a copy.
	host() (hostBlock, func(), error)
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

func (t typed[T]) host() (hostBlock, func(), error) {
	data, done, err := hostOf(t.x)
	if err != nil {
		return hostBlock{}, done, err
	}
	l := t.x.Layout()
	b := hostBlock{size: t.dtype().Size(), shape: l.Shape()}
	b.start, b.count, b.memshape, b.memstart = part(l, t.x.Comm().Rank(), false)
	if len(data) > 0 {
		b.data = unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*b.size)
	}
	return b, done, nil
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

// writeCheckpoint writes the arrays into a new HDF5 file at path and
// returns the manifest's entries. Its error is the same on every rank and
// names the operation, the file and the dataset.
//
// Rank 0 makes the file alone, with HDF5's POSIX driver: every dataset
// contiguous, its storage allocated at creation, nothing written into it;
// the ranks learn where each dataset's data lies and write their parts of
// it themselves, as dist writes a .npy file (ordinary pwrite calls where
// every rank is on one node, independent MPI-IO writes across nodes;
// XPMPI_IO chooses), sync, and read back through a file handle of their
// own, comparing with memory and computing the CRC-32C from the bytes
// read; then rank 0 opens the file again with HDF5 and checks every
// dataset's type, shape and place. No rank is ever inside a collective
// HDF5 or MPI-IO write that can fail on some ranks only: with HDF5's
// collective writes, a write that failed on one rank (Open MPI 4.1, EIO on
// rank 0 of 3) left the other ranks waiting inside HDF5 forever; here every
// failure is one rank's error, which mpi.Agree gives every rank.
func writeCheckpoint(c mpi.Comm, path string, arrays []Entry) (map[string]string, error) {
	opErr := func(op string, err error) error { return fmt.Errorf("h5: %s %s: %w", op, path, err) }
	offs := make([]int64, len(arrays))
	var err error
	if c.Rank() == 0 {
		err = createCheckpointFile(path, arrays, offs)
	}
	if err := mpi.Agree(c, err); err != nil {
		return nil, opErr("create", err)
	}
	if err := mpi.Bcast(c, offs, 0); err != nil {
		return nil, opErr("create", err)
	}
	blocks := make([]hostBlock, len(arrays))
	for i, e := range arrays {
		b, done, err := e.a.(ckptIO).host()
		defer done()
		if err != nil {
			return nil, opErr("copy to the host", err)
		}
		blocks[i] = b
	}
	wp, err := dist.WritePathFromEnv()
	if err != nil {
		return nil, opErr("write", err)
	}
	if wp == "" {
		wp = "posix"
		if _, n := mpi.NodeRank(); c.Size() > 1 && n != mpi.World().Size() {
			wp = "mpiio"
		}
	}
	// The package's tests make one rank's write fail here.
	var hookErr error
	for _, e := range arrays {
		if testWriteError != nil && hookErr == nil {
			if err := testWriteError(c, "/"+e.name); err != nil {
				hookErr = fmt.Errorf("dataset /%s: %w", e.name, err)
			}
		}
	}
	if wp == "posix" {
		err = writePOSIX(path, arrays, blocks, offs)
		err = mpi.Agree(c, firstErr(err, hookErr))
	} else {
		err = writeMPIIO(c, path, arrays, blocks, offs, hookErr)
	}
	if err != nil {
		return nil, opErr("write", err)
	}
	if testAfterWrite != nil {
		testAfterWrite(c, path)
	}
	sums := make([]crc32c.Sum, len(arrays))
	if err := mpi.Agree(c, verifyRuns(path, arrays, blocks, offs, sums)); err != nil {
		return nil, opErr("verify", err)
	}
	err = nil
	if c.Rank() == 0 {
		err = checkCheckpointFile(path, arrays, offs)
	}
	if err := mpi.Agree(c, err); err != nil {
		return nil, opErr("verify", err)
	}
	out := map[string]string{metaFormat: formatName, metaFile: CheckpointFile}
	for i, e := range arrays {
		info := arrayInfo{dt: e.a.dtype(), shape: e.a.layout().Shape()}
		sum, err := combineCRC(c, &sums[i], nbytes(info))
		if err != nil {
			return nil, opErr("verify", err)
		}
		info.sum = sum
		out[metaArray+e.name] = info.String()
	}
	return out, nil
}

func nbytes(a arrayInfo) int64 {
	n := int64(a.dt.Size())
	for _, d := range a.shape {
		n *= int64(d)
	}
	return n
}

// createCheckpointFile makes the checkpoint file on rank 0 and sets offs
// to the byte offset of each array's data (-1 for an array without
// elements). The file is synced.
func createCheckpointFile(path string, arrays []Entry, offs []int64) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var id C.hid_t
	if _, err := lib(func() C.int {
		id = C.xp_h5_serial_open(cpath, 1)
		return C.int(min(id, 0))
	}); err != nil {
		return err
	}
	var err error
	for i, e := range arrays {
		name := C.CString("/" + e.name)
		hs := hsizes(e.a.layout().Shape())
		var off C.int64_t
		_, err = lib(func() C.int {
			return C.xp_h5_create_alloc(id, name, C.int(e.a.dtype()), C.int(len(e.a.layout().Shape())), &hs[0], &off)
		})
		C.free(unsafe.Pointer(name))
		if err != nil {
			err = fmt.Errorf("dataset /%s: %w", e.name, err)
			break
		}
		offs[i] = int64(off)
	}
	_, cerr := lib(func() C.int { return C.xp_h5_serial_close(id) })
	if err = firstErr(err, cerr); err != nil {
		return err
	}
	return syncFile(path)
}

// checkCheckpointFile opens the file with HDF5 on rank 0 and checks that
// every dataset has its array's type and shape and its data at offs.
func checkCheckpointFile(path string, arrays []Entry, offs []int64) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var id C.hid_t
	if _, err := lib(func() C.int {
		id = C.xp_h5_serial_open(cpath, 0)
		return C.int(min(id, 0))
	}); err != nil {
		return err
	}
	f := &file{id: id, path: path}
	var err error
	for i, e := range arrays {
		name := "/" + e.name
		var in info
		in, err = f.datasetInfo(name)
		if err == nil && (in.dt != e.a.dtype() || !equalInts(in.shape, e.a.layout().Shape())) {
			err = fmt.Errorf("%s holds %v of shape %v, written as %v of shape %v", where(path, name), in.dt, in.shape, e.a.dtype(), e.a.layout().Shape())
		}
		if err == nil {
			cname := C.CString(name)
			var off C.int64_t
			_, err = lib(func() C.int { return C.xp_h5_offset(id, cname, &off) })
			C.free(unsafe.Pointer(cname))
			if err == nil && int64(off) != offs[i] && offs[i] >= 0 {
				err = fmt.Errorf("%s has its data at byte %d, written at %d", where(path, name), off, offs[i])
			}
		}
		if err != nil {
			break
		}
	}
	_, cerr := lib(func() C.int { return C.xp_h5_serial_close(id) })
	return firstErr(err, cerr)
}

// writePOSIX writes this rank's runs of every array with pwrite calls and
// syncs the file.
func writePOSIX(path string, arrays []Entry, blocks []hostBlock, offs []int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := faultWriter(f)
	for i, b := range blocks {
		if offs[i] < 0 {
			continue
		}
		err = b.runs(func(off int64, p []byte) error {
			_, err := w.WriteAt(p, offs[i]+off)
			return err
		})
		if err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", "dataset /"+arrays[i].name, err)
		}
	}
	return firstErr(f.Sync(), f.Close())
}

// writeMPIIO writes this rank's runs of every array with independent
// MPI-IO writes and syncs the file; its error is agreed.
func writeMPIIO(c mpi.Comm, path string, arrays []Entry, blocks []hostBlock, offs []int64, hookErr error) error {
	f, err := mpi.OpenFile(c, path, mpi.WriteOnly)
	if err := mpi.Agree(c, err); err != nil {
		return err
	}
	var werr error
	for i, b := range blocks {
		if offs[i] < 0 || werr != nil {
			continue
		}
		werr = b.runs(func(off int64, p []byte) error {
			for len(p) > 0 {
				n := min(len(p), 1<<30)
				if err := f.WriteAt(offs[i]+off, unsafe.Pointer(&p[0]), n, mpi.Byte); err != nil {
					return err
				}
				p, off = p[n:], off+int64(n)
			}
			return nil
		})
		if werr != nil {
			werr = fmt.Errorf("%s: %w", "dataset /"+arrays[i].name, werr)
		}
	}
	err = mpi.Agree(c, firstErr(werr, hookErr))
	if err == nil {
		err = mpi.Agree(c, f.Sync())
	}
	return firstErr(err, mpi.Agree(c, f.Close()))
}

// verifyRuns reads back this rank's runs of every array through a file
// handle of its own, compares them with memory, and folds the bytes read
// into sums.
func verifyRuns(path string, arrays []Entry, blocks []hostBlock, offs []int64, sums []crc32c.Sum) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var buf []byte
	for i, b := range blocks {
		if offs[i] < 0 {
			continue
		}
		name := "dataset /" + arrays[i].name
		err := b.runs(func(off int64, p []byte) error {
			if cap(buf) < len(p) {
				buf = make([]byte, len(p))
			}
			q := buf[:len(p)]
			n, err := f.ReadAt(q, offs[i]+off)
			if n < len(p) {
				return fmt.Errorf("%s: %d bytes at byte %d of the data are missing (the file ends at byte %d): the write was lost although it was reported as done (%v)", name, len(p)-n, off+int64(n), offs[i]+off+int64(n), err)
			}
			if !bytes.Equal(p, q) {
				k := 0
				for k < len(p) && p[k] == q[k] {
					k++
				}
				return fmt.Errorf("%s: the bytes at byte %d of the data differ from the data written: the write was lost although it was reported as done", name, off+int64(k))
			}
			sums[i].Add(off, q)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
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

// loadCheckpoint reads dataset name of the checkpoint file at path, which
// the manifest describes as want, into a new array laid out by opts, and
// checks it against want's checksum.
func loadCheckpoint[T backend.Numeric](c mpi.Comm, path, name string, want arrayInfo, opts []dist.Option) (*dist.Array[T], error) {
	x, err := loadCheckpointFile[T](c, path, name, want, opts)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s: %w", where(path, name), err)
	}
	return x, nil
}

func loadCheckpointFile[T backend.Numeric](c mpi.Comm, path, name string, want arrayInfo, opts []dist.Option) (*dist.Array[T], error) {
	f, err := open(c, path, modeRead)
	if err != nil {
		return nil, err
	}
	in, err := f.datasetInfo(name)
	if err == nil && (in.dt != want.dt || !equalInts(in.shape, want.shape)) {
		err = fmt.Errorf("%s holds %v of shape %v, the manifest says %v of shape %v: the file is damaged or was replaced", where(path, name), in.dt, in.shape, want.dt, want.shape)
	}
	if err := mpi.Agree(c, err); err != nil {
		f.close()
		return nil, err
	}
	x, err := loadOpen[T](f, name, nil, opts)
	if err = firstErr(err, f.close()); err != nil {
		if x != nil {
			x.Free()
		}
		return nil, err
	}
	host, done, err := hostOf(x)
	defer done()
	if err != nil {
		x.Free()
		return nil, err
	}
	var s crc32c.Sum
	l := x.Layout()
	start, count, ms, mst := part(l, c.Rank(), false)
	boxCRC(&s, host, ms, mst, count, start, l.Shape())
	total := int64(want.dt.Size())
	for _, d := range want.shape {
		total *= int64(d)
	}
	sum, err := combineCRC(c, &s, total)
	if err == nil && sum != want.sum {
		err = fmt.Errorf("the data's checksum is crc32c:%08x, the manifest says crc32c:%08x: %s is corrupted", sum, want.sum, where(path, name))
	}
	if err != nil {
		x.Free()
		return nil, err
	}
	return x, nil
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
