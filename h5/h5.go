//go:build hdf5 && mpi && !mpich

package h5

// #cgo pkg-config: hdf5-openmpi
// #include <stdlib.h>
// #include "xp_h5.h"
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	chunkrule "github.com/xpmpi/xpmpi/internal/chunks"
	"github.com/xpmpi/xpmpi/mpi"
)

// Available reports whether this build has HDF5: true in a build with the
// tags hdf5 and mpi.
func Available() bool { return true }

// Version returns the version of the HDF5 library, "1.10.8" say.
func Version() string {
	var maj, min, rel C.uint
	C.H5get_libversion(&maj, &min, &rel)
	return fmt.Sprintf("%d.%d.%d", maj, min, rel)
}

var initOnce struct {
	sync.Once
	err error
}

// lib runs f, a call into HDF5, under package mpi's library lock: HDF5
// calls MPI, and Debian's build is not thread-safe. It returns HDF5's
// message where f fails (returns a negative value).
func lib(f func() C.int) (int, error) {
	mpi.LockLibrary()
	defer mpi.UnlockLibrary()
	initOnce.Do(func() {
		if C.xp_h5_init() < 0 {
			initOnce.err = errors.New("H5open failed")
		}
	})
	if initOnce.err != nil {
		return -1, initOnce.err
	}
	rc := f()
	if rc < 0 {
		buf := make([]byte, 4096)
		n := C.xp_h5_error((*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
		// HDF5's POSIX driver puts ctime's newline in its messages.
		return int(rc), errors.New(strings.ReplaceAll(string(buf[:n]), "\n", " "))
	}
	return int(rc), nil
}

// file is an open HDF5 file, opened with HDF5's serial (POSIX) driver: by
// one rank alone (openLocal, c nil), or for reading by every rank of c,
// each with a handle of its own (open).
type file struct {
	c    mpi.Comm
	id   C.hid_t
	path string
}

const (
	modeRead   = C.XP_H5_READ
	modeWrite  = C.XP_H5_WRITE
	modeCreate = C.XP_H5_CREATE
)

// open opens path for reading on every rank of c, each rank on its own
// with HDF5's serial (POSIX) driver, read-only: no HDF5 call of a reader
// is collective (see write_on.go). It is collective; a missing file is an
// agreed error that wraps fs.ErrNotExist.
func open(c mpi.Comm, path string) (*file, error) {
	var err error
	if c.Rank() == 0 {
		var st os.FileInfo
		if st, err = os.Stat(path); err != nil {
			err = fmt.Errorf("no HDF5 file: %w", err)
		} else if !st.Mode().IsRegular() {
			// A FIFO would block the open forever.
			err = fmt.Errorf("%s is not a regular file (%v): not reading it", path, st.Mode().Type())
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		return nil, err
	}
	f, err := openLocal(path, modeRead)
	if err := mpi.Agree(c, err); err != nil {
		if f != nil {
			f.closeLocal()
		}
		return nil, err
	}
	f.c = c
	return f, nil
}

// close closes f (of open) on every rank of f.c; the error is agreed.
func (f *file) close() error {
	return mpi.Agree(f.c, f.closeLocal())
}

// exists reports whether the object name exists, and whether it is a
// dataset.
func (f *file) exists(name string) (exists, dataset bool, err error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if name == "/" {
		return true, false, nil
	}
	rc, err := lib(func() C.int { return C.xp_h5_exists(f.id, cname) })
	if err != nil || rc == 0 {
		return false, false, err
	}
	rc, err = lib(func() C.int { return C.xp_h5_is_dataset(f.id, cname) })
	return true, rc == 1, err
}

// info is what a dataset holds.
type info struct {
	dt    backend.DType
	shape []int
}

const maxRank = 32

// datasetInfo returns the element type and shape of dataset name, or why
// this package cannot read it.
func (f *file) datasetInfo(name string) (info, error) {
	ok, ds, err := f.exists(name)
	switch {
	case err != nil:
		return info{}, err
	case !ok:
		return info{}, fmt.Errorf("no dataset %s: %w", name, fs.ErrNotExist)
	case !ds:
		return info{}, fmt.Errorf("%s is a group, not a dataset: %w", name, fs.ErrNotExist)
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var dt, rank C.int
	var shape [maxRank]C.hsize_t
	desc := make([]byte, 256)
	if _, err := lib(func() C.int {
		return C.xp_h5_info(f.id, cname, &dt, &rank, &shape[0], maxRank, (*C.char)(unsafe.Pointer(&desc[0])), C.size_t(len(desc)))
	}); err != nil {
		return info{}, err
	}
	if dt < 0 {
		return info{}, fmt.Errorf("%s holds %s, which dist has no type for", name, cstring(desc))
	}
	switch {
	case rank < 0:
		return info{}, fmt.Errorf("%s has a null dataspace (no elements, no shape)", name)
	case rank == 0:
		return info{}, fmt.Errorf("%s is a scalar dataset: dist arrays have at least one dimension", name)
	case rank > maxRank:
		return info{}, fmt.Errorf("%s has %d dimensions, more than %d", name, rank, maxRank)
	}
	in := info{dt: backend.DType(dt), shape: make([]int, rank)}
	for a := range in.shape {
		in.shape[a] = int(shape[a])
	}
	return in, nil
}

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func hsizes(s []int) []C.hsize_t {
	h := make([]C.hsize_t, max(len(s), 1))
	for i, v := range s {
		h[i] = C.hsize_t(v)
	}
	return h
}

// read reads this rank's part of dataset name of shape: the box at start
// of extent count, into memstart in host (an array of memshape in C
// order), each rank on its own; the error is agreed.
func read[T backend.Numeric](f *file, name string, shape []int, start, count, memshape, memstart []int, host []T) error {
	// A dataset without elements has no storage (its address is undefined
	// where no fill value was written), and nothing to move: every rank
	// knows the global shape, so all skip the read together.
	if n, _ := dist.ShapeLen(shape); n == 0 {
		return nil
	}
	var err error
	if n, _ := dist.ShapeLen(count); n > 0 {
		dt := backend.DTypeOf[T]()
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&host[0])), len(host)*dt.Size())
		if err = f.ioBytes(dset{name: name, dt: dt, shape: shape}, false, start, count, memshape, memstart, buf); err != nil {
			err = fmt.Errorf("dataset %s: %w", name, err)
		}
	}
	// The package's tests make one rank's read fail here.
	if testReadError != nil {
		if e := testReadError(f.c, name); e != nil {
			err = fmt.Errorf("dataset %s: %w", name, e)
		}
	}
	return mpi.Agree(f.c, err)
}

// part returns the box of the dataset that this rank of l transfers and
// where it lies in the rank's block: its block, or for a replicated
// layout its share of a split along axis 0 (every rank reads the whole
// block when all is true).
func part(l dist.Layout, rank int, all bool) (start, count, memshape, memstart []int) {
	start, count = l.Block(rank)
	memshape = count
	memstart = make([]int, len(start))
	if l.Axis() == dist.Replicated && !all {
		memshape = l.Shape()
		start, count = dist.NewLayout(l.Shape(), 0, l.Ranks()).Block(rank)
		memstart = start
	}
	return
}

// Save writes x as the dataset name (a path of groups, "fields/u", made
// where missing) of the HDF5 file at path, which it creates where there is
// none (with Truncate, always anew). It is collective, and no rank is ever
// inside a collective HDF5 or MPI-IO call that can fail on some ranks
// only (write_on.go has the design): rank 0 makes the dataset alone and
// closes the file, then each rank writes its own block (a replicated
// array: its share of the rows):
//
//   - a contiguous dataset (no Chunks, no Gzip) has its storage allocated
//     by rank 0, and every rank writes its runs of bytes into it itself,
//     with pwrite (one node) or independent MPI-IO writes (across nodes;
//     XPMPI_IO chooses), about as fast as a collective transfer;
//   - a chunked or compressed dataset is written through HDF5 by the ranks
//     in turn, each opening the file alone: parallel HDF5 writes filtered
//     data only with collective transfers, whose failure on one rank
//     leaves the others waiting inside HDF5 forever. The turns cost the
//     parallelism: the ranks compress and write one after another.
//
// A dataset already at name with x's shape and type is written in place,
// keeping its storage (chunks, compression); one of another shape or type
// is deleted and made anew (HDF5 does not reuse the space: h5repack
// reclaims it). The file is synced and every rank reads back what it
// wrote and compares it with memory: a write that was reported as done
// but did not reach the file is an error. Every error, HDF5's error stack
// among them, is the same on every rank and names the rank that failed,
// the step (create, write, verify), the file and the dataset:
//
//	h5: Save out.h5:/u: write: failed on rank 1: dataset /u: pwrite at byte 3992: input/output error
//
// HDF5 writes in place: a crash during Save can leave the file damaged.
// Write to a new file and rename it where that matters.
func Save[T backend.Numeric](x *dist.Array[T], path, name string, opts ...Option) error {
	name = checkName("Save", name)
	o := saveOptions(opts)
	l := x.Layout()
	if o.chunks != nil && len(o.chunks) != l.Dims() {
		panic(fmt.Sprintf("h5: Save: Chunks(%v) for an array of %d dimensions", o.chunks, l.Dims()))
	}
	c := x.Comm()
	if err := mpi.CheckCollective(c, "h5.Save", pathArg(path, name)); err != nil {
		return err
	}
	if err := save(x, path, name, o); err != nil {
		return fmt.Errorf("h5: Save %s: %w", where(path, name), err)
	}
	return nil
}

func save[T backend.Numeric](x *dist.Array[T], path, name string, o options) error {
	c := x.Comm()
	b, done, err := typed[T]{x}.host()
	defer done()
	if err != nil {
		return fmt.Errorf("copy to the host: %w", err)
	}
	d := dset{name: name, dt: backend.DTypeOf[T](), shape: x.Shape(), off: -1}
	var chunks []int
	if o.chunks != nil || o.gzip >= 0 {
		chunks = o.chunks
		if chunks == nil {
			chunks = chunkrule.Default(x.Layout(), d.dt.Size(), chunkrule.MaxBytes)
		}
	}
	direct := false
	if c.Rank() == 0 {
		direct, err = prepare(path, &d, o, chunks)
	}
	if err := mpi.Agree(c, err); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	plan := []int64{d.off, 0}
	if direct {
		plan[1] = 1
	}
	if err := mpi.Bcast(c, plan, 0); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	d.off, direct = plan[0], plan[1] == 1
	if !direct {
		if op, err := writeTurns(c, path, d, b); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		return nil
	}
	ds := []dset{d}
	if op, err := writeParts(c, path, ds, []hostBlock{b}, nil); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err = nil
	if c.Rank() == 0 {
		err = checkFile(path, ds)
	}
	if err := mpi.Agree(c, err); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	return nil
}

// prepare makes (or finds) dataset d in the file at path, on rank 0 alone
// (chunked where chunks is not nil, compressed as o says), writes its
// attributes, and closes and syncs the file. It reports whether
// the dataset is contiguous with its storage allocated at d.off (where it
// has elements), for the ranks to write themselves; otherwise they write
// it through HDF5, in turns.
func prepare(path string, d *dset, o options, chunks []int) (direct bool, err error) {
	mode := C.int(modeWrite)
	if _, err := os.Stat(path); err != nil || o.truncate {
		mode = modeCreate
	}
	f, err := openLocal(path, mode)
	if err != nil {
		return false, err
	}
	direct, err = f.dataset(d, chunks, o.gzip)
	if err == nil {
		err = f.writeAttrs(d.name, o.attrs)
	}
	if err = firstErr(err, f.closeLocal()); err != nil {
		return false, err
	}
	return direct, syncFile(path)
}

// dataset makes dataset d, or keeps the one of its name where it has d's
// type and shape (deleting one that has not), and reports whether it is
// contiguous with its storage allocated at d.off (or has no elements).
func (f *file) dataset(d *dset, chunks []int, gzip int) (direct bool, err error) {
	ok, ds, err := f.exists(d.name)
	if err != nil {
		return false, err
	}
	if ok && !ds {
		return false, fmt.Errorf("%s is a group", d.name)
	}
	cname := C.CString(d.name)
	defer C.free(unsafe.Pointer(cname))
	n, _ := dist.ShapeLen(d.shape)
	if ok {
		in, err := f.datasetInfo(d.name)
		if err == nil && in.dt == d.dt && equalInts(in.shape, d.shape) {
			contiguous, off, err := f.storage(d.name)
			if err != nil {
				return false, err
			}
			d.off = off
			return contiguous && (off >= 0 || n == 0), nil
		}
		if _, err := lib(func() C.int { return C.xp_h5_delete(f.id, cname) }); err != nil {
			return false, err
		}
	}
	if chunks == nil || n == 0 {
		d.off, err = f.createAlloc(d.name, d.dt, d.shape)
		return err == nil, err
	}
	hc := hsizes(chunks)
	for a := range d.shape {
		hc[a] = C.hsize_t(min(chunks[a], d.shape[a]))
	}
	hs := hsizes(d.shape)
	_, err = lib(func() C.int {
		return C.xp_h5_create(f.id, cname, C.int(d.dt), C.int(len(d.shape)), &hs[0], &hc[0], C.int(gzip))
	})
	return false, err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeAttrs writes attrs on the object name, on this rank alone.
func (f *file) writeAttrs(name string, attrs map[string]any) error {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cobj := C.CString(name)
	defer C.free(unsafe.Pointer(cobj))
	for _, k := range keys {
		ck := C.CString(k)
		var err error
		switch v := attrs[k].(type) {
		case string:
			cv := C.CString(v)
			_, err = lib(func() C.int { return C.xp_h5_attr_write(f.id, cobj, ck, C.XP_ATTR_STRING, 0, unsafe.Pointer(cv)) })
			C.free(unsafe.Pointer(cv))
		case float32:
			err = writeNumbers(f, cobj, ck, C.XP_ATTR_FLOAT, []float64{float64(v)}, true)
		case float64:
			err = writeNumbers(f, cobj, ck, C.XP_ATTR_FLOAT, []float64{v}, true)
		case []float64:
			err = writeNumbers(f, cobj, ck, C.XP_ATTR_FLOAT, v, false)
		case []int:
			w := make([]int64, len(v))
			for i := range v {
				w[i] = int64(v[i])
			}
			err = writeNumbers(f, cobj, ck, C.XP_ATTR_INT, w, false)
		case []int64:
			err = writeNumbers(f, cobj, ck, C.XP_ATTR_INT, v, false)
		default:
			err = writeNumbers(f, cobj, ck, C.XP_ATTR_INT, []int64{toInt64(v)}, true)
		}
		C.free(unsafe.Pointer(ck))
		if err != nil {
			return fmt.Errorf("attribute %s: %w", k, err)
		}
	}
	return nil
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case uint:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		return int64(x)
	}
	panic(fmt.Sprintf("h5: attribute of type %T", v))
}

func writeNumbers[N int64 | float64](f *file, cobj, ck *C.char, kind C.int, v []N, scalar bool) error {
	n := C.size_t(len(v))
	if scalar {
		n = 0
	}
	var p unsafe.Pointer
	var one N
	if len(v) > 0 {
		p = unsafe.Pointer(&v[0])
	} else {
		p = unsafe.Pointer(&one)
	}
	if !scalar && len(v) == 0 {
		return errors.New("an empty slice: HDF5 attributes have at least one element")
	}
	_, err := lib(func() C.int { return C.xp_h5_attr_write(f.id, cobj, ck, kind, n, p) })
	return err
}

// readAttrs returns the attributes of the object name.
func (f *file) readAttrs(name string) (map[string]any, error) {
	cobj := C.CString(name)
	defer C.free(unsafe.Pointer(cobj))
	n, err := lib(func() C.int { return C.xp_h5_attr_count(f.id, cobj) })
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	for i := 0; i < n; i++ {
		nameBuf := make([]byte, 1024)
		var kind C.int
		var count C.size_t
		if _, err := lib(func() C.int {
			return C.xp_h5_attr_info(f.id, cobj, C.int(i), (*C.char)(unsafe.Pointer(&nameBuf[0])), C.size_t(len(nameBuf)), &kind, &count)
		}); err != nil {
			return nil, err
		}
		an := cstring(nameBuf)
		switch kind {
		case C.XP_ATTR_STRING:
			buf := make([]byte, 4096)
			for {
				k, err := lib(func() C.int {
					return C.xp_h5_attr_read(f.id, cobj, C.int(i), kind, 0, unsafe.Pointer(&buf[0]), C.size_t(len(buf)))
				})
				if err != nil {
					return nil, err
				}
				if k <= len(buf) {
					m[an] = string(buf[:k])
					break
				}
				buf = make([]byte, k)
			}
		case C.XP_ATTR_INT, C.XP_ATTR_FLOAT:
			k := max(int(count), 1)
			var iv []int64
			var fv []float64
			var p unsafe.Pointer
			if kind == C.XP_ATTR_INT {
				iv = make([]int64, k)
				p = unsafe.Pointer(&iv[0])
			} else {
				fv = make([]float64, k)
				p = unsafe.Pointer(&fv[0])
			}
			if _, err := lib(func() C.int { return C.xp_h5_attr_read(f.id, cobj, C.int(i), kind, count, p, 0) }); err != nil {
				return nil, err
			}
			switch {
			case count == 0 && iv != nil:
				m[an] = iv[0]
			case count == 0:
				m[an] = fv[0]
			case iv != nil:
				m[an] = iv
			default:
				m[an] = fv
			}
		default:
			return nil, fmt.Errorf("attribute %s has a type this package does not read (strings, integers and floats, and arrays of numbers)", an)
		}
	}
	return m, nil
}

// Load reads the dataset name of the HDF5 file at path into a new array on
// c, laid out by opts (dist.SplitAxis, dist.BlockSizes, dist.ProcessGrid,
// dist.GridBlockSizes, dist.OnBackend, dist.Ghosts) as dist.Zeros lays it
// out: any rank count and layout, whatever chunking or compression wrote
// it. It is collective: each rank opens the file on its own (HDF5's serial
// driver, read-only) and reads its block as a hyperslab (a replicated
// array: the whole dataset on every rank); a read that fails on one rank
// is the same error on every rank, naming it, never a wait (see
// write_on.go). A missing file or dataset wraps fs.ErrNotExist; a dataset whose
// type is not T (complex is h5py's compound {r, i}) or that dist has no
// type for, a scalar dataset, and HDF5's own errors are the same error on
// every rank.
func Load[T backend.Numeric](c mpi.Comm, path, name string, opts ...dist.Option) (*dist.Array[T], error) {
	name = checkName("Load", name)
	if err := mpi.CheckCollective(c, "h5.Load", pathArg(path, name)); err != nil {
		return nil, err
	}
	wrap := func(err error) error { return fmt.Errorf("h5: Load %s: %w", where(path, name), err) }
	f, err := open(c, path)
	if err != nil {
		return nil, wrap(err)
	}
	x, err := loadOpen[T](f, name, nil, opts)
	if err = firstErr(err, f.close()); err != nil {
		if x != nil {
			x.Free()
		}
		return nil, wrap(err)
	}
	return x, nil
}

// loadOpen reads dataset name of f into x, or into a new array laid out by
// opts where x is nil.
func loadOpen[T backend.Numeric](f *file, name string, x *dist.Array[T], opts []dist.Option) (*dist.Array[T], error) {
	in, err := f.datasetInfo(name)
	if want := backend.DTypeOf[T](); err == nil && in.dt != want {
		err = fmt.Errorf("the dataset holds %v, not %v", in.dt, want)
	}
	if err == nil && x != nil && !equalInts(in.shape, x.Shape()) {
		err = fmt.Errorf("the dataset has shape %v, the destination %v", in.shape, x.Shape())
	}
	if err := mpi.Agree(f.c, err); err != nil {
		return nil, err
	}
	made := false
	if x == nil {
		if x, err = zeros[T](f.c, in.shape, opts); err != nil {
			return nil, err
		}
		made = true
	}
	local := x.Local()
	var host []T
	if local.Device().IsHost() {
		host = local.Data()
	} else {
		host = make([]T, local.Len())
	}
	start, count, ms, mst := part(x.Layout(), f.c.Rank(), true)
	err = read(f, name, in.shape, start, count, ms, mst, host)
	if err == nil && !local.Device().IsHost() {
		err = mpi.Agree(f.c, backend.CopyFromHostSlice(local, host))
	}
	if err != nil && made {
		x.Free()
		return nil, err
	}
	return x, err
}

// zeros is dist.Zeros, with a layout option that does not fit the
// dataset's shape an error rather than a panic: the file decides the shape.
func zeros[T backend.Numeric](c mpi.Comm, shape []int, opts []dist.Option) (x *dist.Array[T], err error) {
	defer func() {
		if r := recover(); r != nil {
			s := fmt.Sprint(r)
			if !strings.HasPrefix(s, "dist:") {
				panic(r)
			}
			x, err = nil, fmt.Errorf("the layout options do not fit its shape %v: %s", shape, s)
		}
	}()
	return dist.Zeros[T](c, shape, opts...)
}

// LoadInto reads the dataset name of the HDF5 file at path into x, an array
// of its shape and element type, whatever layout x has, as Load does but
// into memory the caller has. It is collective. A dataset of another shape
// or type is the same error on every rank and leaves x as it was.
func LoadInto[T backend.Numeric](x *dist.Array[T], path, name string) error {
	name = checkName("LoadInto", name)
	c := x.Comm()
	if err := mpi.CheckCollective(c, "h5.LoadInto", pathArg(path, name)); err != nil {
		return err
	}
	f, err := open(c, path)
	if err == nil {
		_, err = loadOpen(f, name, x, nil)
		err = firstErr(err, f.close())
	}
	if err != nil {
		return fmt.Errorf("h5: LoadInto %s: %w", where(path, name), err)
	}
	return nil
}

// CreateGroup makes the group name (and the groups above it) in the HDF5
// file at path, which it creates where there is none, and writes attrs as
// its attributes. It is collective: rank 0 writes the file alone (see
// write_on.go) and its error is every rank's.
func CreateGroup(c mpi.Comm, path, name string, attrs map[string]any) error {
	name = checkName("CreateGroup", name)
	checkAttrs("CreateGroup", attrs)
	if err := mpi.CheckCollective(c, "h5.CreateGroup", pathArg(path, name)); err != nil {
		return err
	}
	var err error
	if c.Rank() == 0 {
		err = editFile(path, true, func(f *file) error {
			cname := C.CString(name)
			defer C.free(unsafe.Pointer(cname))
			if _, err := lib(func() C.int { return C.xp_h5_mkgroup(f.id, cname) }); err != nil {
				return err
			}
			return f.writeAttrs(name, attrs)
		})
	}
	if err := mpi.Agree(c, err); err != nil {
		return fmt.Errorf("h5: CreateGroup %s: %w", where(path, name), err)
	}
	return nil
}

// editFile opens the HDF5 file at path on this rank alone (creating it
// where there is none and create is true), calls f, and closes and syncs
// the file.
func editFile(path string, create bool, edit func(f *file) error) error {
	mode := C.int(modeWrite)
	if _, err := os.Stat(path); err != nil {
		if !create {
			return fmt.Errorf("no HDF5 file: %w", err)
		}
		mode = modeCreate
	}
	f, err := openLocal(path, mode)
	if err != nil {
		return err
	}
	if err = firstErr(edit(f), f.closeLocal()); err != nil {
		return err
	}
	return syncFile(path)
}

// SetAttrs writes attrs as attributes of the dataset or group name ("/"
// for the root group) of the HDF5 file at path, replacing attributes of the
// same names. It is collective: rank 0 writes the file alone (see
// write_on.go) and its error is every rank's.
func SetAttrs(c mpi.Comm, path, name string, attrs map[string]any) error {
	name = checkName("SetAttrs", name)
	checkAttrs("SetAttrs", attrs)
	if err := mpi.CheckCollective(c, "h5.SetAttrs", pathArg(path, name)); err != nil {
		return err
	}
	var err error
	if c.Rank() == 0 {
		err = editFile(path, false, func(f *file) error {
			ok, _, err := f.exists(name)
			if err == nil && !ok {
				err = fmt.Errorf("no object %s: %w", name, fs.ErrNotExist)
			}
			if err != nil {
				return err
			}
			return f.writeAttrs(name, attrs)
		})
	}
	if err := mpi.Agree(c, err); err != nil {
		return fmt.Errorf("h5: SetAttrs %s: %w", where(path, name), err)
	}
	return nil
}

// ReadAttrs returns the attributes of the dataset or group name ("/" for
// the root group) of the HDF5 file at path: strings as string, integers
// as int64, floats as float64, arrays of them as []int64 and []float64. It
// is collective: every rank opens the file on its own and reads them.
func ReadAttrs(c mpi.Comm, path, name string) (map[string]any, error) {
	name = checkName("ReadAttrs", name)
	if err := mpi.CheckCollective(c, "h5.ReadAttrs", pathArg(path, name)); err != nil {
		return nil, err
	}
	var m map[string]any
	f, err := open(c, path)
	if err == nil {
		ok, _, e := f.exists(name)
		if e == nil && !ok {
			e = fmt.Errorf("no object %s: %w", name, fs.ErrNotExist)
		}
		if e == nil {
			m, e = f.readAttrs(name)
		}
		err = firstErr(mpi.Agree(c, e), f.close())
	}
	if err != nil {
		return nil, fmt.Errorf("h5: ReadAttrs %s: %w", where(path, name), err)
	}
	return m, nil
}
