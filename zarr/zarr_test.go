package zarr_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/zarr"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// ref is the element at flat index i of every test array of T; the Python
// side of the interoperability tests (testdata/make_stores.py, pyRef)
// computes the same values.
func ref[T backend.Numeric](i int) T {
	var z T
	n := int64(i)
	switch p := any(&z).(type) {
	case *float32:
		*p = float32(float64(n)*0.25 - 3.5)
	case *float64:
		*p = float64(n)*0.25 - 3.5
	case *complex64:
		*p = complex(float32(float64(n)*0.5-1), float32(float64(n)*0.25+0.5))
	case *complex128:
		*p = complex(float64(n)*0.5-1, float64(n)*0.25+0.5)
	case *int8:
		*p = int8((n*7+3)%251 - 125)
	case *uint8:
		*p = uint8((n*7 + 3) % 251)
	case *int16:
		*p = int16((n*37+3)%30011 - 15000)
	case *uint16:
		*p = uint16((n*37 + 3) % 60013)
	case *int32:
		*p = int32((n*100003+3)%2000000011 - 1000000000)
	case *uint32:
		*p = uint32((n*100003 + 3) % 4000000007)
	case *int64:
		*p = n*1000000007 - 1<<40
	case *uint64:
		*p = uint64(n)*1000000007 + 1<<63
	}
	return z
}

func prod(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

func flat(idx, shape []int) int {
	off := 0
	for a := range shape {
		off = off*shape[a] + idx[a]
	}
	return off
}

func refArray[T backend.Numeric](t testing.TB, c mpi.Comm, shape []int, opts ...dist.Option) *dist.Array[T] {
	t.Helper()
	a, err := dist.FromFunc(c, shape, func(idx []int) T { return ref[T](flat(idx, shape)) }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sameBits compares two elements bit for bit (NaN equal to NaN).
func sameBits[T backend.Numeric](a, b T) bool {
	switch x := any(a).(type) {
	case float32:
		return math.Float32bits(x) == math.Float32bits(any(b).(float32))
	case float64:
		return math.Float64bits(x) == math.Float64bits(any(b).(float64))
	case complex64:
		y := any(b).(complex64)
		return math.Float32bits(real(x)) == math.Float32bits(real(y)) && math.Float32bits(imag(x)) == math.Float32bits(imag(y))
	case complex128:
		y := any(b).(complex128)
		return math.Float64bits(real(x)) == math.Float64bits(real(y)) && math.Float64bits(imag(x)) == math.Float64bits(imag(y))
	}
	return a == b
}

// check fails the test on every rank unless every element of a's block is
// want(its global multi-index).
func check[T backend.Numeric](t testing.TB, a *dist.Array[T], want func(idx []int) T) {
	t.Helper()
	c := a.Comm()
	start, shape := a.Layout().Block(c.Rank())
	data := a.LocalData()
	msg := ""
	if len(data) != prod(shape) {
		msg = fmt.Sprintf("block of %d elements, want %d", len(data), prod(shape))
	}
	idx := make([]int, len(shape))
	for i := 0; i < len(data) && msg == ""; i++ {
		r := i
		for ax := len(shape) - 1; ax >= 0; ax-- {
			idx[ax] = start[ax] + r%shape[ax]
			r /= shape[ax]
		}
		if w := want(idx); !sameBits(data[i], w) {
			msg = fmt.Sprintf("element %v is %v, want %v", idx, data[i], w)
		}
	}
	mpitest.Check(t, c, msg == "", "%s", msg)
}

func checkRef[T backend.Numeric](t testing.TB, a *dist.Array[T]) {
	t.Helper()
	shape := a.Shape()
	check(t, a, func(idx []int) T { return ref[T](flat(idx, shape)) })
}

// shapes: 1-D to 3-D, zero dimensions, fewer indices than ranks, sizes
// that 2, 3 and 4 do not divide.
var shapes = [][]int{
	{0}, {1}, {3}, {7}, {13},
	{0, 3}, {3, 0}, {1, 4}, {5, 3}, {7, 6}, {2, 9},
	{3, 4, 5}, {5, 1, 3},
}

// uneven returns block sizes of n over p ranks with rank 0 empty (p > 1)
// and the others uneven.
func uneven(n, p int) []int {
	c := make([]int, p)
	if p == 1 {
		c[0] = n
		return c
	}
	rest := n
	for r := p - 1; r >= 2; r-- {
		c[r] = n / (2 * p)
		rest -= c[r]
	}
	c[1] = rest
	return c
}

type layout struct {
	name string
	opts []dist.Option
}

// layouts returns the layouts of shape at p ranks that the tests write
// and read: split along each axis, uneven blocks with an empty rank,
// replicated, and a process grid.
func layouts(shape []int, p int) []layout {
	ls := []layout{}
	for a := range shape {
		ls = append(ls, layout{fmt.Sprintf("axis%d", a), []dist.Option{dist.SplitAxis(a)}})
	}
	ls = append(ls,
		layout{"uneven", []dist.Option{dist.BlockSizes(uneven(shape[0], p))}},
		layout{"replicated", []dist.Option{dist.SplitAxis(dist.Replicated)}},
	)
	if len(shape) > 1 {
		dims := make([]int, len(shape))
		ls = append(ls, layout{"grid", []dist.Option{dist.ProcessGrid(dims...)}})
		counts := make([][]int, len(shape))
		for a := range shape {
			counts[a] = []int{shape[a]}
		}
		counts[len(shape)-1] = uneven(shape[len(shape)-1], p)
		ls = append(ls, layout{"grid-uneven", []dist.Option{dist.GridBlockSizes(counts...)}})
	}
	return ls
}

// TestRoundTrip writes every test shape from every layout with default,
// small and oversized chunks, and reads it back into every layout.
func TestRoundTrip(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	dir := mpitest.TempDir(t, c)
	chunkings := []struct {
		name  string
		chunk func(shape []int) []int
	}{
		{"default", nil},
		{"small", func(s []int) []int { return fill(len(s), 2) }},
		{"large", func(s []int) []int { return fill(len(s), 8) }},
	}
	for _, shape := range shapes {
		ls := layouts(shape, p)
		for _, w := range ls {
			for ci, ch := range chunkings {
				if testing.Short() && ci > 0 && len(shape) == 3 {
					continue
				}
				t.Run(fmt.Sprintf("%v/%s/%s", shape, w.name, ch.name), func(t *testing.T) {
					x := refArray[float64](t, c, shape, w.opts...)
					defer x.Free()
					var opts []zarr.Option
					if ch.chunk != nil {
						opts = append(opts, zarr.Chunks(ch.chunk(shape)...))
					}
					store := filepath.Join(dir, "rt.zarr")
					if err := zarr.Save(x, store, "", opts...); err != nil {
						t.Fatal(err)
					}
					if ch.chunk != nil {
						m, err := zarr.Stat(store, "")
						if err != nil {
							t.Fatal(err)
						}
						if fmt.Sprint(m.Chunks) != fmt.Sprint(ch.chunk(shape)) {
							t.Fatalf("chunks %v, want %v", m.Chunks, ch.chunk(shape))
						}
					}
					for i, r := range ls {
						if testing.Short() && i%2 == 1 {
							continue
						}
						y, err := zarr.Load[float64](c, store, "", r.opts...)
						if err != nil {
							t.Fatalf("read as %s: %v", r.name, err)
						}
						checkRef(t, y)
						y.Free()
					}
				})
			}
		}
	}
}

func fill(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// TestChunkFiles checks that every chunk of the grid is written, once, and
// that no temporary file is left, for layouts whose blocks share chunks.
func TestChunkFiles(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	dir := mpitest.TempDir(t, c)
	shape := []int{7, 5}
	for _, w := range layouts(shape, p) {
		for _, chunks := range [][]int{nil, {2, 2}, {3, 5}, {1, 1}} {
			t.Run(fmt.Sprintf("%s/%v", w.name, chunks), func(t *testing.T) {
				x := refArray[int32](t, c, shape, w.opts...)
				defer x.Free()
				store := filepath.Join(dir, "files.zarr")
				var opts []zarr.Option
				if chunks != nil {
					opts = append(opts, zarr.Chunks(chunks...))
				}
				if err := zarr.Save(x, store, "", opts...); err != nil {
					t.Fatal(err)
				}
				msg := ""
				if c.Rank() == 0 {
					m, err := zarr.Stat(store, "")
					if err != nil {
						t.Fatal(err)
					}
					want := map[string]bool{".zarray": true}
					for i := 0; i < (shape[0]+m.Chunks[0]-1)/m.Chunks[0]; i++ {
						for j := 0; j < (shape[1]+m.Chunks[1]-1)/m.Chunks[1]; j++ {
							want[fmt.Sprintf("%d.%d", i, j)] = true
						}
					}
					ents, _ := os.ReadDir(store)
					for _, e := range ents {
						if !want[e.Name()] {
							msg += " unexpected " + e.Name()
						}
						delete(want, e.Name())
					}
					for k := range want {
						msg += " missing " + k
					}
					parent, _ := os.ReadDir(dir)
					for _, e := range parent {
						if e.Name() != "files.zarr" {
							msg += " left over " + e.Name()
						}
					}
				}
				mpitest.Check(t, c, msg == "", "%s", msg)
			})
		}
	}
}

// TestTypes round-trips every element type, compressed and not, with a
// chunking that two ranks share.
func TestTypes(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	t.Run("float32", func(t *testing.T) { roundTripType[float32](t, c, dir) })
	t.Run("float64", func(t *testing.T) { roundTripType[float64](t, c, dir) })
	t.Run("int8", func(t *testing.T) { roundTripType[int8](t, c, dir) })
	t.Run("int16", func(t *testing.T) { roundTripType[int16](t, c, dir) })
	t.Run("int32", func(t *testing.T) { roundTripType[int32](t, c, dir) })
	t.Run("int64", func(t *testing.T) { roundTripType[int64](t, c, dir) })
	t.Run("uint8", func(t *testing.T) { roundTripType[uint8](t, c, dir) })
	t.Run("uint16", func(t *testing.T) { roundTripType[uint16](t, c, dir) })
	t.Run("uint32", func(t *testing.T) { roundTripType[uint32](t, c, dir) })
	t.Run("uint64", func(t *testing.T) { roundTripType[uint64](t, c, dir) })
	t.Run("complex64", func(t *testing.T) { roundTripType[complex64](t, c, dir) })
	t.Run("complex128", func(t *testing.T) { roundTripType[complex128](t, c, dir) })
}

var typestrs = map[backend.DType]string{
	backend.Float32: "<f4", backend.Float64: "<f8", backend.Int8: "|i1", backend.Int16: "<i2",
	backend.Int32: "<i4", backend.Int64: "<i8", backend.Uint8: "|u1", backend.Uint16: "<u2",
	backend.Uint32: "<u4", backend.Uint64: "<u8", backend.Complex64: "<c8", backend.Complex128: "<c16",
}

func roundTripType[T backend.Numeric](t *testing.T, c mpi.Comm, dir string) {
	shape := []int{9, 4}
	for _, comp := range []struct {
		name string
		opt  zarr.Option
	}{{"none", zarr.Uncompressed()}, {"zlib", zarr.Zlib(6)}, {"gzip", zarr.Gzip(1)}} {
		x := refArray[T](t, c, shape)
		store := filepath.Join(dir, "types.zarr")
		err := zarr.Save(x, store, "a/b", comp.opt, zarr.Chunks(4, 3), zarr.NestedKeys())
		x.Free()
		if err != nil {
			t.Fatal(err)
		}
		m, err := zarr.Stat(store, "a/b")
		if err != nil {
			t.Fatal(err)
		}
		if want := typestrs[backend.DTypeOf[T]()]; m.DType != want || m.Separator != "/" || m.Compressor != map[string]string{"none": ""}[comp.name]+strings.TrimPrefix(comp.name, "none") {
			t.Fatalf("%s: metadata %+v, want dtype %s", comp.name, m, want)
		}
		y, err := zarr.Load[T](c, store, "a/b", dist.ProcessGrid(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		checkRef(t, y)
		y.Free()
	}
}

// TestAcrossRankCounts writes with the first k ranks of the job, for every
// k, and reads with all of them.
func TestAcrossRankCounts(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	dir := mpitest.TempDir(t, c)
	shape := []int{7, 5}
	for k := 1; k <= p; k++ {
		sub, err := c.Split(map[bool]int{true: 0, false: 1}[c.Rank() < k], c.Rank())
		if err != nil {
			t.Fatal(err)
		}
		store := filepath.Join(dir, fmt.Sprintf("k%d.zarr", k))
		var werr error
		if c.Rank() < k {
			x := refArray[complex128](t, sub, shape, dist.SplitAxis(1))
			werr = zarr.Save(x, store, "", zarr.Zlib(1))
			x.Free()
		}
		sub.Free()
		if err := mpi.Agree(c, werr); err != nil {
			t.Fatal(err)
		}
		for _, r := range layouts(shape, p) {
			y, err := zarr.Load[complex128](c, store, "", r.opts...)
			if err != nil {
				t.Fatalf("written at %d ranks, read as %s: %v", k, r.name, err)
			}
			checkRef(t, y)
			y.Free()
		}
	}
}

// TestLoadInto reads into existing arrays of every layout, including one
// with ghost layers and one on the fake device.
func TestLoadInto(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	shape := []int{6, 5}
	x := refArray[float32](t, c, shape)
	store := filepath.Join(dir, "into.zarr")
	if err := zarr.Save(x, store, "x", zarr.Chunks(4, 2)); err != nil {
		t.Fatal(err)
	}
	x.Free()
	for _, r := range append(layouts(shape, c.Size()), layout{"ghosts", []dist.Option{dist.Ghosts(1)}}) {
		y, err := dist.Zeros[float32](c, shape, r.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := zarr.LoadInto(y, store, "x"); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		checkRef(t, y)
		y.Free()
	}
	// A destination of another shape or type is refused and left as it was.
	y, err := dist.Full[float32](c, []int{5, 6}, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	err = zarr.LoadInto(y, store, "x")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "shape [6 5]"), "LoadInto of another shape: %v", err)
	check(t, y, func([]int) float32 { return 7 })
	z, err := dist.Zeros[float64](c, shape)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Free()
	err = zarr.LoadInto(z, store, "x")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "<f4 (float32), not float64"), "LoadInto of another type: %v", err)
}

// TestFillValue: missing chunks read as the fill value, NaN and infinities
// included, and the fill value pads the edge chunks.
func TestFillValue(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	shape := []int{5, 7}
	for _, fv := range []struct {
		v    any
		text string
	}{{math.NaN(), `"NaN"`}, {math.Inf(1), `"Infinity"`}, {math.Inf(-1), `"-Infinity"`}, {2.5, "2.5"}, {-3, "-3.0"}} {
		x := refArray[float64](t, c, shape)
		store := filepath.Join(dir, "fill.zarr")
		err := zarr.Save(x, store, "", zarr.Chunks(2, 3), zarr.FillValue(fv.v), zarr.Gzip(4))
		x.Free()
		if err != nil {
			t.Fatal(err)
		}
		m, err := zarr.Stat(store, "")
		if err != nil || m.FillValue != fv.text {
			t.Fatalf("fill_value %q (%v), want %s", m.FillValue, err, fv.text)
		}
		c.Barrier()
		if c.Rank() == 0 {
			if err := os.Remove(filepath.Join(store, "1.1")); err != nil {
				t.Fatal(err)
			}
		}
		c.Barrier()
		y, err := zarr.Load[float64](c, store, "", dist.SplitAxis(1))
		if err != nil {
			t.Fatal(err)
		}
		want := func(idx []int) float64 {
			if idx[0]/2 == 1 && idx[1]/3 == 1 {
				f, _ := fv.v.(float64)
				if i, ok := fv.v.(int); ok {
					f = float64(i)
				}
				return f
			}
			return ref[float64](flat(idx, shape))
		}
		check(t, y, want)
		y.Free()
	}
}

// TestGroupsAndAttrs writes arrays in nested groups with attributes, and
// groups of their own.
func TestGroupsAndAttrs(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	store := filepath.Join(dir, "g.zarr")
	x := refArray[int64](t, c, []int{4, 3})
	defer x.Free()
	attrs := map[string]any{"units": "m/s", "step": 12, "dt": 0.125, "names": []string{"u", "v"}, "ok": true}
	if err := zarr.Save(x, store, "fields/u", zarr.Attributes(attrs)); err != nil {
		t.Fatal(err)
	}
	if err := zarr.Save(x, store, "fields/v"); err != nil {
		t.Fatal(err)
	}
	if err := zarr.CreateGroup(c, store, "meta/run", map[string]any{"ranks": c.Size()}); err != nil {
		t.Fatal(err)
	}
	if err := zarr.SetAttrs(c, store, "", map[string]any{"title": "test"}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"", "fields", "meta", "meta/run"} {
		if _, err := os.Stat(filepath.Join(store, g, ".zgroup")); err != nil {
			t.Errorf("group %q: %v", g, err)
		}
	}
	got, err := zarr.ReadAttrs(store, "fields/u")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "map[dt:0.125 names:[u v] ok:true step:12 units:m/s]" {
		t.Errorf("attributes %v", got)
	}
	if got["step"] != int64(12) {
		t.Errorf("step is %T %v, want int64 12", got["step"], got["step"])
	}
	if got, err := zarr.ReadAttrs(store, "meta/run"); err != nil || got["ranks"] != int64(c.Size()) {
		t.Errorf("group attributes %v, %v", got, err)
	}
	if got, err := zarr.ReadAttrs(store, "fields/v"); err != nil || len(got) != 0 {
		t.Errorf("attributes of an array without %v, %v", got, err)
	}
	y, err := zarr.Load[int64](c, store, "fields/u")
	if err != nil {
		t.Fatal(err)
	}
	checkRef(t, y)
	y.Free()

	// Saving over an array replaces it; over a group, or inside an array, is
	// refused.
	z := refArray[int64](t, c, []int{2})
	defer z.Free()
	if err := zarr.Save(z, store, "fields/u"); err != nil {
		t.Fatal(err)
	}
	if m, err := zarr.Stat(store, "fields/u"); err != nil || fmt.Sprint(m.Shape) != "[2]" {
		t.Fatalf("replaced array: %+v, %v", m, err)
	}
	err = zarr.Save(z, store, "fields")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "is a Zarr group"), "Save over a group: %v", err)
	err = zarr.Save(z, store, "fields/u/w")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "cannot hold"), "Save inside an array: %v", err)
	_, err = zarr.Load[int64](c, store, "fields")
	mpitest.Check(t, c, errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), "group, not an array"), "Load of a group: %v", err)
	_, err = zarr.Load[int64](c, store, "nothing")
	mpitest.Check(t, c, errors.Is(err, fs.ErrNotExist), "Load of a missing array: %v", err)
}

// TestRefused: what the package does not read is refused by name, on every
// rank.
func TestRefused(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	x := refArray[float64](t, c, []int{4, 3})
	defer x.Free()
	cases := []struct {
		name string
		edit func(string) string // of the .zarray
		want string
	}{
		{"blosc", replace(`"compressor": null`, `"compressor": {"blocksize": 0, "clevel": 5, "cname": "lz4", "id": "blosc", "shuffle": 1}`), "compressor blosc is not supported: re-save with compressor=None or zlib"},
		{"zstd", replace(`"compressor": null`, `"compressor": {"id": "zstd", "level": 1}`), "compressor zstd is not supported"},
		{"filter", replace(`"filters": null`, `"filters": [{"id": "delta", "dtype": "<f8"}]`), "filter delta is not supported"},
		{"bool", replace(`"<f8"`, `"|b1"`), `dtype "|b1" is not supported`},
		{"string", replace(`"<f8"`, `"<U4"`), `dtype "<U4" is not supported`},
		{"structured", replace(`"<f8"`, `[["a", "<f8"]]`), "structured type"},
		{"v3", replace(`"zarr_format": 2`, `"zarr_format": 3`), "only Zarr v2"},
		{"scalar", func(s string) string {
			return replace(`"chunks": [`, `"chunks": [], "old": [`)(replace(`"shape": [`, `"shape": [], "oldshape": [`)(s))
		}, "0-dimensional"},
		{"type", replace(`"<f8"`, `"<i8"`), "holds <i8 (int64), not float64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := filepath.Join(dir, tc.name+".zarr")
			if err := zarr.Save(x, store, ""); err != nil {
				t.Fatal(err)
			}
			if c.Rank() == 0 {
				p := filepath.Join(store, ".zarray")
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				s := tc.edit(string(b))
				if s == string(b) {
					t.Fatalf("edit changed nothing in %s", b)
				}
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c.Barrier()
			_, err := zarr.Load[float64](c, store, "")
			mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), tc.want), "got %v, want %q", err, tc.want)
		})
	}
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// TestCorrupt: a truncated, garbled or oversized chunk is an error naming
// it, on every rank.
func TestCorrupt(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	x := refArray[uint16](t, c, []int{6, 4})
	defer x.Free()
	for _, comp := range []zarr.Option{zarr.Uncompressed(), zarr.Zlib(3), zarr.Gzip(3)} {
		for _, damage := range []struct {
			name string
			f    func([]byte) []byte
		}{
			{"truncated", func(b []byte) []byte { return b[:len(b)-3] }},
			{"flipped", func(b []byte) []byte { b[len(b)-2] ^= 0x55; return b }},
			{"longer", func(b []byte) []byte { return append(b, 0, 0) }},
		} {
			store := filepath.Join(dir, "bad.zarr")
			if err := zarr.Save(x, store, "", zarr.Chunks(3, 4), comp); err != nil {
				t.Fatal(err)
			}
			m, _ := zarr.Stat(store, "")
			if c.Rank() == 0 {
				p := filepath.Join(store, "1.0")
				b, _ := os.ReadFile(p)
				os.WriteFile(p, damage.f(b), 0o644)
			}
			c.Barrier()
			_, err := zarr.Load[uint16](c, store, "", dist.SplitAxis(dist.Replicated))
			ok := err != nil && strings.Contains(err.Error(), "chunk 1.0: corrupted chunk")
			if m.Compressor == "" && damage.name == "flipped" {
				ok = err == nil // raw bytes have no checksum: the data is what it is
			}
			mpitest.Check(t, c, ok, "%s %s: %v", m.Compressor, damage.name, err)
		}
	}
}

// TestBigEndian reads a '>' store, written here by swapping a saved one.
func TestBigEndian(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	x := refArray[complex64](t, c, []int{5})
	defer x.Free()
	store := filepath.Join(dir, "be.zarr")
	if err := zarr.Save(x, store, "", zarr.Chunks(5)); err != nil {
		t.Fatal(err)
	}
	if c.Rank() == 0 {
		b, _ := os.ReadFile(filepath.Join(store, "0"))
		for i := 0; i+4 <= len(b); i += 4 {
			b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
		}
		os.WriteFile(filepath.Join(store, "0"), b, 0o644)
		m, _ := os.ReadFile(filepath.Join(store, ".zarray"))
		os.WriteFile(filepath.Join(store, ".zarray"), []byte(strings.Replace(string(m), "<c8", ">c8", 1)), 0o644)
	}
	c.Barrier()
	y, err := zarr.Load[complex64](c, store, "")
	if err != nil {
		t.Fatal(err)
	}
	checkRef(t, y)
	y.Free()
}

// TestLayoutOptionRefused: a split axis the stored array does not have is
// an error, not a panic.
func TestLayoutOptionRefused(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	x := refArray[float64](t, c, []int{4})
	defer x.Free()
	store := filepath.Join(dir, "one.zarr")
	if err := zarr.Save(x, store, ""); err != nil {
		t.Fatal(err)
	}
	_, err := zarr.Load[float64](c, store, "", dist.SplitAxis(2))
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "layout options do not fit"), "got %v", err)
}

func TestBadArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"chunks", func() { zarr.Chunks(2, 0) }, "zarr: Chunks"},
		{"level", func() { zarr.Zlib(10) }, "zarr: Zlib(10)"},
		{"attr", func() { zarr.Attributes(map[string]any{"x": math.NaN()}) }, "not finite"},
		{"attrtype", func() { zarr.Attributes(map[string]any{"x": struct{}{}}) }, "attributes are strings"},
		{"name", func() { zarr.Stat("s", "../x") }, "zarr: Stat: name"},
		{"hidden", func() { zarr.Stat("s", "a/.b") }, "zarr: Stat: name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.f()
		})
	}
	c := mpitest.World(t)
	x := refArray[int8](t, c, []int{3, 2})
	defer x.Free()
	for _, tc := range []struct {
		name string
		opts []zarr.Option
		want string
	}{
		{"chunkdims", []zarr.Option{zarr.Chunks(2)}, "zarr: Save: Chunks([2])"},
		{"fill", []zarr.Option{zarr.FillValue(300)}, "zarr: Save: FillValue(300)"},
		{"filltype", []zarr.Option{zarr.FillValue(0.5)}, "is not a int8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			zarr.Save(x, "unused.zarr", "", tc.opts...)
		})
	}
}
