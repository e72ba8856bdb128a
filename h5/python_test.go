//go:build hdf5 && mpi && !mpich

package h5_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// A dataset that h5py wrote (testdata/make_files.py), and how to read it.
type pyDataset struct {
	name  string
	shape []int
	read  func(t *testing.T, c mpi.Comm, path string, d pyDataset, opts []dist.Option)
}

func readRef[T backend.Numeric](t *testing.T, c mpi.Comm, path string, d pyDataset, opts []dist.Option) {
	t.Helper()
	y, err := h5.Load[T](c, path, d.name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	if fmt.Sprint(y.Shape()) != fmt.Sprint(d.shape) {
		t.Fatalf("shape %v, want %v", y.Shape(), d.shape)
	}
	checkRef(t, y)
}

var pythonDatasets = []pyDataset{
	{"contiguous", []int{7, 10}, readRef[float64]},
	{"chunked", []int{5, 3, 4}, readRef[float32]},
	{"gzip", []int{13}, readRef[int16]},
	{"bigendian", []int{5, 4}, readRef[float64]},
	{"empty", []int{0, 3}, readRef[float64]},
	{"fields/int8", []int{4, 4}, readRef[int8]},
	{"fields/int32", []int{5}, readRef[int32]},
	{"fields/int64", []int{4, 3}, readRef[int64]},
	{"fields/uint8", []int{6}, readRef[uint8]},
	{"fields/uint16", []int{3, 5}, readRef[uint16]},
	{"fields/uint32", []int{5, 2}, readRef[uint32]},
	{"fields/uint64", []int{3}, readRef[uint64]},
	{"fields/complex64", []int{3, 3}, readRef[complex64]},
	{"fields/complex128", []int{6, 5}, readRef[complex128]},
}

// readPythonFile reads every dataset of pythonDatasets from path into every
// layout at this job's rank count, and checks what is refused and the
// attributes.
func readPythonFile(t *testing.T, c mpi.Comm, path string) {
	for _, d := range pythonDatasets {
		for _, l := range layouts(d.shape, c.Size()) {
			t.Run(d.name+"/"+l.name, func(t *testing.T) { d.read(t, c, path, d, l.opts) })
		}
	}
	for _, r := range []struct{ name, want string }{
		{"refused/bool", "HDF5 type class enum (h5py's bool is one) of 1 bytes, which dist has no type for"},
		{"refused/string", "HDF5 type class string"},
		{"refused/scalar", "is a scalar dataset"},
	} {
		_, err := h5.Load[float64](c, path, r.name)
		mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), r.want), "%s: %v, want %q", r.name, err, r.want)
	}
	root, err := h5.ReadAttrs(c, path, "/")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := h5.ReadAttrs(c, path, "fields/int64")
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(root); s != "map[n:3 scale:0.5 title:made by h5py]" {
		t.Errorf("root attributes %s", s)
	}
	if s := fmt.Sprint(ds); s != "map[dtype:<i8 step:12 units:K w:[0.5 2]]" {
		t.Errorf("dataset attributes %s", s)
	}
}

// TestPythonFile reads testdata/py.h5, which h5py wrote.
func TestPythonFile(t *testing.T) {
	readPythonFile(t, mpitest.World(t), filepath.Join("testdata", "py.h5"))
}

// python returns a Python 3 that imports h5py (XPMPI_PYTHON,
// /usr/bin/python3, python3), or skips the test on every rank, saying why.
func python(t *testing.T, c mpi.Comm) string {
	t.Helper()
	var found, why string
	if c.Rank() == 0 {
		var tried []string
		for _, p := range []string{os.Getenv("XPMPI_PYTHON"), "/usr/bin/python3", "python3"} {
			if p == "" {
				continue
			}
			cmd := exec.Command(p, "-c", "import h5py, numpy")
			cmd.Env = childEnv(false)
			out, err := cmd.CombinedOutput()
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
		t.Skipf("no Python with h5py (apt-get install python3-h5py-mpi, or set XPMPI_PYTHON): %s", bcast(t, c, why))
	}
	return found
}

// childEnv is this process's environment without the variables of the MPI
// job it runs in, so that a Python child is a process of its own (Debian's
// h5py picks its MPI build where it sees them); with mpi, h5py's MPI build
// all the same (H5PY_ALWAYS_USE_MPI), as a one-process MPI job.
func childEnv(mpi bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OMPI_") || strings.HasPrefix(k, "PMIX_") || strings.HasPrefix(k, "OPAL_") ||
			strings.HasPrefix(k, "PMI_") || strings.HasPrefix(k, "HYDRA_") || k == "MPI_LOCALNRANKS" || k == "MPI_LOCALRANKID" ||
			k == "H5PY_ALWAYS_USE_MPI" {
			continue
		}
		env = append(env, kv)
	}
	if mpi {
		env = append(env, "H5PY_ALWAYS_USE_MPI=1")
	}
	return env
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
func runPython(t *testing.T, c mpi.Comm, py string, withMPI bool, args ...string) {
	t.Helper()
	var err error
	if c.Rank() == 0 {
		script, _ := filepath.Abs(filepath.Join("testdata", args[0]))
		cmd := exec.Command(py, append([]string{script}, args[1:]...)...)
		cmd.Env = childEnv(withMPI)
		var out []byte
		out, err = cmd.CombinedOutput()
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

// TestPythonWrites: h5py writes testdata/py.h5's datasets afresh, serially
// and with the MPI-IO driver, and every layout at this rank count reads
// them.
func TestPythonWrites(t *testing.T) {
	c := mpitest.World(t)
	py := python(t, c)
	dir := mpitest.TempDir(t, c)
	for _, withMPI := range []bool{false, true} {
		t.Run(map[bool]string{false: "serial", true: "mpio"}[withMPI], func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("py-%v.h5", withMPI))
			args := []string{"make_files.py", path}
			if withMPI {
				args = append(args, "--mpi")
			}
			runPython(t, c, py, withMPI, args...)
			readPythonFile(t, c, path)
		})
	}
}

type manifestEntry struct {
	File        string         `json:"file"`
	Name        string         `json:"name"`
	DType       string         `json:"dtype"`
	Shape       []int          `json:"shape"`
	Chunks      *[]int         `json:"chunks,omitempty"`
	Compression *string        `json:"compression"`
	Attrs       map[string]any `json:"attrs,omitempty"`
}

var typestrs = map[backend.DType]string{
	backend.Float32: "<f4", backend.Float64: "<f8", backend.Int8: "|i1", backend.Int16: "<i2",
	backend.Int32: "<i4", backend.Int64: "<i8", backend.Uint8: "|u1", backend.Uint16: "<u2",
	backend.Uint32: "<u4", backend.Uint64: "<u8", backend.Complex64: "<c8", backend.Complex128: "<c16",
}

func saveFor[T backend.Numeric](t *testing.T, c mpi.Comm, path, name string, shape []int, l []dist.Option, storage int) manifestEntry {
	t.Helper()
	x := refArray[T](t, c, shape, l...)
	defer x.Free()
	e := manifestEntry{File: path, Name: name, DType: typestrs[backend.DTypeOf[T]()], Shape: shape}
	var opts []h5.Option
	switch storage {
	case 0:
		e.Chunks = &[]int{}
	case 1:
		ch := fill(len(shape), 2)
		opts = append(opts, h5.Chunks(ch...))
		for a := range ch {
			ch[a] = min(ch[a], shape[a])
		}
		e.Chunks = &ch
	case 2:
		opts = append(opts, h5.Gzip(1))
		gz := "gzip"
		e.Compression = &gz
	}
	if err := h5.Save(x, path, name, opts...); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPythonReads: this job writes every element type from several
// layouts, contiguous, chunked and compressed, and h5py reads them.
func TestPythonReads(t *testing.T) {
	c := mpitest.World(t)
	py := python(t, c)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "go.h5")
	var man []manifestEntry
	k := 0
	add := func(shapes [][]int, f func(name string, shape []int, l []dist.Option, storage int) manifestEntry) {
		for _, shape := range shapes {
			ls := layouts(shape, c.Size())
			man = append(man, f(fmt.Sprintf("d%d", k), shape, ls[k%len(ls)].opts, k%3))
			k++
		}
	}
	big := [][]int{{7, 5}, {2, 3, 5}, {11}, {3, 1}}
	small := [][]int{{5, 3}, {6}}
	add(big, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[float64](t, c, path, n, s, l, st)
	})
	add(big, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[complex128](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[float32](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[complex64](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[int8](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[int16](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[int32](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[int64](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[uint8](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[uint16](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[uint32](t, c, path, n, s, l, st)
	})
	add(small, func(n string, s []int, l []dist.Option, st int) manifestEntry {
		return saveFor[uint64](t, c, path, n, s, l, st)
	})
	// A dataset in groups, with attributes; an empty one.
	x := refArray[float64](t, c, []int{6, 4}, dist.ProcessGrid(0, 0))
	defer x.Free()
	attrs := map[string]any{"units": "K", "step": 3, "dt": 0.25, "w": []float64{1, 2.5}}
	if err := h5.Save(x, path, "fields/deeper/u", h5.Attributes(attrs)); err != nil {
		t.Fatal(err)
	}
	man = append(man, manifestEntry{File: path, Name: "fields/deeper/u", DType: "<f8", Shape: []int{6, 4}, Attrs: attrs})
	man = append(man, saveFor[float64](t, c, path, "empty", []int{0, 4}, nil, 0))

	mpath := filepath.Join(dir, "manifest.json")
	if c.Rank() == 0 {
		b, _ := json.MarshalIndent(man, "", " ")
		if err := os.WriteFile(mpath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runPython(t, c, py, false, "check_files.py", mpath)
}
