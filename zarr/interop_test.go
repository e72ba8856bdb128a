package zarr_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/zarr"
)

// A store that zarr-python wrote (testdata/make_stores.py), and how to
// check it.
type pyStore struct {
	store, name string
	shape       []int
	read        func(t *testing.T, c mpi.Comm, dir string, s pyStore, opts []dist.Option)
}

// readRef loads the array of s as a T and checks it against ref, except
// where missing says the element is in a chunk that was never written
// (fill_value NaN).
func readRef[T backend.Numeric](missing func(idx []int) bool) func(*testing.T, mpi.Comm, string, pyStore, []dist.Option) {
	return func(t *testing.T, c mpi.Comm, dir string, s pyStore, opts []dist.Option) {
		t.Helper()
		y, err := zarr.Load[T](c, filepath.Join(dir, s.store), s.name, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer y.Free()
		if fmt.Sprint(y.Shape()) != fmt.Sprint(s.shape) {
			t.Fatalf("shape %v, want %v", y.Shape(), s.shape)
		}
		check(t, y, func(idx []int) T {
			if missing != nil && missing(idx) {
				var z T
				switch p := any(&z).(type) {
				case *float32:
					*p = float32(math.NaN())
				case *float64:
					*p = math.NaN()
				}
				return z
			}
			return ref[T](flat(idx, s.shape))
		})
	}
}

var pythonStores = []pyStore{
	{"f8_zlib.zarr", "", []int{7, 10}, readRef[float64](nil)},
	{"i2_gzip_nested.zarr", "", []int{5, 3, 4}, readRef[int16](nil)},
	{"c16_fortran.zarr", "", []int{6, 5}, readRef[complex128](nil)},
	{"u1.zarr", "", []int{13}, readRef[uint8](nil)},
	{"f8_bigendian.zarr", "", []int{5, 4}, readRef[float64](nil)},
	{"empty.zarr", "", []int{0, 3}, readRef[float64](nil)},
	{"f4_missing.zarr", "", []int{9}, readRef[float32](func(idx []int) bool { return idx[0] >= 4 && idx[0] < 8 })},
	{"group.zarr", "fields/float32", []int{4, 3}, readRef[float32](nil)},
	{"group.zarr", "fields/int8", []int{4, 4}, readRef[int8](nil)},
	{"group.zarr", "fields/int32", []int{5}, readRef[int32](nil)},
	{"group.zarr", "fields/int64", []int{4, 3}, readRef[int64](nil)},
	{"group.zarr", "fields/uint16", []int{3, 5}, readRef[uint16](nil)},
	{"group.zarr", "fields/uint32", []int{5, 2}, readRef[uint32](nil)},
	{"group.zarr", "fields/uint64", []int{3}, readRef[uint64](nil)},
	{"group.zarr", "fields/complex64", []int{3, 3}, readRef[complex64](nil)},
}

// readPythonStores reads every store of pythonStores in dir into every
// layout at this job's rank count.
func readPythonStores(t *testing.T, c mpi.Comm, dir string) {
	for _, s := range pythonStores {
		for _, l := range layouts(s.shape, c.Size()) {
			t.Run(fmt.Sprintf("%s/%s/%s", s.store, s.name, l.name), func(t *testing.T) {
				s.read(t, c, dir, s, l.opts)
			})
		}
	}
	_, err := zarr.Load[float64](c, filepath.Join(dir, "blosc.zarr"), "")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "compressor blosc is not supported: re-save with compressor=None or zlib"), "blosc store: %v", err)
	// Every rank reads the metadata; the check is collective, so that no
	// rank is still reading when rank 0 removes the directory.
	msg := ""
	attrs, err := zarr.ReadAttrs(filepath.Join(dir, "group.zarr"), "")
	if err != nil || fmt.Sprint(attrs) != "map[n:3 scale:0.5 title:made by zarr-python]" {
		msg += fmt.Sprintf(" group attributes %v, %v;", attrs, err)
	}
	attrs, err = zarr.ReadAttrs(filepath.Join(dir, "group.zarr"), "fields/int64")
	if err != nil || fmt.Sprint(attrs) != "map[dtype:<i8 step:12 units:K]" {
		msg += fmt.Sprintf(" array attributes %v, %v;", attrs, err)
	}
	m, err := zarr.Stat(filepath.Join(dir, "i2_gzip_nested.zarr"), "")
	if err != nil || m.Separator != "/" || m.Compressor != "gzip" || m.Level != 1 || m.DType != "<i2" {
		msg += fmt.Sprintf(" metadata %+v, %v", m, err)
	}
	mpitest.Check(t, c, msg == "", "%s", msg)
}

// TestPythonStores reads the stores zarr-python wrote into testdata/py.
func TestPythonStores(t *testing.T) {
	readPythonStores(t, mpitest.World(t), filepath.Join("testdata", "py"))
}

// python returns a Python 3 interpreter that imports zarr and numcodecs
// (XPMPI_PYTHON, /usr/bin/python3, python3 on PATH; the first that does),
// or skips the test on every rank, saying why.
func python(t *testing.T, c mpi.Comm) string {
	t.Helper()
	var found, why string
	if c.Rank() == 0 {
		var tried []string
		for _, p := range []string{os.Getenv("XPMPI_PYTHON"), "/usr/bin/python3", "python3"} {
			if p == "" {
				continue
			}
			out, err := exec.Command(p, "-c", "import zarr, numcodecs; print(zarr.__version__)").CombinedOutput()
			if err == nil {
				found = p
				break
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			tried = append(tried, fmt.Sprintf("%s: %v %s", p, err, lines[len(lines)-1]))
		}
		why = strings.Join(tried, "; ")
	}
	found = bcast(t, c, found)
	if found == "" {
		why = bcast(t, c, why)
		t.Skipf("no Python with zarr-python (apt-get install python3-zarr, or set XPMPI_PYTHON): %s", why)
	}
	return found
}

func bcast(t *testing.T, c mpi.Comm, s string) string {
	b := make([]byte, 4096)
	copy(b, s)
	if err := mpi.BcastBytes(c, b, 0); err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// runPython runs a script of testdata on rank 0 and agrees on its outcome.
func runPython(t *testing.T, c mpi.Comm, py string, args ...string) {
	t.Helper()
	var err error
	var out []byte
	if c.Rank() == 0 {
		script, _ := filepath.Abs(filepath.Join("testdata", args[0]))
		out, err = exec.Command(py, append([]string{script}, args[1:]...)...).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%s %s: %v\n%s", py, strings.Join(args, " "), err, out)
		} else if testing.Verbose() {
			t.Logf("%s", out)
		}
	}
	if err := mpi.Agree(c, err); err != nil {
		t.Fatal(err)
	}
}

// TestPythonWrites: zarr-python writes the stores of testdata/py afresh
// and every layout at this rank count reads them.
func TestPythonWrites(t *testing.T) {
	c := mpitest.World(t)
	py := python(t, c)
	dir := filepath.Join(mpitest.TempDir(t, c), "py")
	runPython(t, c, py, "make_stores.py", dir)
	readPythonStores(t, c, dir)
}

// manifestEntry is what check_stores.py checks of one array.
type manifestEntry struct {
	Store      string         `json:"store"`
	Name       string         `json:"name"`
	DType      string         `json:"dtype"`
	Shape      []int          `json:"shape"`
	Chunks     []int          `json:"chunks,omitempty"`
	Compressor string         `json:"compressor"`
	Attrs      map[string]any `json:"attrs,omitempty"`
}

// saveFor writes the reference array of T with opts from layout l and
// returns what zarr-python should find.
func saveFor[T backend.Numeric](t *testing.T, c mpi.Comm, store, name string, shape []int, l []dist.Option, opts ...zarr.Option) manifestEntry {
	t.Helper()
	x := refArray[T](t, c, shape, l...)
	defer x.Free()
	if err := zarr.Save(x, store, name, opts...); err != nil {
		t.Fatal(err)
	}
	m, err := zarr.Stat(store, name)
	if err != nil {
		t.Fatal(err)
	}
	return manifestEntry{Store: store, Name: name, DType: m.DType, Shape: shape, Chunks: m.Chunks, Compressor: m.Compressor}
}

// TestPythonReads: this job writes every element type from several
// layouts, chunkings and compressors, and zarr-python reads them.
func TestPythonReads(t *testing.T) {
	c := mpitest.World(t)
	py := python(t, c)
	dir := mpitest.TempDir(t, c)
	p := c.Size()
	var man []manifestEntry
	comps := []zarr.Option{zarr.Uncompressed(), zarr.Zlib(1), zarr.Gzip(5)}
	shapes := [][]int{{7, 5}, {2, 3, 5}, {11}, {0, 4}, {3, 1}}
	k := 0
	add := func(f func(store, name string, shape []int, l []dist.Option, opts ...zarr.Option) manifestEntry) {
		for _, shape := range shapes {
			ls := layouts(shape, p)
			l := ls[k%len(ls)]
			opts := []zarr.Option{comps[k%len(comps)]}
			switch k % 4 {
			case 1:
				opts = append(opts, zarr.Chunks(fill(len(shape), 2)...))
			case 2:
				opts = append(opts, zarr.Chunks(fill(len(shape), 3)...), zarr.NestedKeys())
			}
			k++
			store := filepath.Join(dir, fmt.Sprintf("s%d.zarr", k))
			man = append(man, f(store, "", shape, l.opts, opts...))
		}
	}
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[float64](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[complex128](t, c, s, n, sh, l, o...)
	})
	shapes = [][]int{{5, 3}, {6}}
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[float32](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[complex64](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[int8](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[int16](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[int32](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[int64](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[uint8](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[uint16](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[uint32](t, c, s, n, sh, l, o...)
	})
	add(func(s, n string, sh []int, l []dist.Option, o ...zarr.Option) manifestEntry {
		return saveFor[uint64](t, c, s, n, sh, l, o...)
	})
	// Arrays in groups, with attributes.
	store := filepath.Join(dir, "group.zarr")
	e := saveFor[float64](t, c, store, "fields/u", []int{6, 4}, []dist.Option{dist.ProcessGrid(0, 0)},
		zarr.Zlib(1), zarr.Attributes(map[string]any{"units": "K", "step": 3, "dt": 0.25}))
	e.Attrs = map[string]any{"units": "K", "step": 3, "dt": 0.25}
	man = append(man, e)
	man = append(man, saveFor[int32](t, c, store, "fields/deeper/v", []int{5}, nil, zarr.Chunks(2)))
	if err := zarr.CreateGroup(c, store, "", map[string]any{"title": "xpmpi"}); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, "manifest.json")
	if c.Rank() == 0 {
		b, _ := json.MarshalIndent(man, "", " ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runPython(t, c, py, "check_stores.py", path)
}

// TestSameBytesAsPython: an uncompressed store that Save writes holds the
// same chunk files, byte for byte, and the same metadata as the one
// zarr-python wrote in testdata/py (u1.zarr: 13 elements of |u1 in chunks
// of 5, the last one padded with the fill value), at every layout: a check
// of the write side that needs no Python.
func TestSameBytesAsPython(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	want := filepath.Join("testdata", "py", "u1.zarr")
	for _, l := range layouts([]int{13}, c.Size()) {
		x := refArray[uint8](t, c, []int{13}, l.opts...)
		store := filepath.Join(dir, "u1.zarr")
		err := zarr.Save(x, store, "", zarr.Chunks(5))
		x.Free()
		if err != nil {
			t.Fatal(err)
		}
		msg := ""
		for _, k := range []string{"0", "1", "2"} {
			a, err1 := os.ReadFile(filepath.Join(store, k))
			b, err2 := os.ReadFile(filepath.Join(want, k))
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				msg += fmt.Sprintf(" chunk %s: %v %v (%v, %v);", k, a, b, err1, err2)
			}
		}
		got, err1 := zarr.Stat(store, "")
		ref, err2 := zarr.Stat(want, "")
		if err1 != nil || err2 != nil || fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", ref) {
			msg += fmt.Sprintf(" metadata %+v, zarr-python's %+v (%v, %v)", got, ref, err1, err2)
		}
		mpitest.Check(t, c, msg == "", "%s: %s", l.name, msg)
	}
}
