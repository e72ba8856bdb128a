package dist_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestCheckpointChunkedRead checks the checkpoint read that checksums its
// block chunk by chunk (the POSIX read path): blocks of lengths around
// the chunk size, an empty block, one and two threads (the checksum
// goroutine), the right values, and a flipped bit in the first, a middle
// or the last chunk of a block an error on every rank.
func TestCheckpointChunkedRead(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	root := mpitest.TempDir(t, c)
	defer dist.SetWritePath("posix")()
	const chunk = 64 // bytes: 8 float64
	defer dist.SetSumChunkBytes(chunk)()
	const dataOff = 128
	for _, m := range []int{1, 7, 8, 9, 23, 24, 25} {
		// The blocks read: m elements per rank, m+1 on the last, none on
		// rank 1 from 3 ranks on.
		counts := make([]int, p)
		for r := range counts {
			counts[r] = m
		}
		counts[p-1]++
		if p > 2 {
			counts[1] = 0
		}
		n := 0
		for _, k := range counts {
			n += k
		}
		shape := []int{n}
		dir := filepath.Join(root, fmt.Sprintf("m%d", m))
		x := npyArray[float64](t, c, shape, 0)
		if err := dist.SaveCheckpoint(c, dir, 1, nil, dist.Entry("a", x)); err != nil {
			t.Fatal(err)
		}
		x.Free()
		want := npyWant[float64](shape)
		load := func(opt dist.Option) ([]float64, error) {
			r, err := dist.OpenCheckpoint(c, dir)
			if err != nil {
				return nil, err
			}
			y, err := dist.LoadArray[float64](r, "a", opt)
			if err != nil {
				return nil, err
			}
			defer y.Free()
			return dist.Allgather(y)
		}
		// The last rank's block, whose chunks the flipped bits hit.
		lo := (n - counts[p-1]) * 8
		hi := n * 8
		for _, threads := range []int{1, 2} {
			prev := backend.SetThreads(threads)
			for _, opt := range []dist.Option{dist.BlockSizes(counts), dist.SplitAxis(dist.Replicated)} {
				got, err := load(opt)
				mpitest.Check(t, c, err == nil && slices.Equal(got, want), "m %d, threads %d: loaded %v, %v", m, threads, got, err)
			}
			for _, off := range []int{lo, lo + (hi-lo)/2, hi - 1} {
				at := int64(dataOff + off)
				npyOnRank0(t, c, func() error { return ckptFlipBit(filepath.Join(dir, "a.npy"), at, uint(off)) })
				_, err := load(dist.BlockSizes(counts))
				npyErrorEverywhere(t, c, err, "checksum")
				npyOnRank0(t, c, func() error { return ckptFlipBit(filepath.Join(dir, "a.npy"), at, uint(off)) })
			}
			backend.SetThreads(prev)
		}
	}
}

// TestCheckpointLayoutRead reads a checkpoint into layouts whose blocks
// are not contiguous in the file (a split axis other than 0, process
// grids with uneven and empty blocks) on both read paths (MPI-IO: a file
// view of each rank's block), checks the values, and checks that a
// flipped bit anywhere in the data is an error on every rank that names
// the file.
func TestCheckpointLayoutRead(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	root := mpitest.TempDir(t, c)
	const dataOff = 128
	shape := []int{5, 7, 3}
	n := 5 * 7 * 3
	g0 := p
	if p == 4 {
		g0 = 2
	}
	g1 := p / g0
	for _, how := range []string{"posix", "mpiio"} {
		restore := dist.SetWritePath(how)
		dir := filepath.Join(root, how)
		x := npyArray[float64](t, c, shape, 0)
		if err := dist.SaveCheckpoint(c, dir, 1, nil, dist.Entry("a", x)); err != nil {
			t.Fatal(err)
		}
		x.Free()
		want := npyWant[float64](shape)
		layouts := [][]dist.Option{
			{dist.SplitAxis(2)},
			{dist.ProcessGrid(g0, g1, 1)},
			{dist.GridBlockSizes(loadCounts(5, g0), loadCounts(7, g1), []int{3})},
		}
		load := func(opts []dist.Option) ([]float64, error) {
			r, err := dist.OpenCheckpoint(c, dir)
			if err != nil {
				return nil, err
			}
			y, err := dist.LoadArray[float64](r, "a", opts...)
			if err != nil {
				return nil, err
			}
			defer y.Free()
			return dist.Allgather(y)
		}
		for k, o := range layouts {
			got, err := load(o)
			mpitest.Check(t, c, err == nil && slices.Equal(got, want), "%s layout %d: loaded %v, %v", how, k, got, err)
			for _, off := range []int{0, 8*n/2 + 3, 8*n - 1} {
				at := int64(dataOff + off)
				file := filepath.Join(dir, "a.npy")
				npyOnRank0(t, c, func() error { return ckptFlipBit(file, at, uint(off)) })
				_, err := load(o)
				npyErrorEverywhere(t, c, err, "a.npy is corrupted")
				npyOnRank0(t, c, func() error { return ckptFlipBit(file, at, uint(off)) })
			}
		}
		restore()
	}
}
