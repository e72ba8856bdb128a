package dist_test

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// ckptArray is an array of a test checkpoint.
type ckptArray struct {
	name  string
	dtype backend.DType
	shape []int
	axis  int // split axis it is saved with
}

var ckptArrays = []ckptArray{
	{"u", backend.Float64, []int{5, 4, 3}, 1},
	{"n", backend.Int32, []int{7}, 0},
	{"r", backend.Uint64, []int{3, 2}, dist.Replicated},
	{"e", backend.Float32, []int{0, 3}, 1},
	{"few", backend.Int64, []int{2, 1}, 0}, // fewer rows than ranks
	{"w", backend.Uint32, []int{2, 9}, 1},
}

func ckptEntry[T backend.Element](t *testing.T, c mpi.Comm, a ckptArray) dist.Named {
	return dist.Entry(a.name, npyArray[T](t, c, a.shape, a.axis))
}

// ckptEntries makes the arrays of ckptArrays on c, with the test values.
func ckptEntries(t *testing.T, c mpi.Comm, arrays []ckptArray) []dist.Named {
	var out []dist.Named
	for _, a := range arrays {
		switch a.dtype {
		case backend.Float32:
			out = append(out, ckptEntry[float32](t, c, a))
		case backend.Float64:
			out = append(out, ckptEntry[float64](t, c, a))
		case backend.Int32:
			out = append(out, ckptEntry[int32](t, c, a))
		case backend.Int64:
			out = append(out, ckptEntry[int64](t, c, a))
		case backend.Uint32:
			out = append(out, ckptEntry[uint32](t, c, a))
		case backend.Uint64:
			out = append(out, ckptEntry[uint64](t, c, a))
		}
	}
	return out
}

// ckptLoadCompare loads array a of the checkpoint on every split axis and
// compares it bitwise with the test values; it returns what differs, ""
// if nothing. It fails the test only on errors that every rank of the
// reader's communicator gets.
func ckptLoadCompare[T backend.Element](r *dist.CheckpointReader, a ckptArray) string {
	for axis := dist.Replicated; axis < len(a.shape); axis++ {
		x, err := dist.LoadArray[T](r, a.name, dist.SplitAxis(axis))
		if err != nil {
			return err.Error()
		}
		got, err := dist.Allgather(x)
		x.Free()
		if err != nil {
			return err.Error()
		}
		if want := npyWant[T](a.shape); !slices.Equal(got, want) || !slices.Equal(x.Shape(), a.shape) {
			return fmt.Sprintf("%s on axis %d: %v, want %v", a.name, axis, got, want)
		}
	}
	return ""
}

// ckptVerify opens the checkpoint at dir on c and checks every array
// on every split axis; "" if all is well.
func ckptVerify(c mpi.Comm, dir string, step int64, meta map[string]string, arrays []ckptArray) string {
	r, err := dist.OpenCheckpoint(c, dir)
	if err != nil {
		return err.Error()
	}
	m := r.Manifest()
	if m.Step != step || !maps.Equal(m.Meta, meta) || len(m.Arrays) != len(arrays) {
		return fmt.Sprintf("manifest %+v, want step %d, meta %v, %d arrays", m, step, meta, len(arrays))
	}
	for i, a := range arrays {
		info := m.Arrays[i]
		if info.Name != a.name || info.DType != a.dtype || !slices.Equal(info.Shape, a.shape) {
			return fmt.Sprintf("manifest entry %+v for %+v", info, a)
		}
		var msg string
		switch a.dtype {
		case backend.Float32:
			msg = ckptLoadCompare[float32](r, a)
		case backend.Float64:
			msg = ckptLoadCompare[float64](r, a)
		case backend.Int32:
			msg = ckptLoadCompare[int32](r, a)
		case backend.Int64:
			msg = ckptLoadCompare[int64](r, a)
		case backend.Uint32:
			msg = ckptLoadCompare[uint32](r, a)
		case backend.Uint64:
			msg = ckptLoadCompare[uint64](r, a)
		}
		if msg != "" {
			return msg
		}
	}
	return ""
}

// ckptDirEntries lists dir's parent's entries that start with dir's name,
// except the lock file dir.lock that saves leave (TestCheckpointDirLock).
func ckptDirEntries(dir string) []string {
	ents, _ := os.ReadDir(filepath.Dir(dir))
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), filepath.Base(dir)) && e.Name() != filepath.Base(dir)+".lock" {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestCheckpointRoundTrip saves a checkpoint of arrays of every element
// type and layout, loads them back on every split axis, checks the
// manifest and its checksums against the files, and replaces it.
func TestCheckpointRoundTrip(t *testing.T) {
	c := mpitest.World(t)
	dir := filepath.Join(mpitest.TempDir(t, c), "sub", "ckpt")
	meta := map[string]string{"code": "test", "dt": "0.125", "note": "<&> ünïcode"}
	arrays := ckptEntries(t, c, ckptArrays)
	if err := dist.SaveCheckpoint(c, dir, 7, meta, arrays...); err != nil {
		t.Fatal(err)
	}
	msg := ckptVerify(c, dir, 7, meta, ckptArrays)
	mpitest.Check(t, c, msg == "", "%s", msg)

	r, err := dist.OpenCheckpoint(c, dir)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Manifest()
	mpitest.Check(t, c, m.Ranks == c.Size() && !m.Created.IsZero() && r.Dir() == filepath.Clean(dir) && !r.Recovered(),
		"manifest: ranks %d, created %v, dir %s, recovered %v", m.Ranks, m.Created, r.Dir(), r.Recovered())
	// The checksums are the CRC-32C of each file's data.
	npyOnRank0(t, c, func() error {
		for _, a := range m.Arrays {
			b, err := os.ReadFile(filepath.Join(dir, a.Name+".npy"))
			if err != nil {
				return err
			}
			h, err := dist.ParseNPYHeader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			want := crc32.Checksum(b[h.DataOffset:], crc32.MakeTable(crc32.Castagnoli))
			if a.Checksum != want {
				return fmt.Errorf("%s: manifest checksum %08x, file data's %08x", a.Name, a.Checksum, want)
			}
		}
		if ents := ckptDirEntries(dir); !slices.Equal(ents, []string{"ckpt"}) {
			return fmt.Errorf("after the save: %v", ents)
		}
		return nil
	})

	// Replace it with another step and fewer arrays.
	if err := dist.SaveCheckpoint(c, dir, 8, nil, arrays[:2]...); err != nil {
		t.Fatal(err)
	}
	msg = ckptVerify(c, dir, 8, nil, ckptArrays[:2])
	mpitest.Check(t, c, msg == "", "%s", msg)
	npyOnRank0(t, c, func() error {
		if ents := ckptDirEntries(dir); !slices.Equal(ents, []string{"ckpt"}) {
			return fmt.Errorf("after the second save: %v", ents)
		}
		if _, err := os.Stat(filepath.Join(dir, "r.npy")); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("r.npy of the first checkpoint is still there: %v", err)
		}
		return nil
	})
	// An empty checkpoint.
	if err := dist.SaveCheckpoint(c, dir, -1, map[string]string{}); err != nil {
		t.Fatal(err)
	}
	msg = ckptVerify(c, dir, -1, map[string]string{}, nil)
	mpitest.Check(t, c, msg == "", "%s", msg)
}

// ckptFirstRanks returns a communicator of the first n ranks of c (nil on the
// others).
func ckptFirstRanks(t *testing.T, c mpi.Comm, n int) mpi.Comm {
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

// TestCheckpointRankCounts writes a checkpoint from 3 ranks and loads it
// on 1, 2 and all ranks, bitwise equal on every split axis.
func TestCheckpointRankCounts(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	dir := filepath.Join(mpitest.TempDir(t, c), "ckpt")
	writers := min(3, p)
	if p < 3 {
		t.Logf("the world has %d ranks: writing from %d, loading at 1 and %d", p, writers, p)
	}
	meta := map[string]string{"writers": fmt.Sprint(writers)}
	w := ckptFirstRanks(t, c, writers)
	var err error
	if w != nil {
		err = dist.SaveCheckpoint(w, dir, 3, meta, ckptEntries(t, w, ckptArrays)...)
		w.Free()
	}
	mpitest.Check(t, c, err == nil, "saving from %d ranks: %v", writers, err)
	var ns []int
	for _, n := range []int{1, 2, 4, p} {
		if n <= p && !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	for _, n := range ns {
		sub := ckptFirstRanks(t, c, n)
		msg := ""
		if sub != nil {
			msg = ckptVerify(sub, dir, 3, meta, ckptArrays)
			if msg == "" {
				r, err := dist.OpenCheckpoint(sub, dir)
				if err != nil || r.Manifest().Ranks != writers {
					msg = fmt.Sprintf("writer ranks: %v, %v", r, err)
				}
			}
			sub.Free()
		}
		mpitest.Check(t, c, msg == "", "written at %d ranks, loaded at %d: %s", writers, n, msg)
		t.Logf("written at %d ranks, loaded at %d: bitwise equal", writers, n)
	}
}

// ckptFlipBit flips one bit of the file at path.
func ckptFlipBit(path string, off int64, bit uint) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		f.Close()
		return err
	}
	b[0] ^= 1 << (bit % 8)
	_, err = f.WriteAt(b[:], off)
	return errors.Join(err, f.Close())
}

func ckptCopyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// TestCheckpointCorruption checks that damaged, mismatched and missing
// checkpoint files are the same clear error on every rank, never a wrong
// array.
func TestCheckpointCorruption(t *testing.T) {
	c := mpitest.World(t)
	root := mpitest.TempDir(t, c)
	a := ckptArray{"a", backend.Float64, []int{3, 4}, 1}
	n := 0
	// fresh saves a new checkpoint of a and returns its directory.
	fresh := func(t *testing.T) string {
		n++
		dir := filepath.Join(root, fmt.Sprintf("c%d", n))
		if err := dist.SaveCheckpoint(c, dir, 1, map[string]string{"k": "v"}, ckptEntries(t, c, []ckptArray{a})...); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	load := func(t *testing.T, dir string, axis int) ([]float64, error) {
		r, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			return nil, err
		}
		x, err := dist.LoadArray[float64](r, "a", dist.SplitAxis(axis))
		if err != nil {
			return nil, err
		}
		return dist.Allgather(x)
	}
	file := func(dir string) string { return filepath.Join(dir, "a.npy") }
	const dataOff = 128

	t.Run("truncated", func(t *testing.T) {
		dir := fresh(t)
		npyOnRank0(t, c, func() error { return os.Truncate(file(dir), dataOff+12*8-3) })
		for axis := dist.Replicated; axis < 2; axis++ {
			_, err := load(t, dir, axis)
			npyErrorEverywhere(t, c, err, "truncated")
		}
		npyOnRank0(t, c, func() error { return os.Truncate(file(dir), 50) })
		_, err := load(t, dir, 0)
		npyErrorEverywhere(t, c, err, "truncated")
	})
	t.Run("longer", func(t *testing.T) {
		dir := fresh(t)
		npyOnRank0(t, c, func() error { return os.Truncate(file(dir), dataOff+12*8+1) })
		_, err := load(t, dir, 0)
		npyErrorEverywhere(t, c, err, "1 more than the header and the data")
	})
	t.Run("data bit", func(t *testing.T) {
		dir := fresh(t)
		for _, off := range []int64{dataOff, dataOff + 45, dataOff + 12*8 - 1} {
			npyOnRank0(t, c, func() error { return ckptFlipBit(file(dir), off, uint(off)) })
			for axis := dist.Replicated; axis < 2; axis++ {
				_, err := load(t, dir, axis)
				npyErrorEverywhere(t, c, err, "checksum")
			}
			npyOnRank0(t, c, func() error { return ckptFlipBit(file(dir), off, uint(off)) })
		}
		got, err := load(t, dir, 1)
		mpitest.Check(t, c, err == nil && slices.Equal(got, npyWant[float64](a.shape)), "restored: %v, %v", got, err)
	})
	t.Run("header bits", func(t *testing.T) {
		// Any one bit flipped in the header is an error on every rank, or
		// (in padding that stays white space) the same array.
		dir := fresh(t)
		want := npyWant[float64](a.shape)
		errs := 0
		for off := int64(0); off < dataOff; off++ {
			npyOnRank0(t, c, func() error { return ckptFlipBit(file(dir), off, uint(off)) })
			got, err := load(t, dir, int(off%3)-1)
			allFailed, ferr := mpi.AllTrue(c, err != nil)
			if ferr != nil {
				t.Fatal(ferr)
			}
			if allFailed {
				errs++
				npyErrorEverywhere(t, c, err, "")
			} else {
				mpitest.Check(t, c, err == nil && slices.Equal(got, want), "bit %d of byte %d flipped: loaded %v, %v", off%8, off, got, err)
			}
			npyOnRank0(t, c, func() error { return ckptFlipBit(file(dir), off, uint(off)) })
		}
		t.Logf("%d of %d header bit flips were errors, the others loaded the right array", errs, dataOff)
	})
	t.Run("numpy header", func(t *testing.T) {
		// The same array written by NumPy loads; different data does not.
		dir := fresh(t)
		npyOnRank0(t, c, func() error { return ckptCopyFile(file(dir), npyTestdata("numpy_f8_3x4.npy")) })
		_, err := load(t, dir, 0)
		npyErrorEverywhere(t, c, err, "checksum")
		n++
		dir = filepath.Join(root, fmt.Sprintf("c%d", n))
		np, err := dist.FromFunc(c, a.shape, func(idx []int) float64 { return float64(npyIndex(idx, a.shape))*0.25 - 1 })
		if err != nil {
			t.Fatal(err)
		}
		if err := dist.SaveCheckpoint(c, dir, 1, nil, dist.Entry("a", np)); err != nil {
			t.Fatal(err)
		}
		npyOnRank0(t, c, func() error { return ckptCopyFile(file(dir), npyTestdata("numpy_f8_3x4.npy")) })
		got, err := load(t, dir, 1)
		want, _ := dist.Allgather(np)
		mpitest.Check(t, c, err == nil && slices.Equal(got, want), "NumPy's file: %v, %v", got, err)
	})
	t.Run("wrong dtype", func(t *testing.T) {
		dir := fresh(t)
		r, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = dist.LoadArray[float32](r, "a")
		npyErrorEverywhere(t, c, err, "holds float64, not float32")
		_, err = dist.LoadArray[float64](r, "b")
		npyErrorEverywhere(t, c, err, "no such array")
		// A file of another type or shape than the manifest says.
		other, _ := dist.Zeros[float32](c, a.shape)
		npyOnRank0(t, c, func() error { return os.Remove(file(dir)) })
		if err := dist.Save(other, file(dir)); err != nil {
			t.Fatal(err)
		}
		_, err = dist.LoadArray[float64](r, "a")
		npyErrorEverywhere(t, c, err, "the manifest says float64 of shape [3 4]")
		other2, _ := dist.Zeros[float64](c, []int{4, 3})
		if err := dist.Save(other2, file(dir)); err != nil {
			t.Fatal(err)
		}
		_, err = dist.LoadArray[float64](r, "a")
		npyErrorEverywhere(t, c, err, "the manifest says float64 of shape [3 4]")
	})
	t.Run("missing array file", func(t *testing.T) {
		dir := fresh(t)
		r, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			t.Fatal(err)
		}
		npyOnRank0(t, c, func() error { return os.Remove(file(dir)) })
		_, err = dist.LoadArray[float64](r, "a")
		npyErrorEverywhere(t, c, err, "no such file")
	})
	t.Run("missing manifest", func(t *testing.T) {
		dir := fresh(t)
		npyOnRank0(t, c, func() error { return os.Remove(filepath.Join(dir, "manifest.json")) })
		_, err := dist.OpenCheckpoint(c, dir)
		npyErrorEverywhere(t, c, err, "not a checkpoint")
		_, err = dist.OpenCheckpoint(c, filepath.Join(root, "none"))
		npyErrorEverywhere(t, c, err, "no checkpoint")
		ok := errors.Is(err, dist.ErrNoCheckpoint)
		mpitest.Check(t, c, ok, "error %v is not ErrNoCheckpoint", err)
	})
	t.Run("manifest bits", func(t *testing.T) {
		dir := fresh(t)
		mpath := filepath.Join(dir, "manifest.json")
		var size int64
		npyOnRank0(t, c, func() error {
			st, err := os.Stat(mpath)
			if err == nil {
				size = st.Size()
			}
			return err
		})
		sz := []int64{size}
		if err := mpi.Bcast(c, sz, 0); err != nil {
			t.Fatal(err)
		}
		r0, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			t.Fatal(err)
		}
		m0 := r0.Manifest()
		errs := 0
		for off := int64(0); off < sz[0]; off++ {
			npyOnRank0(t, c, func() error { return ckptFlipBit(mpath, off, uint(off*5)) })
			// An error everywhere, or the same manifest.
			r, err := dist.OpenCheckpoint(c, dir)
			allFailed, aerr := mpi.AllTrue(c, err != nil)
			if aerr != nil {
				t.Fatal(aerr)
			}
			if allFailed {
				errs++
				npyErrorEverywhere(t, c, err, "")
			} else {
				same := false
				if err == nil {
					m := r.Manifest()
					same = m.Step == m0.Step && maps.Equal(m.Meta, m0.Meta) && m.Created.Equal(m0.Created) && m.Ranks == m0.Ranks &&
						slices.EqualFunc(m.Arrays, m0.Arrays, func(x, y dist.ArrayInfo) bool {
							return x.Name == y.Name && x.DType == y.DType && x.Checksum == y.Checksum && slices.Equal(x.Shape, y.Shape)
						})
				}
				mpitest.Check(t, c, same, "byte %d flipped: %v, %v", off, err, r)
			}
			npyOnRank0(t, c, func() error { return ckptFlipBit(mpath, off, uint(off*5)) })
		}
		t.Logf("%d of %d manifest bit flips were errors, the others (case in a key) read the same checkpoint", errs, sz[0])
		npyOnRank0(t, c, func() error {
			return os.WriteFile(mpath, []byte("{\"format\": \"xpmpi-checkpoint\", \"version\": 2}"), 0o644)
		})
		_, err = dist.OpenCheckpoint(c, dir)
		npyErrorEverywhere(t, c, err, "version 2 is not supported")
		npyOnRank0(t, c, func() error { return os.WriteFile(mpath, []byte("not json"), 0o644) })
		_, err = dist.OpenCheckpoint(c, dir)
		npyErrorEverywhere(t, c, err, "bad manifest")
	})
}

// TestCheckpointCrash builds by hand what a save killed at each point
// leaves on disk, and checks that the previous or the new checkpoint
// loads, and that the next save cleans up.
func TestCheckpointCrash(t *testing.T) {
	c := mpitest.World(t)
	root := mpitest.TempDir(t, c)
	dir := filepath.Join(root, "ckpt")
	arrs := []ckptArray{{"u", backend.Float64, []int{4, 5}, 1}, {"n", backend.Int32, []int{6}, 0}}
	save := func(step int64) {
		if err := dist.SaveCheckpoint(c, dir, step, nil, ckptEntries(t, c, arrs)...); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(step int64, recovered bool) {
		t.Helper()
		msg := ckptVerify(c, dir, step, nil, arrs)
		mpitest.Check(t, c, msg == "", "step %d: %s", step, msg)
		r, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			t.Fatal(err)
		}
		mpitest.Check(t, c, r.Recovered() == recovered, "recovered %v, want %v", r.Recovered(), recovered)
	}
	save(1)

	// Killed while writing: a temporary directory with part of the files.
	npyOnRank0(t, c, func() error {
		tmp := dir + ".tmp-2-0123456789abcdef"
		if err := os.Mkdir(tmp, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "u.npy"), []byte("\x93NUMPY partial"), 0o644)
	})
	expect(1, false)

	// Killed between moving the old checkpoint aside and the new one in.
	npyOnRank0(t, c, func() error { return os.Rename(dir, dir+".old") })
	_, err := dist.OpenCheckpoint(c, dir)
	mpitest.Check(t, c, err == nil, "opening after a crash between the renames: %v", err)
	npyOnRank0(t, c, func() error {
		if ents := ckptDirEntries(dir); !slices.Equal(ents, []string{"ckpt", "ckpt.tmp-2-0123456789abcdef"}) {
			return fmt.Errorf("after recovery: %v", ents)
		}
		return nil
	})
	npyOnRank0(t, c, func() error { return os.Rename(dir, dir+".old") })
	msg := ckptVerify(c, dir, 1, nil, arrs)
	mpitest.Check(t, c, msg == "", "after a crash between the renames: %s", msg)

	// The next save cleans up what the crashes left.
	save(2)
	npyOnRank0(t, c, func() error {
		if ents := ckptDirEntries(dir); !slices.Equal(ents, []string{"ckpt"}) {
			return fmt.Errorf("after the save: %v", ents)
		}
		return nil
	})
	expect(2, false)

	// Killed after the new checkpoint was moved in, before the old one was
	// removed: the new one loads, and the next save removes the old one.
	npyOnRank0(t, c, func() error { return os.Mkdir(dir+".old", 0o755) })
	expect(2, false)
	save(3)
	npyOnRank0(t, c, func() error {
		if ents := ckptDirEntries(dir); !slices.Equal(ents, []string{"ckpt"}) {
			return fmt.Errorf("after the save: %v", ents)
		}
		return nil
	})

	// A directory that is not a checkpoint is never replaced.
	other := filepath.Join(root, "mine")
	npyOnRank0(t, c, func() error {
		if err := os.Mkdir(other, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(other, "precious.txt"), []byte("keep me"), 0o644)
	})
	err = dist.SaveCheckpoint(c, other, 1, nil, ckptEntries(t, c, arrs)...)
	npyErrorEverywhere(t, c, err, "not a checkpoint")
	npyOnRank0(t, c, func() error {
		if ents := ckptDirEntries(other); !slices.Equal(ents, []string{"mine"}) {
			return fmt.Errorf("after the refused save: %v", ents)
		}
		_, err := os.Stat(filepath.Join(other, "precious.txt"))
		return err
	})
	// A save to a path that is a file fails, and leaves the checkpoint
	// elsewhere alone.
	npyOnRank0(t, c, func() error { return os.WriteFile(filepath.Join(root, "file"), nil, 0o644) })
	err = dist.SaveCheckpoint(c, filepath.Join(root, "file"), 1, nil)
	npyErrorEverywhere(t, c, err, "not a directory")
	expect(3, false)
}

// TestCheckpointArgs checks that ranks that pass different arguments get
// an error, not a checkpoint of mixed arrays.
func TestCheckpointArgs(t *testing.T) {
	c := mpitest.World(t)
	if c.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	dir := filepath.Join(mpitest.TempDir(t, c), "ckpt")
	err := dist.SaveCheckpoint(c, dir, int64(c.Rank()), nil, ckptEntries(t, c, ckptArrays[:1])...)
	npyErrorEverywhere(t, c, err, "rank 1")
	_, err = dist.OpenCheckpoint(c, dir)
	npyErrorEverywhere(t, c, err, "no checkpoint")
}

// BenchmarkCheckpoint saves a checkpoint of a float64 array of 2^22
// elements (32 MiB) and loads it back with its checksum verified.
func BenchmarkCheckpoint(b *testing.B) {
	c := mpitest.World(b)
	dir := filepath.Join(mpitest.TempDir(b, c), "ckpt")
	x, err := dist.FromFunc(c, []int{1 << 22}, func(idx []int) float64 { return float64(idx[0]) })
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(2 * 8 << 22)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := dist.SaveCheckpoint(c, dir, int64(i), nil, dist.Entry("x", x)); err != nil {
			b.Fatal(err)
		}
		r, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			b.Fatal(err)
		}
		y, err := dist.LoadArray[float64](r, "x")
		if err != nil {
			b.Fatal(err)
		}
		y.Free()
	}
}

// exampleDir returns a new directory that every rank sees, made by rank 0,
// and a function that removes it.
func exampleDir(world mpi.Comm) (string, func()) {
	name := make([]byte, 4096)
	if world.Rank() == 0 {
		d, _ := os.MkdirTemp("", "xpmpi-example")
		copy(name, d)
	}
	mpi.BcastBytes(world, name, 0)
	dir := string(bytes.TrimRight(name, "\x00"))
	return dir, func() {
		world.Barrier()
		if world.Rank() == 0 {
			os.RemoveAll(dir)
		}
	}
}

func ExampleSaveCheckpoint() {
	world := mpi.World()
	tmp, done := exampleDir(world)
	defer done()
	dir := filepath.Join(tmp, "ckpt")

	u, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return float64(3*idx[0] + idx[1])
	}, dist.SplitAxis(1))
	n, _ := dist.Arange(world, int64(10), 14, 1)
	err := dist.SaveCheckpoint(world, dir, 100, map[string]string{"model": "demo"},
		dist.Entry("u", u), dist.Entry("n", n))
	if err != nil {
		fmt.Println(err)
		return
	}

	// Later, perhaps on another number of ranks:
	r, err := dist.OpenCheckpoint(world, dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := r.Manifest()
	fmt.Println(m.Step, m.Meta["model"])
	for _, a := range m.Arrays {
		fmt.Println(a.Name, a.DType, a.Shape)
	}
	v, err := dist.LoadArray[float64](r, "u") // split on axis 0 this time
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(v)
	fmt.Println(all)
	_, err = dist.LoadArray[float32](r, "n")
	fmt.Println(err != nil)
	// Output:
	// 100 demo
	// u float64 [2 3]
	// n int64 [4]
	// [0 1 2 3 4 5]
	// true
}
