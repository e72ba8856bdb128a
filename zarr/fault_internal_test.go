package zarr

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestFailedSaveKeepsArray: a chunk that fails on the last rank fails the
// Save on every rank, leaves the array that was there readable with its
// values, and leaves no temporary directory behind.
func TestFailedSaveKeepsArray(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	store := filepath.Join(dir, "keep.zarr")
	shape := []int{7, 4}
	old, err := dist.FromFunc(c, shape, func(idx []int) float64 { return float64(idx[0]*10 + idx[1]) })
	if err != nil {
		t.Fatal(err)
	}
	defer old.Free()
	if err := Save(old, store, "a/b", Chunks(2, 3)); err != nil {
		t.Fatal(err)
	}
	next, err := dist.Full(c, shape, -1.0)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Free()
	boom := errors.New("injected EIO")
	testFault = func(key string, rank int) error {
		if rank == c.Size()-1 {
			return boom
		}
		return nil
	}
	err = Save(next, store, "a/b", Chunks(2, 3))
	testFault = nil
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "injected EIO"), "Save with a failing chunk: %v", err)
	y, err := Load[float64](c, store, "a/b", dist.SplitAxis(1))
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	start, bshape := y.Layout().Block(c.Rank())
	msg := ""
	for i, v := range y.LocalData() {
		r, col := i/bshape[1], i%bshape[1]
		if want := float64((start[0]+r)*10 + start[1] + col); v != want {
			msg = "the previous array was changed"
			break
		}
	}
	ents, _ := os.ReadDir(filepath.Join(store, "a"))
	for _, e := range ents {
		if e.Name() != "b" && e.Name() != ".zgroup" {
			msg += " left over: " + e.Name()
		}
	}
	mpitest.Check(t, c, msg == "", "%s", msg)
}
