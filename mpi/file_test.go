package mpi_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestFile(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "data.bin")
	p, me := c.Size(), c.Rank()
	const k = 5 // elements per rank; rank r writes at r*k
	f, err := mpi.OpenFile(c, path, mpi.WriteOnly|mpi.Create)
	if err != nil {
		t.Fatal(err)
	}
	if err := mpi.WriteAtAll(f, int64(me*k*8), vals[float64](me, k)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = mpi.OpenFile(c, path, mpi.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := f.Size(); err != nil || n != int64(p*k*8) {
		t.Fatalf("Size = %d, %v", n, err)
	}
	// Read the next rank's part.
	next := (me + 1) % p
	got := make([]float64, k)
	if err := mpi.ReadAtAll(f, int64(next*k*8), got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, vals[float64](next, k)) {
		t.Fatalf("read %v", got)
	}
	// Past the end.
	if err := mpi.ReadAtAll(f, int64(p*k*8-8), got); err == nil {
		t.Fatal("read past the end: no error")
	}
	f.Close()
	if me == 0 {
		if st, err := os.Stat(path); err != nil || st.Size() != int64(p*k*8) {
			t.Fatalf("file on disk: %v %v", st, err)
		}
	}
	if _, err := mpi.OpenFile(c, filepath.Join(dir, "missing", "x"), mpi.ReadOnly); err == nil {
		t.Fatal("opening a missing file: no error")
	}
}

// viewBlock returns rank r's block of shape over a process grid of dims
// (one entry per dimension, 1 where not split): even shares, the first
// ones one larger.
func viewBlock(shape, dims []int, r int) (start, sub []int) {
	start, sub = make([]int, len(shape)), make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		c := r % dims[i]
		r /= dims[i]
		n, p := shape[i], dims[i]
		start[i] = c*(n/p) + min(c, n%p)
		sub[i] = n / p
		if c < n%p {
			sub[i]++
		}
	}
	return start, sub
}

// blockIndices returns the C-order flat indices of a block of shape.
func blockIndices(shape, start, sub []int) []int {
	var out []int
	idx := make([]int, len(shape))
	total := 1
	for _, s := range sub {
		total *= s
	}
	for k := 0; k < total; k++ {
		r := k
		for i := len(sub) - 1; i >= 0; i-- {
			idx[i] = start[i] + r%sub[i]
			r /= sub[i]
		}
		flat := 0
		for i := range shape {
			flat = flat*shape[i] + idx[i]
		}
		out = append(out, flat)
	}
	return out
}

func TestFileView(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	p, me := c.Size(), c.Rank()
	const disp = 13 // bytes before the array: not a multiple of 8
	for _, tc := range []struct {
		name  string
		shape []int
		dims  func(p int) []int
	}{
		{"rows", []int{7, 5}, func(p int) []int { return []int{p, 1} }},
		{"columns", []int{4, 9}, func(p int) []int { return []int{1, p} }},
		{"middle axis", []int{3, 7, 4}, func(p int) []int { return []int{1, p, 1} }},
		{"grid", []int{5, 7, 3}, func(p int) []int {
			if p == 4 {
				return []int{2, 2, 1}
			}
			return []int{p, 1, 1}
		}},
		{"fewer rows than ranks", []int{2, 3, 5}, func(p int) []int { return []int{p, 1, 1} }},
		{"1-D", []int{11}, func(p int) []int { return []int{p} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".bin")
			n := 1
			for _, s := range tc.shape {
				n *= s
			}
			dims := tc.dims(p)
			block := func(r int) mpi.Subarray {
				start, sub := viewBlock(tc.shape, dims, r)
				return mpi.Subarray{Sizes: tc.shape, Subsizes: sub, Starts: start}
			}
			// Each rank writes its block: element i of the array is 0.5+i.
			mine := block(me)
			idx := blockIndices(tc.shape, mine.Starts, mine.Subsizes)
			buf := make([]float64, len(idx))
			for k, i := range idx {
				buf[k] = 0.5 + float64(i)
			}
			f, err := mpi.OpenFile(c, path, mpi.WriteOnly|mpi.Create)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.SetView(disp, mpi.Float64, mine); err != nil {
				t.Fatal(err)
			}
			if err := mpi.WriteAtAll(f, 0, buf); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			// The file holds the array in C order after disp bytes.
			if me == 0 {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if len(b) != disp+8*n {
					t.Fatalf("file of %d bytes, want %d", len(b), disp+8*n)
				}
				for i := 0; i < n; i++ {
					if got := math.Float64frombits(binary.LittleEndian.Uint64(b[disp+8*i:])); got != 0.5+float64(i) {
						t.Fatalf("element %d of the file: %v, want %v", i, got, 0.5+float64(i))
					}
				}
			}
			// Each rank reads the next rank's block, in two calls (the
			// second at an offset inside the view).
			next := block((me + 1) % p)
			want := blockIndices(tc.shape, next.Starts, next.Subsizes)
			got := make([]float64, len(want))
			f, err = mpi.OpenFile(c, path, mpi.ReadOnly)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.SetView(disp, mpi.Float64, next); err != nil {
				t.Fatal(err)
			}
			h := len(got) / 2
			if err := mpi.ReadAtAll(f, 0, got[:h]); err != nil {
				t.Fatal(err)
			}
			if err := mpi.ReadAtAll(f, int64(8*h), got[h:]); err != nil {
				t.Fatal(err)
			}
			for k, i := range want {
				if got[k] != 0.5+float64(i) {
					t.Fatalf("element %d of rank %d's block: %v, want %v", k, (me+1)%p, got[k], 0.5+float64(i))
				}
			}
			// Past the end of the file: the view's tile repeats after
			// the array, where the file has nothing.
			if len(got) > 0 {
				err = mpi.ReadAtAll(f, int64(8*len(got)), got[:1])
			} else {
				err = mpi.ReadAtAll(f, 0, got)
			}
			if (err == nil) != (len(got) == 0) {
				t.Fatalf("read past the end of the file: %v", err)
			}
			// Back to the plain view: bytes from disp.
			if err := f.SetView(disp, mpi.Float64, mpi.Subarray{}); err != nil {
				t.Fatal(err)
			}
			one := make([]float64, 1)
			if err := mpi.ReadAtAll(f, int64(8*(n-1)), one); err != nil || one[0] != 0.5+float64(n-1) {
				t.Fatalf("plain view: %v %v", one, err)
			}
		})
	}
}

func TestFileViewPanics(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	f, err := mpi.OpenFile(c, filepath.Join(dir, "p.bin"), mpi.ReadWrite|mpi.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		name string
		s    mpi.Subarray
	}{
		{"lengths", mpi.Subarray{Sizes: []int{3, 4}, Subsizes: []int{1}, Starts: []int{0, 0}}},
		{"outside", mpi.Subarray{Sizes: []int{3, 4}, Subsizes: []int{2, 2}, Starts: []int{2, 0}}},
		{"negative", mpi.Subarray{Sizes: []int{3}, Subsizes: []int{1}, Starts: []int{-1}}},
		{"zero size", mpi.Subarray{Sizes: []int{0}, Subsizes: []int{0}, Starts: []int{0}}},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			f.SetView(0, mpi.Float64, tc.s)
		}()
	}
	// Empty block: the view reads nothing, and reading something panics.
	if err := f.SetView(0, mpi.Float64, mpi.Subarray{Sizes: []int{3, 4}, Subsizes: []int{0, 4}, Starts: []int{3, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := mpi.ReadAtAll(f, 0, []float64{}); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("reading through an empty view: no panic")
			}
		}()
		f.ReadAt(0, nil, 1, mpi.Float64)
	}()
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("offset not a multiple of the etype: no panic")
			}
		}()
		f.SetView(0, mpi.Float64, mpi.Subarray{})
		f.ReadAt(4, nil, 0, mpi.Float64)
	}()
}

// TestFileViewChecking checks that in checking mode SetView is a checked
// collective: ranks that pass different etypes get a mismatch error that
// names the call, instead of MPI's undefined behaviour.
func TestFileViewChecking(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	f, err := mpi.OpenFile(c, filepath.Join(dir, "c.bin"), mpi.ReadWrite|mpi.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	withChecking(t)
	sub := mpi.Subarray{Sizes: []int{4}, Subsizes: []int{1}, Starts: []int{c.Rank() % 4}}
	if err := f.SetView(0, mpi.Float64, sub); err != nil {
		t.Fatal(err)
	}
	if c.Size() < 2 {
		return
	}
	et := mpi.Float64
	if c.Rank() == 1 {
		et = mpi.Int64
	}
	err = f.SetView(0, et, sub)
	var me *mpi.MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "File.SetView") {
		t.Fatalf("rank %d: SetView with different etypes: %v", c.Rank(), err)
	}
}
