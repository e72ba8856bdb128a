//go:build hdf5 && mpi && !mpich

package h5_test

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
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// ref is the element at flat index i of every test array of T; the Python
// side (testdata/h5ref.py) computes the same values.
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

// checkRef fails the test on every rank unless every element of a's block
// is its reference value.
func checkRef[T backend.Numeric](t testing.TB, a *dist.Array[T]) {
	t.Helper()
	c := a.Comm()
	gshape := a.Shape()
	start, shape := a.Layout().Block(c.Rank())
	data := make([]T, a.Local().Len())
	if err := backend.CopyToHostSlice(data, a.Local()); err != nil {
		t.Fatal(err)
	}
	msg := ""
	idx := make([]int, len(shape))
	for i := 0; i < len(data) && msg == ""; i++ {
		r := i
		for ax := len(shape) - 1; ax >= 0; ax-- {
			idx[ax] = start[ax] + r%shape[ax]
			r /= shape[ax]
		}
		if w := ref[T](flat(idx, gshape)); !sameBits(data[i], w) {
			msg = fmt.Sprintf("element %v is %v, want %v", idx, data[i], w)
		}
	}
	mpitest.Check(t, c, msg == "", "%s", msg)
}

var shapes = [][]int{
	{0}, {1}, {3}, {7}, {13},
	{0, 3}, {3, 0}, {1, 4}, {5, 3}, {7, 6}, {2, 9},
	{3, 4, 5}, {5, 1, 3},
}

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
		ls = append(ls, layout{"grid", []dist.Option{dist.ProcessGrid(make([]int, len(shape))...)}})
		counts := make([][]int, len(shape))
		for a := range shape {
			counts[a] = []int{shape[a]}
		}
		counts[len(shape)-1] = uneven(shape[len(shape)-1], p)
		ls = append(ls, layout{"grid-uneven", []dist.Option{dist.GridBlockSizes(counts...)}})
	}
	return ls
}

func fill(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// TestRoundTrip writes every shape from every layout, contiguous, chunked
// and compressed, and reads it back into every layout.
func TestRoundTrip(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "rt.h5")
	storages := []struct {
		name string
		opts func(shape []int) []h5.Option
	}{
		{"contiguous", func([]int) []h5.Option { return nil }},
		{"chunked", func(s []int) []h5.Option { return []h5.Option{h5.Chunks(fill(len(s), 2)...)} }},
		{"gzip", func(s []int) []h5.Option { return []h5.Option{h5.Gzip(1)} }},
	}
	for i, shape := range shapes {
		ls := layouts(shape, c.Size())
		for j, w := range ls {
			// Each file open and close is collective and costs more than
			// the tiny transfers: the storages take turns over the layouts,
			// so that each meets every shape; XPMPI_H5_ALL=1 runs every
			// pair.
			for k, st := range storages {
				if (i+j)%len(storages) != k && os.Getenv("XPMPI_H5_ALL") == "" {
					continue
				}
				t.Run(fmt.Sprintf("%v/%s/%s", shape, w.name, st.name), func(t *testing.T) {
					x := refArray[float64](t, c, shape, w.opts...)
					defer x.Free()
					name := fmt.Sprintf("g%d/%s/%s", i, w.name, st.name)
					if err := h5.Save(x, path, name, st.opts(shape)...); err != nil {
						t.Fatal(err)
					}
					for j, r := range ls {
						if testing.Short() && j%2 == 1 {
							continue
						}
						y, err := h5.Load[float64](c, path, name, r.opts...)
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

// TestTypes writes every element type into one file and reads it back.
func TestTypes(t *testing.T) {
	c := mpitest.World(t)
	path := filepath.Join(mpitest.TempDir(t, c), "types.h5")
	t.Run("float32", func(t *testing.T) { roundTripType[float32](t, c, path) })
	t.Run("float64", func(t *testing.T) { roundTripType[float64](t, c, path) })
	t.Run("int8", func(t *testing.T) { roundTripType[int8](t, c, path) })
	t.Run("int16", func(t *testing.T) { roundTripType[int16](t, c, path) })
	t.Run("int32", func(t *testing.T) { roundTripType[int32](t, c, path) })
	t.Run("int64", func(t *testing.T) { roundTripType[int64](t, c, path) })
	t.Run("uint8", func(t *testing.T) { roundTripType[uint8](t, c, path) })
	t.Run("uint16", func(t *testing.T) { roundTripType[uint16](t, c, path) })
	t.Run("uint32", func(t *testing.T) { roundTripType[uint32](t, c, path) })
	t.Run("uint64", func(t *testing.T) { roundTripType[uint64](t, c, path) })
	t.Run("complex64", func(t *testing.T) { roundTripType[complex64](t, c, path) })
	t.Run("complex128", func(t *testing.T) { roundTripType[complex128](t, c, path) })
}

func roundTripType[T backend.Numeric](t *testing.T, c mpi.Comm, path string) {
	shape := []int{9, 4}
	name := backend.DTypeOf[T]().String()
	x := refArray[T](t, c, shape, dist.SplitAxis(1))
	defer x.Free()
	if err := h5.Save(x, path, name, h5.Chunks(4, 3), h5.Gzip(6)); err != nil {
		t.Fatal(err)
	}
	y, err := h5.Load[T](c, path, name, dist.ProcessGrid(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	checkRef(t, y)
	y.Free()
	// The wrong type is refused, naming both.
	var err2 error
	if backend.DTypeOf[T]() == backend.Float64 {
		_, err2 = h5.Load[float32](c, path, name)
	} else {
		_, err2 = h5.Load[float64](c, path, name)
	}
	mpitest.Check(t, c, err2 != nil && strings.Contains(err2.Error(), "the dataset holds "+name+", not"), "wrong type: %v", err2)
}

// TestLoadInto reads into arrays of every layout, with ghosts, on the fake
// device; another shape is refused and leaves the array as it was.
func TestLoadInto(t *testing.T) {
	c := mpitest.World(t)
	path := filepath.Join(mpitest.TempDir(t, c), "into.h5")
	shape := []int{6, 5}
	x := refArray[complex128](t, c, shape)
	if err := h5.Save(x, path, "x"); err != nil {
		t.Fatal(err)
	}
	x.Free()
	ls := append(layouts(shape, c.Size()), layout{"ghosts", []dist.Option{dist.Ghosts(1)}},
		layout{"device", []dist.Option{dist.OnBackend(fakedev.Default), dist.ProcessGrid(0, 0)}})
	for _, r := range ls {
		y, err := dist.Zeros[complex128](c, shape, r.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := h5.LoadInto(y, path, "x"); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		checkRef(t, y)
		y.Free()
	}
	y, err := dist.Zeros[complex128](c, []int{5, 6})
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	err = h5.LoadInto(y, path, "x")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "shape [6 5]"), "another shape: %v", err)
}

// TestDeviceSave writes blocks that live on the fake device.
func TestDeviceSave(t *testing.T) {
	c := mpitest.World(t)
	path := filepath.Join(mpitest.TempDir(t, c), "dev.h5")
	x := refArray[float32](t, c, []int{5, 7}, dist.OnBackend(fakedev.Default), dist.SplitAxis(1))
	defer x.Free()
	if err := h5.Save(x, path, "x", h5.Gzip(1)); err != nil {
		t.Fatal(err)
	}
	y, err := h5.Load[float32](c, path, "x")
	if err != nil {
		t.Fatal(err)
	}
	checkRef(t, y)
	y.Free()
}

// TestAttrsAndGroups writes datasets in groups with attributes, replaces a
// dataset of another shape, and reads the attributes back.
func TestAttrsAndGroups(t *testing.T) {
	c := mpitest.World(t)
	path := filepath.Join(mpitest.TempDir(t, c), "attrs.h5")
	x := refArray[int32](t, c, []int{4, 3})
	defer x.Free()
	attrs := map[string]any{"units": "m/s", "step": 12, "dt": 0.125, "sizes": []int{4, 3}, "w": []float64{0.5, 2}}
	if err := h5.Save(x, path, "fields/u", h5.Attributes(attrs), h5.Truncate()); err != nil {
		t.Fatal(err)
	}
	if err := h5.CreateGroup(c, path, "meta/run", map[string]any{"ranks": c.Size(), "code": "xpmpi"}); err != nil {
		t.Fatal(err)
	}
	if err := h5.SetAttrs(c, path, "/", map[string]any{"title": "test"}); err != nil {
		t.Fatal(err)
	}
	got, err := h5.ReadAttrs(c, path, "fields/u")
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(got); s != "map[dt:0.125 sizes:[4 3] step:12 units:m/s w:[0.5 2]]" {
		t.Errorf("attributes %s", s)
	}
	if got["step"] != int64(12) {
		t.Errorf("step is %T", got["step"])
	}
	got, err = h5.ReadAttrs(c, path, "meta/run")
	if err != nil || got["ranks"] != int64(c.Size()) || got["code"] != "xpmpi" {
		t.Errorf("group attributes %v, %v", got, err)
	}
	got, err = h5.ReadAttrs(c, path, "/")
	if err != nil || got["title"] != "test" {
		t.Errorf("root attributes %v, %v", got, err)
	}
	// Another shape replaces the dataset; the same shape writes in place.
	z := refArray[int32](t, c, []int{2})
	defer z.Free()
	for _, a := range []*dist.Array[int32]{z, z, x} {
		if err := h5.Save(a, path, "fields/u"); err != nil {
			t.Fatal(err)
		}
		y, err := h5.Load[int32](c, path, "fields/u")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(y.Shape()) != fmt.Sprint(a.Shape()) {
			t.Fatalf("shape %v, want %v", y.Shape(), a.Shape())
		}
		checkRef(t, y)
		y.Free()
	}
	err = h5.Save(z, path, "meta")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "is a group"), "Save over a group: %v", err)
}

// TestErrors: a missing file, a missing dataset, a group, a corrupted file
// and a layout that does not fit are the same error on every rank, with
// HDF5's message where it has one.
func TestErrors(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "e.h5")
	x := refArray[float64](t, c, []int{4})
	defer x.Free()
	if err := h5.Save(x, path, "a/b"); err != nil {
		t.Fatal(err)
	}
	_, err := h5.Load[float64](c, filepath.Join(dir, "none.h5"), "x")
	mpitest.Check(t, c, errors.Is(err, fs.ErrNotExist), "missing file: %v", err)
	_, err = h5.Load[float64](c, path, "a/c")
	mpitest.Check(t, c, errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), "no dataset /a/c"), "missing dataset: %v", err)
	_, err = h5.Load[float64](c, path, "a")
	mpitest.Check(t, c, errors.Is(err, fs.ErrNotExist) && strings.Contains(err.Error(), "is a group"), "group: %v", err)
	_, err = h5.Load[float64](c, path, "a/b", dist.SplitAxis(1))
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "layout options do not fit"), "layout: %v", err)
	bad := filepath.Join(dir, "bad.h5")
	if c.Rank() == 0 {
		os.WriteFile(bad, []byte("not an HDF5 file at all, just some bytes that are long enough"), 0o644)
	}
	c.Barrier()
	_, err = h5.Load[float64](c, bad, "x")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "H5Fopen"), "corrupted file: %v", err)
	t.Logf("corrupted file: %v", err)
}
