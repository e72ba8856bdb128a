//go:build hdf5 && mpi && !mpich

package h5_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi"
)

// Every rank writes its block of a 4 x 6 array into an HDF5 file; the
// array is read back split along its columns instead. h5py reads the same
// dataset with h5py.File(path)["fields/u"][...].
func Example() {
	world := mpi.World()
	dir := ""
	if world.Rank() == 0 {
		dir, _ = os.MkdirTemp("", "h5-example")
	}
	b := make([]byte, 4096)
	copy(b, dir)
	mpi.BcastBytes(world, b, 0)
	dir = string(b[:bytes.IndexByte(b, 0)])
	defer func() {
		world.Barrier()
		if world.Rank() == 0 {
			os.RemoveAll(dir)
		}
	}()
	path := filepath.Join(dir, "out.h5")

	u, _ := dist.FromFunc(world, []int{4, 6}, func(idx []int) float64 {
		return float64(10*idx[0] + idx[1])
	})
	err := h5.Save(u, path, "fields/u", h5.Gzip(1),
		h5.Attributes(map[string]any{"units": "K", "step": 100}))
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := h5.Load[float64](world, path, "fields/u", dist.SplitAxis(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(v)
	attrs, _ := h5.ReadAttrs(world, path, "fields/u")
	fmt.Println(v.Shape(), all[:8])
	fmt.Println(attrs)
	// Output:
	// [4 6] [0 1 2 3 4 5 10 11]
	// map[step:100 units:K]
}
