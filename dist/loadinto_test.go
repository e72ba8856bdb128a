package dist_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestLoadInto saves arrays of several shapes and reads them back with
// LoadInto into existing arrays of every split axis (and replicated),
// uneven block sizes and a fake-device array, and checks the values
// bitwise; a file of another shape or element type is the same error on
// every rank and leaves the array as it was.
func TestLoadInto(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	dir := mpitest.TempDir(t, c)
	for _, shape := range [][]int{{0}, {1}, {7}, {5, 3}, {2, 9}, {3, 4, 5}, {1, 2, 3}} {
		x := npyArray[float64](t, c, shape, 0)
		path := filepath.Join(dir, fmt.Sprintf("into%d.npy", len(shape)))
		if err := dist.Save(x, path); err != nil {
			t.Fatal(err)
		}
		x.Free()
		want := npyWant[float64](shape)
		for axis := dist.Replicated; axis < len(shape); axis++ {
			opts := [][]dist.Option{{dist.SplitAxis(axis)}}
			if axis >= 0 {
				// Every index on the last rank, as W7 reads.
				counts := make([]int, p)
				counts[p-1] = shape[axis]
				opts = append(opts, []dist.Option{dist.SplitAxis(axis), dist.BlockSizes(counts)})
				opts = append(opts, []dist.Option{dist.SplitAxis(axis), dist.OnBackend(fakedev.Default)})
			}
			for k, o := range opts {
				y, err := dist.Full(c, shape, -7.0, o...)
				if err != nil {
					t.Fatal(err)
				}
				err = dist.LoadInto(y, path)
				what := fmt.Sprintf("%v axis %d options %d", shape, axis, k)
				mpitest.Check(t, c, err == nil, "%s: %v", what, err)
				got, err := dist.Allgather(y)
				if err != nil {
					t.Fatal(err)
				}
				mpitest.Check(t, c, slices.Equal(got, want), "%s: %v, want %v", what, got, want)
				y.Free()
			}
		}
	}

	path := filepath.Join(dir, "into2.npy") // shape [2 9]
	y, err := dist.Full(c, []int{9, 2}, -7.0)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	err = dist.LoadInto(y, path)
	npyErrorEverywhere(t, c, err, "the file holds shape [2 9], the array has shape [9 2]")
	got, err := dist.Allgather(y)
	if err != nil {
		t.Fatal(err)
	}
	mpitest.Check(t, c, slices.Equal(got, slices.Repeat([]float64{-7}, 18)), "after a refused LoadInto: %v", got)

	z, err := dist.Zeros[int32](c, []int{2, 9})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Free()
	npyErrorEverywhere(t, c, dist.LoadInto(z, path), "not int32")
	npyErrorEverywhere(t, c, dist.LoadInto(z, filepath.Join(dir, "missing.npy")), "missing.npy")
}

// loadCounts returns block sizes for n indices over k ranks: uneven, the
// last rank's block empty where k > 1 and n allows (k-1 ranks hold all).
func loadCounts(n, k int) []int {
	c := make([]int, k)
	if k == 1 {
		c[0] = n
		return c
	}
	for i := 0; i < n; i++ {
		c[i%(k-1)]++
	}
	return c
}

// TestLoadIntoLayouts reads files with Load and LoadInto into layouts whose
// blocks are not contiguous in the file (a split axis other than 0, with
// short and long runs; process grids, even and uneven with empty blocks;
// a fake-device array) on both read paths: with MPI-IO each rank reads its
// block through a file view in one collective read. Sizes do not divide
// evenly, and some ranks have nothing; values are checked bitwise.
func TestLoadIntoLayouts(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	dir := mpitest.TempDir(t, c)
	// 2-D grid dims of p ranks: 1x1, 2x1, 3x1, 2x2.
	g0 := p
	if p == 4 {
		g0 = 2
	}
	g1 := p / g0
	for _, how := range []string{"posix", "mpiio"} {
		restore := dist.SetWritePath(how)
		for i, shape := range [][]int{{7, 5}, {5, 7, 3}, {2, 3, 5}, {3, 2, 2100}} {
			x := npyArray[float64](t, c, shape, 0)
			path := filepath.Join(dir, fmt.Sprintf("%s%d.npy", how, i))
			if err := dist.Save(x, path); err != nil {
				t.Fatal(err)
			}
			x.Free()
			want := npyWant[float64](shape)
			grid := make([]int, len(shape))
			gcounts := make([][]int, len(shape))
			for a := range grid {
				grid[a] = 1
				gcounts[a] = []int{shape[a]}
			}
			grid[0], grid[1] = g0, g1
			gcounts[0], gcounts[1] = loadCounts(shape[0], g0), loadCounts(shape[1], g1)
			layouts := [][]dist.Option{
				{dist.SplitAxis(1)},
				{dist.SplitAxis(len(shape) - 1)},
				{dist.ProcessGrid(grid...)},
				{dist.GridBlockSizes(gcounts...)},
				{dist.ProcessGrid(grid...), dist.OnBackend(fakedev.Default)},
				{dist.SplitAxis(1), dist.BlockSizes(loadCounts(shape[1], p)), dist.OnBackend(fakedev.Default)},
			}
			for k, o := range layouts {
				what := fmt.Sprintf("%s %v layout %d", how, shape, k)
				y, err := dist.Full(c, shape, -7.0, o...)
				if err != nil {
					t.Fatal(err)
				}
				err = dist.LoadInto(y, path)
				mpitest.Check(t, c, err == nil, "%s: LoadInto: %v", what, err)
				got, err := dist.Allgather(y)
				if err != nil {
					t.Fatal(err)
				}
				mpitest.Check(t, c, slices.Equal(got, want), "%s: LoadInto read %v, want %v", what, got, want)
				y.Free()
				z, err := dist.Load[float64](c, path, o...)
				mpitest.Check(t, c, err == nil, "%s: Load: %v", what, err)
				got, err = dist.Allgather(z)
				if err != nil {
					t.Fatal(err)
				}
				mpitest.Check(t, c, slices.Equal(got, want), "%s: Load read %v, want %v", what, got, want)
				z.Free()
			}
		}
		restore()
	}
}
