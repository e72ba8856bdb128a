package dist_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// testdata returns the path of a file of testdata/, wherever the test
// binary runs.
func npyTestdata(name string) string {
	p := filepath.Join("testdata", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", name)
}

// npyOnRank0 runs f on rank 0 and fails the test on every rank if it fails.
func npyOnRank0(t *testing.T, c mpi.Comm, f func() error) {
	t.Helper()
	var err error
	if c.Rank() == 0 {
		err = f()
	}
	mpitest.Check(t, c, err == nil, "%v", err)
}

// npyErrorEverywhere fails the test unless err is an error on every rank of c,
// with the same message everywhere, containing want.
func npyErrorEverywhere(t *testing.T, c mpi.Comm, err error, want string) {
	t.Helper()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	mpitest.Check(t, c, err != nil && strings.Contains(msg, want), "error %q, want one with %q", msg, want)
	h := fnv.New64a()
	h.Write([]byte(msg))
	all := make([]int64, c.Size())
	if err := mpi.Allgather(c, []int64{int64(h.Sum64())}, all); err != nil {
		t.Fatal(err)
	}
	for r := range all {
		mpitest.Check(t, c, all[r] == all[0], "rank %d's error differs from rank 0's; this rank's: %q", r, msg)
	}
}

// npyIndex is the flat C-order index of idx in shape.
func npyIndex(idx, shape []int) int {
	off := 0
	for a := range shape {
		off = off*shape[a] + idx[a]
	}
	return off
}

// npyVal is the test value of element i of an array of T.
func npyVal[T backend.Element](i int) T {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return T(float64(i%97) - 40.5 + float64(i)/1024)
	case int32, int64:
		return T(i*7 - 50)
	default:
		return T(i*7 + 3)
	}
}

func npyWant[T backend.Element](shape []int) []T {
	n := 1
	for _, d := range shape {
		n *= d
	}
	w := make([]T, n)
	for i := range w {
		w[i] = npyVal[T](i)
	}
	return w
}

func npyArray[T backend.Element](t *testing.T, c mpi.Comm, shape []int, axis int) *dist.Array[T] {
	t.Helper()
	x, err := dist.FromFunc(c, shape, func(idx []int) T { return npyVal[T](npyIndex(idx, shape)) }, dist.SplitAxis(axis))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// npyCheck fails the test unless x has shape, layout axis and the values
// want, bitwise.
func npyCheck[T backend.Element](t *testing.T, x *dist.Array[T], shape []int, axis int, want []T, what string) {
	t.Helper()
	c := x.Comm()
	got, err := dist.Allgather(x)
	if err != nil {
		t.Fatal(err)
	}
	l := dist.NewLayout(shape, axis, c.Size())
	mpitest.Check(t, c, x.Layout().Equal(l), "%s: layout %v, want %v", what, x.Layout(), l)
	mpitest.Check(t, c, slices.Equal(got, want), "%s: %v, want %v", what, got, want)
}

var npyShapes = [][]int{
	{0}, {1}, {3}, {7},
	{0, 3}, {3, 0}, {1, 4}, {5, 3}, {2, 9},
	{3, 4, 5}, {4, 0, 2}, {2, 5, 3}, {1, 2, 3},
}

func npyRoundTrip[T backend.Element](t *testing.T, c mpi.Comm, dir string, all bool) {
	var z T
	for _, shape := range npyShapes {
		for save := dist.Replicated; save < len(shape); save++ {
			loads := []int{(save+2)%(len(shape)+1) - 1}
			if all {
				loads = loads[:0]
				for a := dist.Replicated; a < len(shape); a++ {
					loads = append(loads, a)
				}
			}
			x := npyArray[T](t, c, shape, save)
			path := filepath.Join(dir, fmt.Sprintf("%T.npy", z))
			if err := dist.Save(x, path); err != nil {
				t.Fatalf("Save %v axis %d: %v", shape, save, err)
			}
			x.Free()
			for _, load := range loads {
				y, err := dist.Load[T](c, path, dist.SplitAxis(load))
				if err != nil {
					t.Fatalf("Load %v axis %d: %v", shape, load, err)
				}
				npyCheck(t, y, shape, load, npyWant[T](shape), fmt.Sprintf("%T %v saved on axis %d, loaded on axis %d", z, shape, save, load))
				y.Free()
			}
		}
	}
}

// TestNPYRoundTrip saves arrays of every element type, shape and split
// axis, and loads them on every split axis (float64) or another one.
func TestNPYRoundTrip(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	t.Run("float64", func(t *testing.T) { npyRoundTrip[float64](t, c, dir, true) })
	t.Run("float32", func(t *testing.T) { npyRoundTrip[float32](t, c, dir, false) })
	t.Run("int32", func(t *testing.T) { npyRoundTrip[int32](t, c, dir, false) })
	t.Run("int64", func(t *testing.T) { npyRoundTrip[int64](t, c, dir, false) })
	t.Run("uint32", func(t *testing.T) { npyRoundTrip[uint32](t, c, dir, false) })
	t.Run("uint64", func(t *testing.T) { npyRoundTrip[uint64](t, c, dir, false) })
	t.Run("int8", func(t *testing.T) { npyRoundTrip[int8](t, c, dir, false) })
	t.Run("int16", func(t *testing.T) { npyRoundTrip[int16](t, c, dir, false) })
	t.Run("uint8", func(t *testing.T) { npyRoundTrip[uint8](t, c, dir, false) })
	t.Run("uint16", func(t *testing.T) { npyRoundTrip[uint16](t, c, dir, false) })
}

// TestNPYBlockSizes loads into uneven blocks, some empty.
func TestNPYBlockSizes(t *testing.T) {
	c := mpitest.World(t)
	path := filepath.Join(mpitest.TempDir(t, c), "b.npy")
	shape := []int{4, 2 * c.Size()}
	x := npyArray[int64](t, c, shape, 0)
	if err := dist.Save(x, path); err != nil {
		t.Fatal(err)
	}
	counts := make([]int, c.Size())
	counts[c.Size()-1] = shape[1] // all on the last rank
	y, err := dist.Load[int64](c, path, dist.SplitAxis(1), dist.BlockSizes(counts))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := dist.Allgather(y)
	mpitest.Check(t, c, slices.Equal(y.Layout().Counts(), counts) && slices.Equal(got, npyWant[int64](shape)), "loaded %v as %v", got, y.Layout())
}

// TestNPYHeader checks the headers this package writes against NumPy's,
// and the parser on good and bad headers.
func TestNPYHeader(t *testing.T) {
	for _, tc := range []struct {
		file  string
		dt    backend.DType
		shape []int
	}{
		{"numpy_f8_3x4.npy", backend.Float64, []int{3, 4}},
		{"numpy_i4_5.npy", backend.Int32, []int{5}},
		{"numpy_u8_2x3x2.npy", backend.Uint64, []int{2, 3, 2}},
	} {
		b, err := os.ReadFile(npyTestdata(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		h, err := dist.ParseNPYHeader(bytes.NewReader(b))
		if err != nil || h.DType != tc.dt || !slices.Equal(h.Shape, tc.shape) || h.DataOffset != 128 {
			t.Fatalf("%s: %+v, %v", tc.file, h, err)
		}
		var w bytes.Buffer
		if err := dist.WriteNPYHeader(&w, tc.dt, tc.shape); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.Bytes(), b[:h.DataOffset]) {
			t.Fatalf("%s: header\n%q, NumPy's\n%q", tc.file, w.Bytes(), b[:h.DataOffset])
		}
	}
	for _, tc := range []struct {
		file, err string
		dt        backend.DType
		shape     []int
	}{
		{file: "numpy_f4_v2_2x2.npy", dt: backend.Float32, shape: []int{2, 2}},
		{file: "numpy_i8_v3_4.npy", dt: backend.Int64, shape: []int{4}},
		{file: "numpy_f8_scalar.npy", dt: backend.Float64, shape: []int{}},
		{file: "numpy_f4_fortran.npy", err: "fortran_order"},
		{file: "numpy_f8_big.npy", err: "big-endian"},
		{file: "numpy_i2_3.npy", dt: backend.Int16, shape: []int{3}},
	} {
		f, err := os.Open(npyTestdata(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		h, err := dist.ParseNPYHeader(f)
		f.Close()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.file, err, tc.err)
			}
			continue
		}
		if err != nil || h.DType != tc.dt || !slices.Equal(h.Shape, tc.shape) {
			t.Errorf("%s: %+v, %v", tc.file, h, err)
		}
	}

	// v1 wraps a dict as a version 1.0 header.
	v1 := func(dict string) []byte {
		b := []byte("\x93NUMPY\x01\x00")
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
		return append(b, dict...)
	}
	good := "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }   \n"
	for _, tc := range []struct {
		name string
		in   []byte
		err  string // "" for a good header
		want []int
	}{
		{"numpy", v1(good), "", []int{3, 4}},
		{"double quotes", v1(`{"descr": "<i4", "shape": (2,), "fortran_order": False}` + "\n"), "", []int{2}},
		{"0-d", v1("{'descr': '<u4', 'fortran_order': False, 'shape': ()}\n"), "", []int{}},
		{"python 2 long", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 4L), }\n"), "", []int{3, 4}},
		{"native order", v1("{'descr': '=f8', 'fortran_order': False, 'shape': (1,), }\n"), "", []int{1}},
		{"newlines", v1("{\n'descr':'<f8',\n'fortran_order':False,\n'shape':(3,4,),\n}\n"), "", []int{3, 4}},
		{"empty", nil, "empty", nil},
		{"wrong magic", []byte("\x93NUMPZ\x01\x00\x10\x00{}"), "not a .npy file", nil},
		{"text", []byte("hello, world, this is not numpy"), "not a .npy file", nil},
		{"short magic", []byte("\x93NUM"), "truncated", nil},
		{"no length", []byte("\x93NUMPY\x01\x00\x05"), "truncated", nil},
		{"version 4", []byte("\x93NUMPY\x04\x00\x05\x00\x00\x00{}"), "version 4.0", nil},
		{"truncated dict", v1(good)[:40], "truncated", nil},
		{"huge length", []byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f{"), "more than", nil},
		{"not a dict", v1("('<f8', False, (3,))\n"), "not a dict", nil},
		{"missing shape", v1("{'descr': '<f8', 'fortran_order': False}\n"), "no 'shape'", nil},
		{"missing descr", v1("{'fortran_order': False, 'shape': (3,)}\n"), "no 'descr'", nil},
		{"missing order", v1("{'descr': '<f8', 'shape': (3,)}\n"), "no 'fortran_order'", nil},
		{"extra key", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'x': 1}\n"), "unexpected key", nil},
		{"key twice", v1("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (3,)}\n"), "twice", nil},
		{"fortran", v1("{'descr': '<f8', 'fortran_order': True, 'shape': (3,)}\n"), "fortran_order", nil},
		{"order not bool", v1("{'descr': '<f8', 'fortran_order': 0, 'shape': (3,)}\n"), "not True or False", nil},
		{"big-endian", v1("{'descr': '>f8', 'fortran_order': False, 'shape': (3,)}\n"), "big-endian", nil},
		{"bool dtype", v1("{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}\n"), "unsupported dtype", nil},
		{"structured", v1("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,)}\n"), "structured", nil},
		{"negative dim", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3, -4)}\n"), "negative", nil},
		{"overflow", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}\n"), "too large", nil},
		{"huge dim", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}\n"), "too large", nil},
		{"shape list", v1("{'descr': '<f8', 'fortran_order': False, 'shape': [3, 4]}\n"), "not a tuple", nil},
		{"shape int", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3)}\n"), "not a tuple", nil},
		{"float dim", v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3.0,)}\n"), "not a decimal integer", nil},
		{"trailing", v1(good[:len(good)-2] + "x\n"), "after the dict", nil},
		{"unterminated", v1("{'descr': '<f8\n"), "newline in a string", nil},
		{"nested", v1("{'descr': '<f8', 'fortran_order': False, 'shape': ((((((((((3,),),),),),),),),),)}\n"), "nested", nil},
		{"escape", v1("{'descr': '<f\\x38', 'fortran_order': False, 'shape': (3,)}\n"), "escape", nil},
	} {
		h, err := dist.ParseNPYHeader(bytes.NewReader(tc.in))
		if tc.err == "" {
			if err != nil || !slices.Equal(h.Shape, tc.want) || h.DataOffset != int64(len(tc.in)) {
				t.Errorf("%s: %+v, %v", tc.name, h, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestNPYLoadNumPyFiles loads files that NumPy wrote, on every split axis,
// and checks that files this package cannot read are errors on every rank.
func TestNPYLoadNumPyFiles(t *testing.T) {
	c := mpitest.World(t)
	loadAll := func(t *testing.T, file string, shape []int, check func(t *testing.T, axis int)) {
		for axis := dist.Replicated; axis < len(shape); axis++ {
			check(t, axis)
		}
	}
	t.Run("f8", func(t *testing.T) {
		shape := []int{3, 4}
		want := make([]float64, 12)
		for i := range want {
			want[i] = float64(i)*0.25 - 1
		}
		loadAll(t, "numpy_f8_3x4.npy", shape, func(t *testing.T, axis int) {
			x, err := dist.Load[float64](c, npyTestdata("numpy_f8_3x4.npy"), dist.SplitAxis(axis))
			if err != nil {
				t.Fatal(err)
			}
			npyCheck(t, x, shape, axis, want, "numpy_f8_3x4.npy")
		})
	})
	t.Run("i4", func(t *testing.T) {
		x, err := dist.Load[int32](c, npyTestdata("numpy_i4_5.npy"))
		if err != nil {
			t.Fatal(err)
		}
		npyCheck(t, x, []int{5}, 0, []int32{-2, -1, 0, 1, 2147483647}, "numpy_i4_5.npy")
	})
	t.Run("u8", func(t *testing.T) {
		shape := []int{2, 3, 2}
		want := make([]uint64, 12)
		for i := range want {
			want[i] = uint64(i) * 1000003
		}
		loadAll(t, "numpy_u8_2x3x2.npy", shape, func(t *testing.T, axis int) {
			x, err := dist.Load[uint64](c, npyTestdata("numpy_u8_2x3x2.npy"), dist.SplitAxis(axis))
			if err != nil {
				t.Fatal(err)
			}
			npyCheck(t, x, shape, axis, want, "numpy_u8_2x3x2.npy")
		})
	})
	t.Run("version 2.0", func(t *testing.T) {
		x, err := dist.Load[float32](c, npyTestdata("numpy_f4_v2_2x2.npy"), dist.SplitAxis(1))
		if err != nil {
			t.Fatal(err)
		}
		npyCheck(t, x, []int{2, 2}, 1, []float32{1.5, -2, 3, 4}, "numpy_f4_v2_2x2.npy")
	})
	t.Run("version 3.0", func(t *testing.T) {
		x, err := dist.Load[int64](c, npyTestdata("numpy_i8_v3_4.npy"))
		if err != nil {
			t.Fatal(err)
		}
		npyCheck(t, x, []int{4}, 0, []int64{10, -20, 30, -40}, "numpy_i8_v3_4.npy")
	})
	t.Run("errors", func(t *testing.T) {
		_, err := dist.Load[float32](c, npyTestdata("numpy_f4_fortran.npy"))
		npyErrorEverywhere(t, c, err, "fortran_order")
		_, err = dist.Load[float64](c, npyTestdata("numpy_f8_big.npy"))
		npyErrorEverywhere(t, c, err, "big-endian")
		_, err = dist.Load[float64](c, npyTestdata("numpy_f8_scalar.npy"))
		npyErrorEverywhere(t, c, err, "0-dimensional")
		_, err = dist.Load[int32](c, npyTestdata("numpy_i2_3.npy"))
		npyErrorEverywhere(t, c, err, "holds int16 (<i2), not int32 (<i4); pass dist.Convert()")
		_, err = dist.Load[float32](c, npyTestdata("numpy_f8_3x4.npy"))
		npyErrorEverywhere(t, c, err, "holds float64 (<f8), not float32 (<f4)")
	})
}

// TestNPYLoadErrors checks that a file that cannot be loaded, or a layout
// the file's array cannot have, is the same error on every rank.
func TestNPYLoadErrors(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "x.npy")
	shape := []int{5, 3}
	x := npyArray[float64](t, c, shape, 1)
	if err := dist.Save(x, path); err != nil {
		t.Fatal(err)
	}
	var size int64
	npyOnRank0(t, c, func() error {
		st, err := os.Stat(path)
		if err == nil {
			size = st.Size()
		}
		if size != 128+15*8 {
			return fmt.Errorf("file of %d bytes, want %d", size, 128+15*8)
		}
		return err
	})
	_, err := dist.Load[float64](c, path, dist.SplitAxis(2))
	npyErrorEverywhere(t, c, err, "split axis 2")
	_, err = dist.Load[float64](c, path, dist.SplitAxis(1), dist.BlockSizes(make([]int, c.Size())))
	npyErrorEverywhere(t, c, err, "block sizes")
	_, err = dist.Load[int64](c, path)
	npyErrorEverywhere(t, c, err, "not int64")
	_, err = dist.Load[float64](c, filepath.Join(dir, "missing.npy"))
	npyErrorEverywhere(t, c, err, "missing.npy")
	_, err = dist.Load[float64](c, dir)
	npyErrorEverywhere(t, c, err, "directory")
	err = dist.Save(x, filepath.Join(dir, "no", "such", "dir", "x.npy"))
	npyErrorEverywhere(t, c, err, "no such file or directory")

	npyOnRank0(t, c, func() error { return os.Truncate(path, size-1) })
	for axis := dist.Replicated; axis < 2; axis++ {
		_, err = dist.Load[float64](c, path, dist.SplitAxis(axis))
		npyErrorEverywhere(t, c, err, "truncated")
	}
	npyOnRank0(t, c, func() error { return os.Truncate(path, 100) })
	_, err = dist.Load[float64](c, path)
	npyErrorEverywhere(t, c, err, "truncated")
	npyOnRank0(t, c, func() error { return os.WriteFile(path, []byte("not a numpy file at all\n"), 0o644) })
	_, err = dist.Load[float64](c, path)
	npyErrorEverywhere(t, c, err, "not a .npy file")
	npyOnRank0(t, c, func() error { return os.WriteFile(path, nil, 0o644) })
	_, err = dist.Load[float64](c, path)
	npyErrorEverywhere(t, c, err, "empty")
}

// npyPython returns a Python interpreter that imports numpy, or "".
func npyPython() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			return p
		}
	}
	return ""
}

// TestNPYNumPyReads checks that numpy.load reads what Save and
// SaveCheckpoint write, for every element type and several layouts.
func TestNPYNumPyReads(t *testing.T) {
	c := mpitest.World(t)
	python := ""
	if c.Rank() == 0 {
		python = npyPython()
	}
	have := []int32{0}
	if python != "" {
		have[0] = 1
	}
	if err := mpi.Bcast(c, have, 0); err != nil {
		t.Fatal(err)
	}
	if have[0] == 0 {
		t.Skip("no python3 with numpy (Debian: apt-get install python3-numpy)")
	}
	dir := mpitest.TempDir(t, c)
	type file struct {
		path, descr string
		shape       []int
	}
	var files []file
	save := func(t *testing.T, name, descr string, shape []int, axis int, f func(path string, shape []int, axis int) error) {
		path := filepath.Join(dir, name+".npy")
		if err := f(path, shape, axis); err != nil {
			t.Fatal(err)
		}
		files = append(files, file{path, descr, shape})
	}
	// Element i holds i, which every type holds exactly.
	saveT := func(t *testing.T, name, descr string, shape []int, axis int) {
		switch descr {
		case "<f4":
			save(t, name, descr, shape, axis, npySaveIota[float32](c))
		case "<f8":
			save(t, name, descr, shape, axis, npySaveIota[float64](c))
		case "<i4":
			save(t, name, descr, shape, axis, npySaveIota[int32](c))
		case "<i8":
			save(t, name, descr, shape, axis, npySaveIota[int64](c))
		case "<u4":
			save(t, name, descr, shape, axis, npySaveIota[uint32](c))
		case "<u8":
			save(t, name, descr, shape, axis, npySaveIota[uint64](c))
		case "|i1":
			save(t, name, descr, shape, axis, npySaveIota[int8](c))
		case "<i2":
			save(t, name, descr, shape, axis, npySaveIota[int16](c))
		case "|u1":
			save(t, name, descr, shape, axis, npySaveIota[uint8](c))
		case "<u2":
			save(t, name, descr, shape, axis, npySaveIota[uint16](c))
		}
	}
	for i, descr := range []string{"<f4", "<f8", "<i4", "<i8", "<u4", "<u8", "|i1", "<i2", "|u1", "<u2"} {
		saveT(t, fmt.Sprintf("t%d", i), descr, []int{3, 4}, i%2)
	}
	saveT(t, "cube", "<f8", []int{4, 5, 6}, 1)
	saveT(t, "rep", "<i8", []int{7}, dist.Replicated)
	saveT(t, "empty", "<f8", []int{0, 3}, 1)
	saveT(t, "long", "<f8", []int{1000}, 0)
	// The files of a checkpoint.
	u, err := npyIota[float64](c, []int{3, 5, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	n, err := npyIota[uint32](c, []int{6}, dist.Replicated)
	if err != nil {
		t.Fatal(err)
	}
	if err := dist.SaveCheckpoint(c, filepath.Join(dir, "ckpt"), 1, nil, dist.Entry("u", u), dist.Entry("n", n)); err != nil {
		t.Fatal(err)
	}
	files = append(files, file{filepath.Join(dir, "ckpt", "u.npy"), "<f8", []int{3, 5, 2}}, file{filepath.Join(dir, "ckpt", "n.npy"), "<u4", []int{6}})
	var out []byte
	npyOnRank0(t, c, func() error {
		script := `
import sys, numpy
ok = True
for spec in sys.argv[1:]:
    path, descr, shape = spec.split(":")
    shape = tuple(int(d) for d in shape.split("x") if d)
    a = numpy.load(path)
    print(a.dtype, a.shape, a.sum())
    if a.dtype.str != descr or a.shape != shape or not (a.ravel() == numpy.arange(a.size)).all():
        print("MISMATCH", path, a.dtype.str, a.shape, a.ravel()[:10])
        ok = False
sys.exit(0 if ok else 1)
`
		args := []string{"-c", script}
		for _, f := range files {
			dims := make([]string, len(f.shape))
			for i, d := range f.shape {
				dims[i] = fmt.Sprint(d)
			}
			args = append(args, f.path+":"+f.descr+":"+strings.Join(dims, "x"))
		}
		var err error
		out, err = exec.Command(python, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("numpy.load: %v\n%s", err, out)
		}
		return nil
	})
	if c.Rank() == 0 {
		t.Logf("numpy read:\n%s", out)
	}
}

// npyIota returns an array whose element i (in C order) holds i.
func npyIota[T backend.Element](c mpi.Comm, shape []int, axis int) (*dist.Array[T], error) {
	return dist.FromFunc(c, shape, func(idx []int) T { return T(npyIndex(idx, shape)) }, dist.SplitAxis(axis))
}

func npySaveIota[T backend.Element](c mpi.Comm) func(path string, shape []int, axis int) error {
	return func(path string, shape []int, axis int) error {
		x, err := npyIota[T](c, shape, axis)
		if err != nil {
			return err
		}
		defer x.Free()
		return dist.Save(x, path)
	}
}

// BenchmarkNPYSaveLoad saves and loads a float64 array of 2^22 elements
// (32 MiB) split on axis 0.
func BenchmarkNPYSaveLoad(b *testing.B) {
	c := mpitest.World(b)
	path := filepath.Join(mpitest.TempDir(b, c), "bench.npy")
	x, err := dist.FromFunc(c, []int{1 << 22}, func(idx []int) float64 { return float64(idx[0]) })
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * 8 << 22)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := dist.Save(x, path); err != nil {
			b.Fatal(err)
		}
		y, err := dist.Load[float64](c, path)
		if err != nil {
			b.Fatal(err)
		}
		y.Free()
	}
}

func ExampleSave() {
	world := mpi.World()
	tmp, done := exampleDir(world)
	defer done()
	path := filepath.Join(tmp, "a.npy") // numpy.load(path) reads it

	a, _ := dist.FromFunc(world, []int{3, 4}, func(idx []int) int32 {
		return int32(10*idx[0] + idx[1])
	})
	if err := dist.Save(a, path); err != nil {
		fmt.Println(err)
		return
	}
	b, err := dist.Load[int32](world, path, dist.SplitAxis(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(b)
	fmt.Println(b.Shape(), b.Layout().Axis(), all)
	// Output:
	// [3 4] 1 [0 1 2 3 10 11 12 13 20 21 22 23]
}
