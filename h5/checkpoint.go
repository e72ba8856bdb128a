package h5

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/npy"
)

// HDF5 checkpoints.
//
// An HDF5 checkpoint is a dist checkpoint directory (see
// dist.SaveCheckpoint) whose arrays are the datasets of one HDF5 file
// instead of one .npy file each:
//
//	DIR/manifest.json   dist's manifest: step, metadata, no .npy arrays
//	DIR/checkpoint.h5   one dataset per array, at the root ("/u"), contiguous
//
// Package dist cannot import this package (it imports dist), so the HDF5
// writer plugs into dist's save protocol through dist.SaveCheckpointFiles:
// the temporary directory, the lock, the renames, the .old recovery and
// the manifest are dist's, unchanged. This package writes checkpoint.h5
// into the temporary directory: rank 0 makes the file alone with HDF5's
// POSIX driver (every dataset contiguous, its storage allocated at
// creation, nothing written); every rank writes its part of each dataset
// into that storage itself, as dist writes a .npy file (pwrite where every
// rank is on one node, independent MPI-IO writes across nodes; XPMPI_IO
// chooses), syncs, and reads it back through a file handle of its own,
// comparing it with memory and computing each array's CRC-32C from the
// bytes read; rank 0 then opens the file again with HDF5 and checks every
// dataset's type, shape and place. dist writes the manifest, with the
// entries below, only then. A failure on any rank fails the save on every
// rank, naming the operation, the file and the dataset, and the previous
// checkpoint stays. The data does not go through HDF5's collective
// transfers because a collective write that fails on one rank (Open MPI
// 4.1: EIO on rank 0 of 3) leaves the other ranks waiting inside HDF5.
//
// The manifest's metadata holds, besides the caller's:
//
//	xpmpi.format    "hdf5"
//	xpmpi.file      "checkpoint.h5"
//	xpmpi.array.N   for array N: its NumPy type, shape and checksum,
//	                "<f8 [25 27] crc32c:0123abcd"
//
// The checksum is the one of dist's checkpoints: the CRC-32C of the global
// array's bytes in C order, independent of the layout. LoadCheckpointArray
// checks the dataset's type and shape against the manifest and the data
// read against the checksum: a damaged file is an error on every rank,
// never a wrong array.
const (
	// CheckpointFile is the name of the HDF5 file in a checkpoint
	// directory that SaveCheckpoint writes.
	CheckpointFile = "checkpoint.h5"

	metaPrefix = "xpmpi."
	metaFormat = metaPrefix + "format"
	metaFile   = metaPrefix + "file"
	metaArray  = metaPrefix + "array."
	formatName = "hdf5"
)

// Entry is an array with its name in an HDF5 checkpoint; CheckpointEntry
// makes one.
type Entry struct {
	name string
	a    ckptArray
}

// ckptArray is what a checkpoint needs of an array of any element type.
type ckptArray interface {
	comm() mpi.Comm
	layout() dist.Layout
	dtype() backend.DType
	freed() bool
}

// typed is a checkpoint's array of element type T.
type typed[T backend.Numeric] struct{ x *dist.Array[T] }

func (t typed[T]) comm() mpi.Comm       { return t.x.Comm() }
func (t typed[T]) layout() dist.Layout  { return t.x.Layout() }
func (t typed[T]) dtype() backend.DType { return backend.DTypeOf[T]() }
func (t typed[T]) freed() bool          { return t.x.Freed() }

// CheckpointEntry names x for SaveCheckpoint: the array is the dataset
// /<name> of the checkpoint's HDF5 file. A name is what dist.Entry takes:
// 1 to 128 letters, digits, '_', '-' and '.', not starting with '.' or '-'.
func CheckpointEntry[T backend.Numeric](name string, x *dist.Array[T]) Entry {
	if x == nil {
		panic(fmt.Sprintf("h5: CheckpointEntry %q of a nil array", name))
	}
	dist.Entry(name, x) // the same rules for names (it panics)
	return Entry{name: name, a: typed[T]{x}}
}

// Name returns the entry's name.
func (e Entry) Name() string { return e.name }

// SaveCheckpoint writes the arrays, the step and the metadata as an HDF5
// checkpoint in the directory dir, with every guarantee of
// dist.SaveCheckpoint: it replaces the checkpoint at dir (of either
// format) atomically, only after every rank has read back what it wrote
// from a fresh open of the file and compared it with memory; a failure on
// any rank (an HDF5 error, a write that MPI-IO reported as done but that
// did not reach the file, a full disk) is the same error on every rank,
// naming the operation, the file and the dataset, and leaves the previous
// checkpoint in place; the directory lock, symbolic links and crash
// recovery are dist's. It is collective over c: every rank passes the
// same arguments. Metadata keys starting with "xpmpi." are reserved.
//
// Every rank writes its block of each array into the dataset's storage
// and reads it back (see the comment at the top of this file): about twice
// the array's bytes through the file system, plus a few small collectives
// per array (the agreement on each step, one Allgather for the checksum).
// Without HDF5 (a build without the tags mpi and hdf5) it returns an error
// wrapping ErrUnavailable.
func SaveCheckpoint(c mpi.Comm, dir string, step int64, meta map[string]string, arrays ...Entry) error {
	seen := map[string]bool{}
	for _, e := range arrays {
		if e.a == nil {
			panic("h5: SaveCheckpoint: an Entry that CheckpointEntry did not make")
		}
		if low := strings.ToLower(e.name); seen[low] {
			panic(fmt.Sprintf("h5: SaveCheckpoint: array name %q twice", e.name))
		} else {
			seen[low] = true
		}
		if e.a.comm() != c {
			panic(fmt.Sprintf("h5: SaveCheckpoint: array %q is on another communicator", e.name))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) { // the same key named every time
		if strings.HasPrefix(k, metaPrefix) {
			panic(fmt.Sprintf("h5: SaveCheckpoint: metadata key %q: keys starting with %q are reserved", k, metaPrefix))
		}
	}
	if err := mpi.CheckCollective(c, "h5.SaveCheckpoint", mpi.Arg{Name: "arrays", Value: int64(len(arrays))}); err != nil {
		return err
	}
	for _, e := range arrays {
		if e.a.freed() {
			return fmt.Errorf("h5: SaveCheckpoint %s: the entry %q: %w", dir, e.name, dist.ErrFreed)
		}
	}
	if !Available() {
		return fmt.Errorf("h5: SaveCheckpoint %s: %w", dir, ErrUnavailable)
	}
	return dist.SaveCheckpointFiles(c, dir, step, meta, func(tmp string) (map[string]string, error) {
		return writeCheckpoint(c, filepath.Join(tmp, CheckpointFile), arrays)
	})
}

// IsCheckpoint reports whether m is the manifest of an HDF5 checkpoint,
// which LoadCheckpointArray reads (dist.LoadArray reads the others).
func IsCheckpoint(m dist.Manifest) bool { return m.Meta[metaFormat] == formatName }

// CheckpointArrays returns the names of the arrays of an HDF5 checkpoint,
// in the order of their names.
func CheckpointArrays(m dist.Manifest) []string {
	var names []string
	for k := range m.Meta {
		if n, ok := strings.CutPrefix(k, metaArray); ok {
			names = append(names, n)
		}
	}
	sortStrings(names)
	return names
}

// CheckpointShape returns the shape of the array called name of an HDF5
// checkpoint, as its manifest gives it, and whether there is one.
func CheckpointShape(m dist.Manifest, name string) ([]int, bool) {
	v, ok := m.Meta[metaArray+name]
	if !ok || !IsCheckpoint(m) {
		return nil, false
	}
	a, err := parseArrayInfo(v)
	if err != nil {
		return nil, false
	}
	return a.shape, true
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// arrayInfo is an array's entry of an HDF5 checkpoint's manifest.
type arrayInfo struct {
	dt    backend.DType
	shape []int
	sum   uint32
}

func (a arrayInfo) String() string {
	s := make([]string, len(a.shape))
	for i, d := range a.shape {
		s[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("%s [%s] crc32c:%08x", npy.Descr(a.dt), strings.Join(s, " "), a.sum)
}

func parseArrayInfo(v string) (arrayInfo, error) {
	bad := fmt.Errorf("bad entry %q: want \"<type> [<shape>] crc32c:<8 hex digits>\"", v)
	descr, rest, ok := strings.Cut(v, " [")
	if !ok {
		return arrayInfo{}, bad
	}
	dims, sum, ok := strings.Cut(rest, "] crc32c:")
	if !ok || len(sum) != 8 {
		return arrayInfo{}, bad
	}
	dt, err := npy.ParseDescr(descr)
	if err != nil || npy.Descr(dt) != descr {
		return arrayInfo{}, bad
	}
	a := arrayInfo{dt: dt}
	for _, f := range strings.Fields(dims) {
		d, err := strconv.Atoi(f)
		if err != nil || d < 0 {
			return arrayInfo{}, bad
		}
		a.shape = append(a.shape, d)
	}
	if len(a.shape) == 0 {
		return arrayInfo{}, bad
	}
	if _, err := dist.ShapeLen(a.shape); err != nil {
		return arrayInfo{}, bad
	}
	s, err := strconv.ParseUint(sum, 16, 32)
	if err != nil {
		return arrayInfo{}, bad
	}
	a.sum = uint32(s)
	return a, nil
}

// LoadCheckpointArray reads the array called name from the HDF5
// checkpoint that r opened on c (dist.OpenCheckpoint, which also recovers
// after a crashed save) into a new array on c, laid out by
// opts as for Load: any number of ranks, any layout. It checks the
// dataset's type and shape against the manifest and the data read against
// the manifest's checksum: a missing array, an element type other than T,
// a damaged file are the same error on every rank, never a wrong array. A
// checkpoint of .npy files (IsCheckpoint false) is refused, pointing to
// dist.LoadArray. It is collective: each rank reads its block (as Load
// does), then one small Allgather for the checksum.
// Without HDF5 it returns an error wrapping ErrUnavailable.
func LoadCheckpointArray[T backend.Numeric](c mpi.Comm, r *dist.CheckpointReader, name string, opts ...dist.Option) (*dist.Array[T], error) {
	if err := mpi.CheckCollective(c, "h5.LoadCheckpointArray", pathArg(r.Dir(), name)); err != nil {
		return nil, err
	}
	m := r.Manifest()
	path := filepath.Join(r.Dir(), CheckpointFile)
	fail := func(err error) error { return fmt.Errorf("h5: checkpoint %s: array %q: %w", r.Dir(), name, err) }
	if !IsCheckpoint(m) {
		return nil, fail(fmt.Errorf("not an HDF5 checkpoint (its arrays are .npy files): read it with dist.LoadArray"))
	}
	if f := m.Meta[metaFile]; f != CheckpointFile {
		return nil, fail(fmt.Errorf("the manifest names the file %q, not %q", f, CheckpointFile))
	}
	v, ok := m.Meta[metaArray+name]
	if !ok {
		return nil, fail(fmt.Errorf("no such array (the checkpoint holds %v)", CheckpointArrays(m)))
	}
	info, err := parseArrayInfo(v)
	if err != nil {
		return nil, fail(err)
	}
	if want := backend.DTypeOf[T](); info.dt != want {
		return nil, fail(fmt.Errorf("the checkpoint holds %v, not %v", info.dt, want))
	}
	if !Available() {
		return nil, fail(ErrUnavailable)
	}
	x, err := loadCheckpoint[T](c, path, "/"+name, info, opts)
	if err != nil {
		return nil, fail(err)
	}
	return x, nil
}

// boxCRC folds into s the box of extent count that lies at memstart in
// data (an array of memshape in C order) and at start in the global array
// of shape: its runs along the last axis, at their offsets in the global
// array's bytes, in increasing order.
func boxCRC[T backend.Numeric](s *crc32c.Sum, data []T, memshape, memstart, count, start, shape []int) {
	nd := len(count)
	for _, k := range count {
		if k == 0 {
			return
		}
	}
	var z T
	size := int64(unsafe.Sizeof(z))
	idx := make([]int, nd) // over the box's axes but the last
	row := count[nd-1]
	for {
		moff, goff := 0, int64(0)
		for a := 0; a < nd; a++ {
			i := idx[a]
			moff = moff*memshape[a] + memstart[a] + i
			goff = goff*int64(shape[a]) + int64(start[a]+i)
		}
		run := data[moff : moff+row]
		s.Add(goff*size, unsafe.Slice((*byte)(unsafe.Pointer(&run[0])), int(size)*row))
		a := nd - 2
		for ; a >= 0; a-- {
			idx[a]++
			if idx[a] < count[a] {
				break
			}
			idx[a] = 0
		}
		if a < 0 {
			return
		}
	}
}

// combineCRC returns the CRC-32C of the global array of total bytes whose
// runs the ranks of c folded into s: one Allgather.
func combineCRC(c mpi.Comm, s *crc32c.Sum, total int64) (uint32, error) {
	all := make([]uint32, c.Size())
	if err := mpi.Allgather(c, []uint32{s.Part(total)}, all); err != nil {
		return 0, err
	}
	parts := uint32(0)
	for _, v := range all {
		parts ^= v
	}
	return crc32c.Finish(parts, total), nil
}

// Test hooks (export_test.go): nil outside the package's tests.
var (
	// testAfterWrite runs on every rank after the checkpoint file is
	// written, closed and synced, before it is opened again to be verified.
	testAfterWrite func(c mpi.Comm, path string)
	// testWriteError, where it returns an error, replaces the outcome of
	// writing dataset name on this rank.
	testWriteError func(c mpi.Comm, name string) error
	// testReadError, where it returns an error, replaces the outcome of
	// reading this rank's part of dataset name.
	testReadError func(c mpi.Comm, name string) error
)
