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

// A checkpoint in HDF5: every rank saves its rows of u, and the array is
// read back on a process grid, checked against the manifest's checksum.
func ExampleSaveCheckpoint() {
	world := mpi.World()
	dir := ""
	if world.Rank() == 0 {
		dir, _ = os.MkdirTemp("", "h5-ckpt-example")
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
	ck := filepath.Join(dir, "ck")
	u, _ := dist.FromFunc(world, []int{3, 4}, func(i []int) float64 { return float64(4*i[0] + i[1]) })
	defer u.Free()
	if err := h5.SaveCheckpoint(world, ck, 7, map[string]string{"app": "example"}, h5.CheckpointEntry("u", u)); err != nil {
		fmt.Println(err)
		return
	}
	r, err := dist.OpenCheckpoint(world, ck)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := r.Manifest()
	v, err := h5.LoadCheckpointArray[float64](world, r, "u", dist.ProcessGrid(0, 0))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Free()
	all, _ := dist.Allgather(v)
	fmt.Println(m.Step, h5.IsCheckpoint(m), h5.CheckpointArrays(m), all)
	// Output:
	// 7 true [u] [0 1 2 3 4 5 6 7 8 9 10 11]
}
