//go:build hdf5 && mpi && !mpich

package h5

// #cgo pkg-config: hdf5-openmpi
// #include <stdlib.h>
// #include "xp_h5.h"
import "C"

import (
	"bytes"
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

// file is an open HDF5 file.
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

// open opens path on every rank of c with the MPI-IO driver. It is
// collective; a missing file (for reading) is an agreed error that wraps
// fs.ErrNotExist.
func open(c mpi.Comm, path string, mode C.int) (*file, error) {
	if mode == modeRead {
		var err error
		if c.Rank() == 0 {
			var st os.FileInfo
			if st, err = os.Stat(path); err != nil {
				err = fmt.Errorf("no HDF5 file: %w", err)
			} else if !st.Mode().IsRegular() {
				// A FIFO would block MPI_File_open forever.
				err = fmt.Errorf("%s is not a regular file (%v): not reading it", path, st.Mode().Type())
			}
		}
		if err := mpi.Agree(c, err); err != nil {
			return nil, err
		}
	}
	h, err := mpi.CHandle(c)
	if err != nil {
		return nil, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var id C.hid_t
	_, err = lib(func() C.int {
		id = C.xp_h5_open(cpath, mode, C.uintptr_t(h))
		if id < 0 {
			return -1
		}
		return 0
	})
	if err := mpi.Agree(c, err); err != nil {
		if id >= 0 {
			lib(func() C.int { return C.xp_h5_close(id) })
		}
		return nil, err
	}
	return &file{c: c, id: id, path: path}, nil
}

// close flushes and closes f, collectively.
func (f *file) close() error {
	_, err := lib(func() C.int { return C.xp_h5_close(f.id) })
	return mpi.Agree(f.c, err)
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

// io reads or writes this rank's part of dataset name: the box at start of
// extent count, which lies at memstart in host (an array of memshape in C
// order). Every rank calls it: a collective transfer.
func io[T backend.Numeric](f *file, name string, shape []int, write bool, start, count, memshape, memstart []int, host []T) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var buf unsafe.Pointer
	if len(host) > 0 {
		buf = unsafe.Pointer(&host[0])
	}
	w := C.int(0)
	if write {
		w = 1
	}
	// A dataset without elements has no storage (its address is undefined
	// where no fill value was written), and nothing to move: every rank
	// knows the global shape, so all skip the transfer together.
	if n, _ := dist.ShapeLen(shape); n == 0 {
		return nil
	}
	hs, hc, hm, hms := hsizes(start), hsizes(count), hsizes(memshape), hsizes(memstart)
	_, err := lib(func() C.int {
		return C.xp_h5_io(f.id, cname, C.int(backend.DTypeOf[T]()), w, C.int(len(start)),
			&hs[0], &hc[0], &hm[0], &hms[0], buf, 1)
	})
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
// none (with Truncate, always anew). It is collective: the ranks open the
// file together with the MPI-IO driver (H5Pset_fapl_mpio) and each writes
// its own block as a hyperslab, in one collective transfer
// (H5FD_MPIO_COLLECTIVE); a replicated array is written by every rank, each
// its share of the rows. A dataset already at name with x's shape and type
// is written in place, keeping its storage (chunks, compression); one of
// another shape or type is deleted and made anew (HDF5 does not reuse the
// space: h5repack reclaims it). The file is then synced and every rank
// reads back what it wrote and compares it with memory: a write that MPI-IO
// reported as done but that did not reach the file is an error. An error,
// HDF5's error stack among them, is the same on every rank.
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
	host, herr := backend.ToHost(x.Local())
	if herr == nil && host != x.Local() {
		defer host.Free()
	}
	if err := mpi.Agree(c, herr); err != nil {
		return err
	}
	mode := C.int(modeWrite)
	exists, err := fileExists(c, path)
	if err != nil {
		return err
	}
	if !exists || o.truncate {
		mode = modeCreate
	}
	f, err := open(c, path, mode)
	if err != nil {
		return err
	}
	err = writeDataset(f, x, name, o, host.Data())
	return firstErr(err, f.close())
}

// fileExists reports on every rank whether rank 0 sees a file at path:
// every rank must open it the same way.
func fileExists(c mpi.Comm, path string) (bool, error) {
	e := int32(0)
	if c.Rank() == 0 {
		if _, err := os.Stat(path); err == nil {
			e = 1
		}
	}
	e, err := mpi.AllreduceValue(c, e, mpi.Max)
	return e == 1, err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (f *file) dataset(x dist.Layout, dt backend.DType, name string, o options) error {
	ok, ds, err := f.exists(name)
	if err == nil && ok && !ds {
		err = fmt.Errorf("%s is a group", name)
	}
	if err := mpi.Agree(f.c, err); err != nil {
		return err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if ok {
		in, err := f.datasetInfo(name)
		if err == nil && in.dt == dt && equalInts(in.shape, x.Shape()) {
			return nil
		}
		if _, err := lib(func() C.int { return C.xp_h5_delete(f.id, cname) }); mpi.Agree(f.c, err) != nil {
			return mpi.Agree(f.c, err)
		}
	}
	shape := x.Shape()
	var chunks []C.hsize_t
	n := 1
	for _, d := range shape {
		n *= d
	}
	if (o.chunks != nil || o.gzip >= 0) && n > 0 {
		ch := o.chunks
		if ch == nil {
			ch = chunkrule.Default(x, dt.Size(), chunkrule.MaxBytes)
		}
		chunks = hsizes(ch)
		for a := range shape {
			chunks[a] = C.hsize_t(min(ch[a], shape[a]))
		}
	}
	var cp *C.hsize_t
	if chunks != nil {
		cp = &chunks[0]
	}
	gz := C.int(o.gzip)
	if n == 0 {
		gz = -1
	}
	hs := hsizes(shape)
	_, err = lib(func() C.int {
		return C.xp_h5_create(f.id, cname, C.int(dt), C.int(len(shape)), &hs[0], cp, gz)
	})
	return mpi.Agree(f.c, err)
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

// writeDataset makes (or reuses) dataset name and writes every rank's
// part of x into it, then its attributes.
func writeDataset[T backend.Numeric](f *file, x *dist.Array[T], name string, o options, host []T) error {
	l := x.Layout()
	if err := f.dataset(l, backend.DTypeOf[T](), name, o); err != nil {
		return err
	}
	start, count, ms, mst := part(l, f.c.Rank(), false)
	if err := io(f, name, l.Shape(), true, start, count, ms, mst, host); err != nil {
		return err
	}
	// A write that MPI-IO reported as done may not have reached the file
	// (Open MPI 4.1 returns success after a failed pwrite, see package
	// dist): the file is synced, and every rank reads back what it wrote
	// and compares it with memory.
	if _, err := lib(func() C.int { return C.xp_h5_flush(f.id) }); mpi.Agree(f.c, err) != nil {
		return mpi.Agree(f.c, err)
	}
	n := 1
	for _, k := range count {
		n *= k
	}
	back := make([]T, n)
	if err := io(f, name, l.Shape(), false, start, count, count, make([]int, len(count)), back); err != nil {
		return err
	}
	if err := mpi.Agree(f.c, compareBox(host, ms, mst, back, count, start)); err != nil {
		return err
	}
	return f.writeAttrs(name, o.attrs)
}

// compareBox compares the box of extent count at memstart in host (an
// array of memshape) with back (that box in C order), byte for byte.
func compareBox[T backend.Numeric](host []T, memshape, memstart []int, back []T, count, start []int) error {
	if len(back) == 0 {
		return nil
	}
	size := int(unsafe.Sizeof(back[0]))
	nd := len(count)
	row := count[nd-1]
	idx := make([]int, nd) // the row's index; idx[nd-1] stays 0
	for i := 0; i < len(back); i += row {
		off := 0
		for a := 0; a < nd; a++ {
			off = off*memshape[a] + memstart[a] + idx[a]
		}
		// A whole row at once; element by element only to name the first
		// that differs.
		x := unsafe.Slice((*byte)(unsafe.Pointer(&host[off])), size*row)
		y := unsafe.Slice((*byte)(unsafe.Pointer(&back[i])), size*row)
		if !bytes.Equal(x, y) {
			k := 0
			for bytes.Equal(x[k*size:(k+1)*size], y[k*size:(k+1)*size]) {
				k++
			}
			at := make([]int, nd)
			for a := range at {
				at[a] = start[a] + idx[a]
			}
			at[nd-1] += k
			return fmt.Errorf("element %v reads back as %v, written as %v: the write was lost although HDF5 reported it as done", at, back[i+k], host[off+k])
		}
		for a := nd - 2; a >= 0; a-- {
			idx[a]++
			if idx[a] < count[a] {
				break
			}
			idx[a] = 0
		}
	}
	return nil
}

// writeAttrs writes attrs on the object name (every rank the same: HDF5's
// attribute calls are collective).
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
		if err := mpi.Agree(f.c, err); err != nil {
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
// it. It is collective: each rank reads its block as a hyperslab in one
// collective transfer (a replicated array: the whole dataset on every
// rank). A missing file or dataset wraps fs.ErrNotExist; a dataset whose
// type is not T (complex is h5py's compound {r, i}) or that dist has no
// type for, a scalar dataset, and HDF5's own errors are the same error on
// every rank.
func Load[T backend.Numeric](c mpi.Comm, path, name string, opts ...dist.Option) (*dist.Array[T], error) {
	name = checkName("Load", name)
	if err := mpi.CheckCollective(c, "h5.Load", pathArg(path, name)); err != nil {
		return nil, err
	}
	wrap := func(err error) error { return fmt.Errorf("h5: Load %s: %w", where(path, name), err) }
	f, err := open(c, path, modeRead)
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
	err = io(f, name, in.shape, false, start, count, ms, mst, host)
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
	f, err := open(c, path, modeRead)
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
// its attributes. It is collective.
func CreateGroup(c mpi.Comm, path, name string, attrs map[string]any) error {
	name = checkName("CreateGroup", name)
	checkAttrs("CreateGroup", attrs)
	if err := mpi.CheckCollective(c, "h5.CreateGroup", pathArg(path, name)); err != nil {
		return err
	}
	err := func() error {
		exists, err := fileExists(c, path)
		if err != nil {
			return err
		}
		mode := C.int(modeWrite)
		if !exists {
			mode = modeCreate
		}
		f, err := open(c, path, mode)
		if err != nil {
			return err
		}
		cname := C.CString(name)
		defer C.free(unsafe.Pointer(cname))
		_, err = lib(func() C.int { return C.xp_h5_mkgroup(f.id, cname) })
		if err = mpi.Agree(c, err); err == nil {
			err = f.writeAttrs(name, attrs)
		}
		return firstErr(err, f.close())
	}()
	if err != nil {
		return fmt.Errorf("h5: CreateGroup %s: %w", where(path, name), err)
	}
	return nil
}

// SetAttrs writes attrs as attributes of the dataset or group name ("/"
// for the root group) of the HDF5 file at path, replacing attributes of the
// same names. It is collective.
func SetAttrs(c mpi.Comm, path, name string, attrs map[string]any) error {
	name = checkName("SetAttrs", name)
	checkAttrs("SetAttrs", attrs)
	if err := mpi.CheckCollective(c, "h5.SetAttrs", pathArg(path, name)); err != nil {
		return err
	}
	f, err := open(c, path, modeWrite)
	if err == nil {
		ok, _, e := f.exists(name)
		if e == nil && !ok {
			e = fmt.Errorf("no object %s: %w", name, fs.ErrNotExist)
		}
		if err = mpi.Agree(c, e); err == nil {
			err = f.writeAttrs(name, attrs)
		}
		err = firstErr(err, f.close())
	}
	if err != nil {
		return fmt.Errorf("h5: SetAttrs %s: %w", where(path, name), err)
	}
	return nil
}

// ReadAttrs returns the attributes of the dataset or group name ("/" for
// the root group) of the HDF5 file at path: strings as string, integers
// as int64, floats as float64, arrays of them as []int64 and []float64. It
// is collective (the ranks open the file together).
func ReadAttrs(c mpi.Comm, path, name string) (map[string]any, error) {
	name = checkName("ReadAttrs", name)
	if err := mpi.CheckCollective(c, "h5.ReadAttrs", pathArg(path, name)); err != nil {
		return nil, err
	}
	var m map[string]any
	f, err := open(c, path, modeRead)
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
