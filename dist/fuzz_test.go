package dist

// Tests of unexported parts of the file I/O: the CRC-32C combination and
// every I/O path (in place, through a layout split on axis 0, chunked
// calls). The checkpoint manifest's fuzz target is in internal/manifest,
// the .npy header's in package npy.

import (
	"bytes"
	"fmt"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestNPYIOPaths saves and loads through every I/O path: runs in place and
// through a layout split on axis 0, in one call per rank and in many
// chunked calls, and checks the data and the checksums against the file.
func TestNPYIOPaths(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	defer func(r, k int) { minRunBytes, ioChunkBytes = r, k }(minRunBytes, ioChunkBytes)
	shapes := [][]int{{7}, {5, 3}, {3, 0}, {2, 5, 3}, {1, 6}, {4, 1, 2}}
	for _, tune := range []struct{ run, chunk int }{{0, 1 << 30}, {1 << 40, 1 << 30}, {0, 16}, {1 << 40, 24}} {
		minRunBytes, ioChunkBytes = tune.run, tune.chunk
		for _, shape := range shapes {
			for save := Replicated; save < len(shape); save++ {
				to := (save+2)%(len(shape)+1) - 1
				name := fmt.Sprintf("run%d-chunk%d/%v/save%d-load%d", tune.run, tune.chunk, shape, save, to)
				path := filepath.Join(dir, "paths.npy")
				x, err := FromFunc(c, shape, func(idx []int) float64 { return float64(ravel(idx, shape))*1.5 - 3 }, SplitAxis(save))
				if err != nil {
					t.Fatal(err)
				}
				sum, err := x.save(path, true)
				if err != nil {
					t.Fatalf("%s: save: %v", name, err)
				}
				// The checksum is the CRC-32C of the file's data.
				var fileSum uint32
				if c.Rank() == 0 {
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					h, err := ParseNPYHeader(bytes.NewReader(b))
					if err != nil || int64(len(b)) != h.DataOffset+h.DataSize() {
						t.Fatalf("%s: %d bytes, header %+v, %v", name, len(b), h, err)
					}
					fileSum = crc32c.Checksum(b[h.DataOffset:])
				}
				fs := []uint32{fileSum}
				if err := mpi.Bcast(c, fs, 0); err != nil {
					t.Fatal(err)
				}
				mpitest.Check(t, c, sum == fs[0], "%s: save checksum %08x, the file's %08x", name, sum, fs[0])
				y, lsum, err := load[float64](c, path, &npyExpect{dtype: backend.Float64, shape: shape}, []Option{SplitAxis(to)})
				if err != nil {
					t.Fatalf("%s: load: %v", name, err)
				}
				mpitest.Check(t, c, lsum == fs[0], "%s: load checksum %08x, the file's %08x", name, lsum, fs[0])
				want, _ := Allgather(x)
				got, err := Allgather(y)
				if err != nil {
					t.Fatal(err)
				}
				mpitest.Check(t, c, slices.Equal(got, want) && y.Layout().Axis() == to, "%s: loaded %v, want %v", name, got, want)
				x.Free()
				y.Free()
			}
		}
	}
}
