package zarr

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	chunkrule "github.com/xpmpi/xpmpi/internal/chunks"
	"github.com/xpmpi/xpmpi/mpi"
)

// Option sets how Save writes an array.
type Option func(*options)

type options struct {
	chunks  []int
	comp    string
	level   int
	fill    any
	hasFill bool
	attrs   map[string]any
	sep     string
}

// Chunks sets the shape of the chunks, one entry per dimension of the
// array (a chunk may be longer than its axis). Without it, Save chooses
// chunks aligned to the ranks' blocks (see the package documentation).
func Chunks(shape ...int) Option {
	for _, k := range shape {
		if k < 1 {
			panic(fmt.Sprintf("zarr: Chunks(%v): every length must be at least 1", shape))
		}
	}
	s := append([]int(nil), shape...)
	return func(o *options) { o.chunks = s }
}

// Zlib compresses every chunk with zlib at level (0 to 9), numcodecs'
// Zlib codec: {"id": "zlib", "level": level}.
func Zlib(level int) Option {
	checkLevel("Zlib", level)
	return func(o *options) { o.comp, o.level = "zlib", level }
}

// Gzip compresses every chunk with gzip at level (0 to 9), numcodecs' GZip
// codec: {"id": "gzip", "level": level}.
func Gzip(level int) Option {
	checkLevel("Gzip", level)
	return func(o *options) { o.comp, o.level = "gzip", level }
}

// Uncompressed writes the chunks as raw bytes (compressor null), the
// default.
func Uncompressed() Option { return func(o *options) { o.comp, o.level = "", 0 } }

func checkLevel(op string, level int) {
	if level < 0 || level > 9 {
		panic(fmt.Sprintf("zarr: %s(%d): the level is 0 to 9", op, level))
	}
}

// FillValue sets the array's fill_value, which readers give the elements
// of chunks that are missing from the store: a value of the array's element
// type, or an int or float64 (an untyped constant) that the type holds
// exactly. NaN and the infinities are written as zarr writes them ("NaN",
// "Infinity", "-Infinity"). The default is 0.
func FillValue(v any) Option { return func(o *options) { o.fill, o.hasFill = v, true } }

// Attributes writes attrs as the array's user attributes (.zattrs): values
// are strings, bools, numbers (finite floats) or slices of them.
func Attributes(attrs map[string]any) Option {
	encodeAttrs("Attributes", attrs) // check now, where the caller is
	return func(o *options) { o.attrs = attrs }
}

// NestedKeys writes the chunks with dimension_separator "/": the chunk at
// (1, 2) is the file 1/2 inside the array's directory instead of 1.2.
func NestedKeys() Option { return func(o *options) { o.sep = "/" } }

// nodePath returns the directory of the array or group name inside store,
// panicking on a name that is not a relative path of plain components.
func nodePath(op, store, name string) string {
	if store == "" {
		panic(fmt.Sprintf("zarr: %s: empty store path", op))
	}
	if name == "" {
		return store
	}
	for _, p := range strings.Split(name, "/") {
		if p == "" || p == "." || p == ".." || strings.HasPrefix(p, ".") || strings.ContainsRune(p, '\\') {
			panic(fmt.Sprintf("zarr: %s: name %q: want a path of plain components separated by /, such as \"fields/u\"", op, name))
		}
	}
	return filepath.Join(store, filepath.FromSlash(name))
}

func where(store, name string) string {
	if name == "" {
		return store
	}
	return store + ":" + name
}

func pathArg(store, name string) mpi.Arg {
	h := fnv.New64a()
	h.Write([]byte(store + "\x00" + name))
	return mpi.Arg{Name: "path", Value: int64(h.Sum64()), Text: where(store, name)}
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Save writes x as the Zarr v2 array name inside the directory store
// (name "" writes the array at the store's root; a name such as
// "fields/u" makes store a group holding the group fields, with a .zgroup
// at each level, which zarr.open(store)["fields/u"] reads). It is
// collective, and every rank writes its own chunks: how the chunks are
// chosen and who writes each is in the package documentation. The whole
// array is written under a temporary name beside its final one, each chunk
// to a temporary file that is synced, read back, compared with memory and
// renamed, and its metadata last; then it replaces an array already at the
// path. A crash never leaves a half-written array at the path, and a
// failure on any rank is the same error on every rank. An existing group,
// or a directory that is not a Zarr array, at the path is an error.
func Save[T backend.Numeric](x *dist.Array[T], store, name string, opts ...Option) error {
	dir := nodePath("Save", store, name)
	o := options{sep: "."}
	for _, f := range opts {
		f(&o)
	}
	l := x.Layout()
	if o.chunks != nil && len(o.chunks) != l.Dims() {
		panic(fmt.Sprintf("zarr: Save: Chunks(%v) for an array of %d dimensions", o.chunks, l.Dims()))
	}
	var fill T
	if o.hasFill {
		var ok bool
		if fill, ok = fillAs[T](o.fill); !ok {
			panic(fmt.Sprintf("zarr: Save: FillValue(%v) of type %T is not a %v", o.fill, o.fill, backend.DTypeOf[T]()))
		}
	}
	c := x.Comm()
	if err := mpi.CheckCollective(c, "zarr.Save", pathArg(store, name)); err != nil {
		return err
	}
	if err := save(x, store, name, dir, o, fill); err != nil {
		return fmt.Errorf("zarr: Save %s: %w", where(store, name), err)
	}
	return nil
}

func save[T backend.Numeric](x *dist.Array[T], store, name, dir string, o options, fill T) error {
	if !littleEndian {
		return errors.New("this machine is big-endian: Save writes little-endian data and would need byte swapping")
	}
	c := x.Comm()
	dt := backend.DTypeOf[T]()
	chunks := o.chunks
	if chunks == nil {
		chunks = chunkrule.Default(x.Layout(), dt.Size(), chunkrule.MaxBytes)
	}
	// Blocks whose boundaries do not fall on chunk boundaries move to a
	// layout whose blocks are whole chunks, so that every chunk is written
	// by one rank alone.
	y := x
	if l, same := alignedLayout(x.Layout(), chunks); !same {
		var err error
		if y, err = dist.Redistribute(x, l); err != nil {
			return err
		}
		defer y.Free()
	}
	host, herr := backend.ToHost(y.Local())
	if herr == nil && host != y.Local() {
		defer host.Free()
	}

	// Rank 0 checks the path and makes the temporary directory.
	var tmp string
	var err error
	if c.Rank() == 0 {
		tmp, err = prepare(store, name, dir)
	}
	if err := mpi.Agree(c, err); err != nil {
		return err
	}
	if tmp, err = bcastString(c, tmp); err != nil {
		return err
	}
	m := Metadata{
		Shape: x.Shape(), Chunks: chunks, DType: typestr[dt],
		Compressor: o.comp, Level: o.level, FillValue: formatFill(fill),
		Order: "C", Separator: o.sep,
	}
	lerr := herr
	if lerr == nil {
		lerr = writeChunks(tmp, m, y.Layout(), c.Rank(), c.Size(), host.Data(), fill)
	}
	if err := mpi.Agree(c, lerr); err != nil {
		if c.Rank() == 0 {
			os.RemoveAll(tmp)
		}
		return err
	}
	err = nil
	if c.Rank() == 0 {
		err = finish(store, name, dir, tmp, m, o.attrs)
		if err != nil {
			os.RemoveAll(tmp)
		}
	}
	return mpi.Agree(c, err)
}

// bcastString sends rank 0's s to every rank.
func bcastString(c mpi.Comm, s string) (string, error) {
	n, err := mpi.AllreduceValue(c, int64(len(s)), mpi.Max)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	copy(b, s)
	if err := mpi.BcastBytes(c, b, 0); err != nil {
		return "", err
	}
	return string(b), nil
}

// prepare checks that an array can be written at dir (name inside store)
// and makes the temporary directory beside it that the ranks write into.
func prepare(store, name, dir string) (string, error) {
	// The groups above the array must not be arrays.
	if name != "" {
		g := store
		for _, p := range append([]string{""}, strings.Split(name, "/")...) {
			g = filepath.Join(g, p)
			if g == dir {
				break
			}
			if isArray(g) {
				return "", fmt.Errorf("%s is a Zarr array, which cannot hold %s", g, name)
			}
			if fi, err := os.Stat(g); err == nil && !fi.IsDir() {
				return "", fmt.Errorf("%s is a file, not a directory", g)
			}
		}
	}
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%s is a file: remove it first", dir)
	case isArray(dir):
	default:
		if _, err := os.Stat(filepath.Join(dir, ".zgroup")); err == nil {
			return "", fmt.Errorf("%s is a Zarr group: remove it, or save the array under a name inside it", dir)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return "", err
		}
		if len(ents) > 0 {
			return "", fmt.Errorf("%s exists and is not a Zarr array: remove it first", dir)
		}
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(parent, "."+filepath.Base(dir)+".partial-")
}

func isArray(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".zarray"))
	return err == nil
}

// finish writes the metadata into tmp, moves tmp to dir (replacing what is
// there) and writes the .zgroup of every group above it that has none.
func finish(store, name, dir, tmp string, m Metadata, attrs map[string]any) error {
	if attrs != nil {
		if err := writeFile(tmp, ".zattrs", encodeAttrs("Save", attrs)); err != nil {
			return err
		}
	}
	if err := writeFile(tmp, ".zarray", encodeMeta(m)); err != nil {
		return err
	}
	if err := syncTree(tmp); err != nil {
		return err
	}
	if err := replace(tmp, dir); err != nil {
		return err
	}
	if name != "" {
		return makeGroups(store, name, false)
	}
	return nil
}

// replace moves the directory tmp to dir: an existing dir is first renamed
// aside, and removed once tmp is in place.
func replace(tmp, dir string) error {
	parent := filepath.Dir(dir)
	var old string
	if _, err := os.Stat(dir); err == nil {
		old = filepath.Join(parent, "."+filepath.Base(dir)+".old-"+randomSuffix())
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if err := syncDir(parent); err != nil {
		return err
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// makeGroups writes a .zgroup into store and every group on the way to name
// (name itself too, with self) where there is none.
func makeGroups(store, name string, self bool) error {
	parts := strings.Split(name, "/")
	if name == "" {
		parts = nil
	}
	if !self && len(parts) > 0 {
		parts = parts[:len(parts)-1]
	}
	g := store
	for i := 0; i <= len(parts); i++ {
		if i > 0 {
			g = filepath.Join(g, parts[i-1])
		}
		if isArray(g) {
			return fmt.Errorf("%s is a Zarr array, not a group", g)
		}
		if _, err := os.Stat(filepath.Join(g, ".zgroup")); err == nil {
			continue
		}
		if err := os.MkdirAll(g, 0o755); err != nil {
			return err
		}
		if err := writeFile(g, ".zgroup", []byte("{\n    \"zarr_format\": 2\n}\n")); err != nil {
			return err
		}
		if err := syncDir(filepath.Dir(g)); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes data to dir/name through a temporary file that is synced
// and renamed.
func writeFile(dir, name string, data []byte) error {
	tmp := filepath.Join(dir, "."+name+".partial-"+randomSuffix())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = firstErr(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	return firstErr(f.Sync(), f.Close())
}

// syncTree syncs dir and every directory under it (the nested chunk
// directories of dimension_separator "/").
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return syncDir(p)
		}
		return nil
	})
}

// writeChunks writes the chunks of this rank of l into dir: those inside
// its block, which is a union of whole chunks (a replicated array's chunks
// go to the ranks in turn).
func writeChunks[T backend.Numeric](dir string, m Metadata, l dist.Layout, rank, p int, host []T, fill T) error {
	shape, chunks := m.Shape, m.Chunks
	bstart, bshape := l.Block(rank)
	lo, hi, ok := chunkRange(bstart, bshape, chunks)
	if !ok {
		return nil
	}
	n := 1
	for _, k := range chunks {
		n *= k
	}
	var list [][]int
	replicated := l.Axis() == dist.Replicated
	k := -1
	eachIndex(lo, hi, func(idx []int) error {
		k++
		if !replicated || k%p == rank {
			list = append(list, append([]int(nil), idx...))
		}
		return nil
	})
	cs, bs := strides(chunks, false), strides(bshape, false)
	return parallel(len(list), func() func(i int) error {
		buf := make([]T, n)
		zero := make([]int, len(chunks))
		ext, at := make([]int, len(chunks)), make([]int, len(chunks))
		return func(i int) error {
			idx := list[i]
			edge := false
			for a := range idx {
				s := idx[a] * chunks[a]
				ext[a] = min(chunks[a], shape[a]-s)
				at[a] = s - bstart[a]
				edge = edge || ext[a] < chunks[a]
			}
			if edge {
				for i := range buf {
					buf[i] = fill
				}
			}
			copyBox(buf, cs, zero, host, bs, at, ext)
			data, err := encode(m.Compressor, m.Level, asBytes(buf))
			if err != nil {
				return err
			}
			return writeChunk(dir, chunkKey(idx, m.Separator), data, rank)
		}
	})
}

// parallel runs the n tasks that each worker made by newWorker does (a
// worker holds its own buffers), on up to backend.Threads() goroutines, and
// returns the first error.
func parallel(n int, newWorker func() func(i int) error) error {
	var mu sync.Mutex
	var first error
	backend.ParallelFor(n, 1, func(lo, hi int) {
		work := newWorker()
		for i := lo; i < hi; i++ {
			if err := work(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				return
			}
		}
	})
	return first
}

// testFault, where a test sets it, is called before each chunk's rename; its
// error fails the write of that chunk.
var testFault func(key string, rank int) error

// writeChunk writes one chunk's file through a temporary file, which it
// syncs, reads back and compares, and renames.
func writeChunk(dir, key string, data []byte, rank int) error {
	path := filepath.Join(dir, filepath.FromSlash(key))
	pdir := filepath.Dir(path)
	if pdir != dir {
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			return err
		}
	}
	tmp := filepath.Join(pdir, "."+filepath.Base(path)+".partial."+strconv.Itoa(rank))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = firstErr(err, f.Sync())
	if err == nil {
		back := make([]byte, len(data)+1)
		n, _ := f.ReadAt(back, 0)
		if n != len(data) || !bytes.Equal(back[:n], data) {
			err = fmt.Errorf("chunk %s reads back %d bytes that differ from the %d written: the write was lost although it was reported as done", key, n, len(data))
		}
	}
	err = firstErr(err, f.Close())
	if err == nil && testFault != nil {
		err = testFault(key, rank)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// fillAs returns v as a T where T holds it exactly.
func fillAs[T backend.Numeric](v any) (T, bool) {
	if t, ok := v.(T); ok {
		return t, true
	}
	var z T
	var re, im float64
	switch x := v.(type) {
	case int:
		// An integer type takes an int that fits its bits exactly.
		if dt := backend.DTypeOf[T](); !dt.IsFloat() && !dt.IsComplex() {
			bits := dt.Size() * 8
			if dt.IsSigned() {
				if bits < 64 && (x < -1<<(bits-1) || x >= 1<<(bits-1)) {
					return z, false
				}
			} else if x < 0 || (bits < 64 && x >= 1<<bits) {
				return z, false
			}
			setInt(&z, uint64(x))
			return z, true
		}
		re = float64(x)
		if int(re) != x {
			return z, false
		}
	case float64:
		re = x
	case complex128:
		re, im = real(x), imag(x)
	default:
		return z, false
	}
	dt := backend.DTypeOf[T]()
	switch p := any(&z).(type) {
	case *float32:
		*p = float32(re)
		return z, im == 0 && (float64(*p) == re || math.IsNaN(re))
	case *float64:
		*p = re
		return z, im == 0
	case *complex64:
		*p = complex(float32(re), float32(im))
		return z, (float64(real(*p)) == re || math.IsNaN(re)) && (float64(imag(*p)) == im || math.IsNaN(im))
	case *complex128:
		*p = complex(re, im)
		return z, true
	}
	bits := dt.Size() * 8
	if im != 0 || re != math.Trunc(re) {
		return z, false
	}
	if dt.IsSigned() {
		if re < -math.Ldexp(1, bits-1) || re >= math.Ldexp(1, bits-1) {
			return z, false
		}
		setInt(&z, uint64(int64(re)))
		return z, true
	}
	if re < 0 || re >= math.Ldexp(1, bits) {
		return z, false
	}
	setInt(&z, uint64(re))
	return z, true
}

// Stat returns the metadata of the array name inside store (name "" for
// the store's root), as its .zarray says, whether or not Load can read it.
// It is not collective.
func Stat(store, name string) (Metadata, error) {
	m, err := readMeta(nodePath("Stat", store, name))
	if err != nil {
		return m, fmt.Errorf("zarr: Stat %s: %w", where(store, name), err)
	}
	return m, nil
}

// ReadAttrs returns the user attributes (.zattrs) of the array or group
// name inside store: an empty map where it has none. Integers that fit an
// int64 come back as int64, other numbers as float64, lists as []any. It is
// not collective.
func ReadAttrs(store, name string) (map[string]any, error) {
	dir := nodePath("ReadAttrs", store, name)
	b, err := os.ReadFile(filepath.Join(dir, ".zattrs"))
	if errors.Is(err, fs.ErrNotExist) {
		if !isArray(dir) && !isGroup(dir) {
			return nil, fmt.Errorf("zarr: ReadAttrs %s: no Zarr array or group there: %w", where(store, name), fs.ErrNotExist)
		}
		return map[string]any{}, nil
	}
	if err == nil {
		var m map[string]any
		if m, err = decodeAttrs(b); err == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("zarr: ReadAttrs %s: %w", where(store, name), err)
}

func isGroup(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".zgroup"))
	return err == nil
}

// CreateGroup makes the group name inside store (name "" for the store's
// root), with a .zgroup at every level that has none, and writes attrs as
// its attributes where attrs is not nil (replacing any). It is collective:
// rank 0 writes, and an error is the same on every rank.
func CreateGroup(c mpi.Comm, store, name string, attrs map[string]any) error {
	dir := nodePath("CreateGroup", store, name)
	var data []byte
	if attrs != nil {
		data = encodeAttrs("CreateGroup", attrs)
	}
	if err := mpi.CheckCollective(c, "zarr.CreateGroup", pathArg(store, name)); err != nil {
		return err
	}
	var err error
	if c.Rank() == 0 {
		if err = makeGroups(store, name, true); err == nil && data != nil {
			err = writeFile(dir, ".zattrs", data)
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		return fmt.Errorf("zarr: CreateGroup %s: %w", where(store, name), err)
	}
	return nil
}

// SetAttrs replaces the user attributes (.zattrs) of the array or group
// name inside store with attrs. It is collective: rank 0 writes, and an
// error is the same on every rank.
func SetAttrs(c mpi.Comm, store, name string, attrs map[string]any) error {
	dir := nodePath("SetAttrs", store, name)
	data := encodeAttrs("SetAttrs", attrs)
	if err := mpi.CheckCollective(c, "zarr.SetAttrs", pathArg(store, name)); err != nil {
		return err
	}
	var err error
	if c.Rank() == 0 {
		if !isArray(dir) && !isGroup(dir) {
			err = fmt.Errorf("no Zarr array or group there: %w", fs.ErrNotExist)
		} else {
			err = writeFile(dir, ".zattrs", data)
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		return fmt.Errorf("zarr: SetAttrs %s: %w", where(store, name), err)
	}
	return nil
}

// open reads the metadata of the array at dir and checks that it holds T.
func open[T backend.Numeric](dir string) (arrayMeta, error) {
	m, err := readMeta(dir)
	if err != nil {
		return arrayMeta{}, err
	}
	a, err := m.check()
	if err != nil {
		return a, err
	}
	if want := backend.DTypeOf[T](); a.dt != want {
		return a, fmt.Errorf("the array holds %s (%v), not %v", m.DType, a.dt, want)
	}
	return a, nil
}

// Load reads the Zarr v2 array name inside store (name "" for an array at
// the store's root) into a new array on c, laid out by opts (dist.SplitAxis,
// dist.BlockSizes, dist.ProcessGrid, dist.GridBlockSizes, dist.OnBackend,
// dist.Ghosts) as dist.Zeros lays it out: any rank count and layout,
// whatever chunking wrote it. It is collective. Every rank reads the chunks
// that meet its block and copies what lies in it; a chunk that is missing
// from the store reads as the fill_value (0 where it is null). An array
// whose element type is not T, a compressor other than zlib and gzip, a
// filter, a 0-dimensional array or a corrupted chunk is the same error on
// every rank, which names what is not supported.
func Load[T backend.Numeric](c mpi.Comm, store, name string, opts ...dist.Option) (*dist.Array[T], error) {
	dir := nodePath("Load", store, name)
	if err := mpi.CheckCollective(c, "zarr.Load", pathArg(store, name)); err != nil {
		return nil, err
	}
	wrap := func(err error) error { return fmt.Errorf("zarr: Load %s: %w", where(store, name), err) }
	m, err := open[T](dir)
	if err := mpi.Agree(c, err); err != nil {
		return nil, wrap(err)
	}
	x, err := zeros[T](c, m.Shape, opts)
	if err != nil {
		return nil, wrap(err)
	}
	if err := read(x, m, dir); err != nil {
		x.Free()
		return nil, wrap(err)
	}
	return x, nil
}

// zeros is dist.Zeros, with a layout option that does not fit the file's
// shape (a split axis it does not have) an error rather than a panic: the
// file decides the shape. dist checks the options before it communicates,
// so every rank fails alike.
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

// LoadInto reads the Zarr v2 array name inside store into x, an array of
// its shape and element type, whatever layout x has and whatever chunking
// wrote the store, as Load does but into memory the caller has. It is
// collective. An array of another shape or type is the same error on every
// rank and leaves x as it was; a failure while reading chunks may leave x
// partly written.
func LoadInto[T backend.Numeric](x *dist.Array[T], store, name string) error {
	dir := nodePath("LoadInto", store, name)
	c := x.Comm()
	if err := mpi.CheckCollective(c, "zarr.LoadInto", pathArg(store, name)); err != nil {
		return err
	}
	m, err := open[T](dir)
	if err == nil && !equalInts(m.Shape, x.Shape()) {
		err = fmt.Errorf("the array has shape %v, the destination %v", m.Shape, x.Shape())
	}
	if err := mpi.Agree(c, err); err != nil {
		return fmt.Errorf("zarr: LoadInto %s: %w", where(store, name), err)
	}
	if err := read(x, m, dir); err != nil {
		return fmt.Errorf("zarr: LoadInto %s: %w", where(store, name), err)
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

// read fills x's block on every rank from the chunks of the array at dir.
func read[T backend.Numeric](x *dist.Array[T], m arrayMeta, dir string) error {
	c := x.Comm()
	bstart, bshape := x.Layout().Block(c.Rank())
	local := x.Local()
	var host []T
	onHost := local.Device().IsHost()
	if onHost {
		host = local.Data()
	} else {
		host = make([]T, local.Len())
	}
	err := readBlock(dir, m, bstart, bshape, host)
	if err == nil && !onHost {
		err = backend.CopyFromHostSlice(local, host)
	}
	return mpi.Agree(c, err)
}

// readBlock reads the box at bstart of extent bshape into host (that box
// in C order) from the chunks that meet it.
func readBlock[T backend.Numeric](dir string, m arrayMeta, bstart, bshape []int, host []T) error {
	fill, _, err := parseFill[T](m.FillValue)
	if err != nil {
		return err
	}
	lo, hi, ok := chunkRange(bstart, bshape, m.Chunks)
	if !ok {
		return nil
	}
	n := 1
	for _, k := range m.Chunks {
		n *= k
	}
	var list [][]int
	eachIndex(lo, hi, func(idx []int) error {
		list = append(list, append([]int(nil), idx...))
		return nil
	})
	cs, bs := strides(m.Chunks, m.fortran), strides(bshape, false)
	nd := len(bshape)
	// The chunks' parts of the block are disjoint: workers write host
	// without a lock.
	return parallel(len(list), func() func(i int) error {
		buf := make([]T, n)
		raw := asBytes(buf)
		ext, src, dst := make([]int, nd), make([]int, nd), make([]int, nd)
		filled := false
		return func(i int) error {
			idx := list[i]
			for a := range idx {
				cstart := idx[a] * m.Chunks[a]
				s := max(cstart, bstart[a])
				e := min(cstart+m.Chunks[a], bstart[a]+bshape[a])
				ext[a], src[a], dst[a] = e-s, s-cstart, s-bstart[a]
			}
			key := chunkKey(idx, m.Separator)
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				if !filled {
					for i := range buf {
						buf[i] = fill
					}
					filled = true
				}
			case err != nil:
				return err
			default:
				filled = false
				if err := decode(m.Compressor, data, raw); err != nil {
					return fmt.Errorf("chunk %s: %w", key, err)
				}
				if m.swap {
					swapBytes(raw, m.dt.Size(), m.dt.IsComplex())
				}
			}
			copyBox(host, bs, dst, buf, cs, src, ext)
			return nil
		}
	})
}
