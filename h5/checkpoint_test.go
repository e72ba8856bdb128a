//go:build hdf5 && mpi && !mpich

package h5_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// firstRanks returns a communicator of the first n ranks of c (nil on the
// others).
func firstRanks(t *testing.T, c mpi.Comm, n int) mpi.Comm {
	color := 0
	if c.Rank() >= n {
		color = mpi.Undefined
	}
	s, err := c.Split(color, c.Rank())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loadCkpt opens the checkpoint at dir on c and loads its arrays "f"
// (float64, [7 6]), "z" (complex128, [5 3]) and "i" (int32, [0 4]) laid
// out by opts, checking each against the reference values; it returns
// what is wrong, the same on every rank, or "".
func loadCkpt(t *testing.T, c mpi.Comm, dir string, step int64, opts ...dist.Option) string {
	t.Helper()
	r, err := dist.OpenCheckpoint(c, dir)
	if err != nil {
		return err.Error()
	}
	m := r.Manifest()
	if !h5.IsCheckpoint(m) || m.Step != step || m.Meta["k"] != "v" {
		return fmt.Sprintf("manifest: step %d, meta %v, HDF5 %v", m.Step, m.Meta, h5.IsCheckpoint(m))
	}
	if got := fmt.Sprint(h5.CheckpointArrays(m)); got != "[f i z]" {
		return "arrays " + got
	}
	f, err := h5.LoadCheckpointArray[float64](c, r, "f", opts...)
	if err != nil {
		return err.Error()
	}
	checkRef(t, f)
	f.Free()
	z, err := h5.LoadCheckpointArray[complex128](c, r, "z", opts...)
	if err != nil {
		return err.Error()
	}
	checkRef(t, z)
	z.Free()
	i, err := h5.LoadCheckpointArray[int32](c, r, "i")
	if err != nil {
		return err.Error()
	}
	i.Free()
	return ""
}

// saveCkpt saves the arrays that loadCkpt reads, laid out by opts, on c.
func saveCkpt(t *testing.T, c mpi.Comm, dir string, step int64, opts ...dist.Option) error {
	f := refArray[float64](t, c, []int{7, 6}, opts...)
	z := refArray[complex128](t, c, []int{5, 3}, opts...)
	i := refArray[int32](t, c, []int{0, 4})
	defer f.Free()
	defer z.Free()
	defer i.Free()
	return h5.SaveCheckpoint(c, dir, step, map[string]string{"k": "v"},
		h5.CheckpointEntry("f", f), h5.CheckpointEntry("z", z), h5.CheckpointEntry("i", i))
}

// TestCheckpointLayouts saves from every layout kind (row blocks, uneven
// with empty ranks, process grids, replicated, ghosted, the fake device)
// and loads into others, on 1, 2 and all ranks of the world, bitwise.
func TestCheckpointLayouts(t *testing.T) {
	c := mpitest.World(t)
	base := mpitest.TempDir(t, c)
	p := c.Size()
	saves := append(layouts([]int{5, 3}, p), layout{"ghosts", []dist.Option{dist.Ghosts(1)}},
		layout{"device", []dist.Option{dist.OnBackend(fakedev.Default), dist.ProcessGrid(0, 0)}})
	loads := []layout{{"rows", nil}, {"grid", []dist.Option{dist.ProcessGrid(0, 0)}}, {"axis1", []dist.Option{dist.SplitAxis(1)}}}
	for si, s := range saves {
		dir := filepath.Join(base, "ck-"+s.name)
		if s.name == "uneven" || s.name == "grid-uneven" {
			continue // block sizes of [5 3]: not of [7 6]; uneven is below
		}
		if err := saveCkpt(t, c, dir, int64(si), s.opts...); err != nil {
			t.Fatalf("save from %s: %v", s.name, err)
		}
		for _, n := range []int{1, 2, p} {
			if n > p {
				continue
			}
			sub := firstRanks(t, c, n)
			msg := ""
			if sub != nil {
				msg = loadCkpt(t, sub, dir, int64(si), loads[si%len(loads)].opts...)
				sub.Free()
			}
			mpitest.Check(t, c, msg == "", "saved from %s at %d ranks, loaded at %d (%s): %s", s.name, p, n, loads[si%len(loads)].name, msg)
		}
	}
	// Uneven blocks, empty ranks included.
	dir := filepath.Join(base, "ck-uneven")
	f := refArray[float64](t, c, []int{7, 6}, dist.BlockSizes(uneven(7, p)))
	defer f.Free()
	if err := h5.SaveCheckpoint(c, dir, 9, nil, h5.CheckpointEntry("f", f)); err != nil {
		t.Fatal(err)
	}
	r, err := dist.OpenCheckpoint(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := h5.LoadCheckpointArray[float64](c, r, "f", dist.ProcessGrid(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	checkRef(t, g)
	g.Free()
	// Refusals: another type, no such array, a .npy checkpoint.
	_, err = h5.LoadCheckpointArray[float32](c, r, "f")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "holds float64, not float32"), "another type: %v", err)
	_, err = h5.LoadCheckpointArray[float64](c, r, "g")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "no such array (the checkpoint holds [f])"), "no such array: %v", err)
	npyDir := filepath.Join(base, "npy")
	if err := dist.SaveCheckpoint(c, npyDir, 1, nil, dist.Entry("f", f)); err != nil {
		t.Fatal(err)
	}
	rn, err := dist.OpenCheckpoint(c, npyDir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h5.LoadCheckpointArray[float64](c, rn, "f")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "dist.LoadArray"), "a .npy checkpoint: %v", err)
	// An HDF5 checkpoint replaces a .npy one in place, and the other way.
	if err := h5.SaveCheckpoint(c, npyDir, 2, nil, h5.CheckpointEntry("f", f)); err != nil {
		t.Fatal(err)
	}
	if err := dist.SaveCheckpoint(c, dir, 10, nil, dist.Entry("f", f)); err != nil {
		t.Fatal(err)
	}
	rn, err = dist.OpenCheckpoint(c, npyDir)
	mpitest.Check(t, c, err == nil && h5.IsCheckpoint(rn.Manifest()), "the .npy checkpoint replaced by an HDF5 one: %v", err)
	r, err = dist.OpenCheckpoint(c, dir)
	mpitest.Check(t, c, err == nil && !h5.IsCheckpoint(r.Manifest()), "the HDF5 checkpoint replaced by a .npy one: %v", err)
	if c.Rank() == 0 {
		if _, err := os.Stat(filepath.Join(dir, h5.CheckpointFile)); err == nil {
			t.Errorf("the .npy checkpoint that replaced an HDF5 one still has %s", h5.CheckpointFile)
		}
	}
}

// TestCheckpointWriteFaults makes the write of one rank fail (EIO, ENOSPC,
// as HDF5's write would return them), or the file lose what was written
// after HDF5 reported success (what Open MPI's MPI-IO does with a failed
// pwrite), on each rank position: the save fails on every rank naming
// that rank, the operation, the file and the dataset or cause, and the
// previous checkpoint loads as it was. tests.TestH5CheckpointWriteFailure
// does the same with real failing pwrite calls under the CLI.
func TestCheckpointWriteFaults(t *testing.T) {
	c := mpitest.World(t)
	base := mpitest.TempDir(t, c)
	for _, kind := range []struct {
		name  string
		errno error
		want  []string
	}{
		{"EIO", syscall.EIO, []string{"h5: write ", "checkpoint.h5: failed on rank", "dataset /f: ", "input/output error"}},
		{"ENOSPC", syscall.ENOSPC, []string{"h5: write ", "checkpoint.h5: failed on rank", "dataset /f: ", "no space left on device"}},
		{"lost", nil, []string{"checkpoint.h5"}},
	} {
		for r := 0; r < c.Size(); r++ {
			t.Run(fmt.Sprintf("%s/rank%d", kind.name, r), func(t *testing.T) {
				dir := filepath.Join(base, fmt.Sprintf("%s-%d", kind.name, r))
				if err := saveCkpt(t, c, dir, 1); err != nil {
					t.Fatal(err)
				}
				var restore func()
				if kind.errno != nil {
					restore = h5.SetWriteHooks(nil, func(c mpi.Comm, name string) error {
						if c.Rank() == r && name == "/f" {
							return kind.errno
						}
						return nil
					})
				} else {
					restore = h5.SetWriteHooks(func(c mpi.Comm, path string) {
						if c.Rank() == r {
							// The data never reached the file: all but
							// its first KiB is gone.
							os.Truncate(path, 1024)
						}
					}, nil)
				}
				err := saveCkpt(t, c, dir, 2, dist.ProcessGrid(0, 0))
				restore()
				msg := fmt.Sprint(err)
				ok := err != nil && strings.Contains(msg, "dist: SaveCheckpoint "+dir)
				for _, w := range kind.want {
					ok = ok && strings.Contains(msg, w)
				}
				if kind.errno != nil {
					ok = ok && strings.Contains(msg, fmt.Sprintf("failed on rank %d", r))
				}
				t.Logf("the failed save: %s", msg)
				mpitest.Check(t, c, ok, "save with %s on rank %d: %s; want a failure with %q", kind.name, r, msg, kind.want)
				got := loadCkpt(t, c, dir, 1, dist.SplitAxis(1))
				mpitest.Check(t, c, got == "", "after the failed save: %s", got)
				if c.Rank() == 0 {
					ents, _ := filepath.Glob(dir + ".tmp-*")
					if len(ents) > 0 {
						t.Errorf("the failed save left %v", ents)
					}
				}
			})
		}
	}
}

// TestCheckpointCorruption: a checkpoint file damaged after the save (one
// element's bits flipped, the file truncated) fails to load on every rank,
// never a wrong array.
func TestCheckpointCorruption(t *testing.T) {
	c := mpitest.World(t)
	dir := filepath.Join(mpitest.TempDir(t, c), "ck")
	x, err := dist.Full(c, []int{9, 4}, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	if err := h5.SaveCheckpoint(c, dir, 4, nil, h5.CheckpointEntry("x", x)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, h5.CheckpointFile)
	if c.Rank() == 0 {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pat := binary.LittleEndian.AppendUint64(nil, math.Float64bits(1.5))
		i := bytes.Index(b, bytes.Repeat(pat, 4))
		if i < 0 {
			t.Fatal("the data is not in the file")
		}
		b[i+8*5] ^= 1 // element [1 1]
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.Barrier()
	r, err := dist.OpenCheckpoint(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	y, err := h5.LoadCheckpointArray[float64](c, r, "x", dist.SplitAxis(1))
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), "checksum") && strings.Contains(err.Error(), "is corrupted"), "a flipped bit: %v", err)
	if y != nil {
		y.Free()
	}
	if c.Rank() == 0 {
		os.Truncate(path, 700)
	}
	c.Barrier()
	_, err = h5.LoadCheckpointArray[float64](c, r, "x")
	mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), path), "a truncated file: %v", err)
}
