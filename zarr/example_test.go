package zarr_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/zarr"
)

// Every rank writes its chunks of a 4 x 6 array into a Zarr store; the
// array is read back split along its columns instead. zarr-python reads the
// same store with zarr.open(dir + "/out.zarr")["fields/u"][...].
func Example() {
	world := mpi.World()
	dir := ""
	if world.Rank() == 0 {
		dir, _ = os.MkdirTemp("", "zarr-example")
	}
	dir = bcastString(world, dir)
	defer func() {
		world.Barrier()
		if world.Rank() == 0 {
			os.RemoveAll(dir)
		}
	}()
	store := filepath.Join(dir, "out.zarr")

	u, _ := dist.FromFunc(world, []int{4, 6}, func(idx []int) float64 {
		return float64(10*idx[0] + idx[1])
	})
	err := zarr.Save(u, store, "fields/u", zarr.Zlib(1),
		zarr.Attributes(map[string]any{"units": "K", "step": 100}))
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := zarr.Load[float64](world, store, "fields/u", dist.SplitAxis(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(v)
	meta, _ := zarr.Stat(store, "fields/u")
	attrs, _ := zarr.ReadAttrs(store, "fields/u")
	fmt.Println(v.Shape(), all[:8])
	fmt.Println(meta.DType, meta.Compressor, attrs)
	// Output:
	// [4 6] [0 1 2 3 4 5 10 11]
	// <f8 zlib map[step:100 units:K]
}

func bcastString(c mpi.Comm, s string) string {
	b := make([]byte, 4096)
	copy(b, s)
	mpi.BcastBytes(c, b, 0)
	n := 0
	for n < len(b) && b[n] != 0 {
		n++
	}
	return string(b[:n])
}
