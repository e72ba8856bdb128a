package dist_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestSaveCheckpointFiles: a checkpoint whose data file a caller writes
// (package h5's HDF5 checkpoints) is committed with the caller's entries in
// its metadata only when the writer succeeds on every rank; a writer that
// fails on one rank, that breaks the contract of failing on every rank, or
// whose entries differ between ranks or shadow the caller's metadata,
// fails the save on every rank and keeps the previous checkpoint, with no
// temporary directory left.
func TestSaveCheckpointFiles(t *testing.T) {
	c := mpitest.World(t)
	dir := filepath.Join(mpitest.TempDir(t, c), "ck")
	meta := map[string]string{"app": "test"}
	write := func(step int) func(tmp string) (map[string]string, error) {
		return func(tmp string) (map[string]string, error) {
			var err error
			if c.Rank() == 0 {
				err = os.WriteFile(filepath.Join(tmp, "data.bin"), []byte(fmt.Sprint(step)), 0o644)
			}
			return map[string]string{"x.file": "data.bin"}, mpi.Agree(c, err)
		}
	}
	check := func(step int64) string {
		r, err := dist.OpenCheckpoint(c, dir)
		if err != nil {
			return err.Error()
		}
		m := r.Manifest()
		b, err := os.ReadFile(filepath.Join(r.Dir(), "data.bin"))
		if m.Step != step || m.Meta["app"] != "test" || m.Meta["x.file"] != "data.bin" || len(m.Arrays) != 0 || string(b) != fmt.Sprint(step) {
			return fmt.Sprintf("step %d, meta %v, arrays %v, data %q %v; want step %d", m.Step, m.Meta, m.Arrays, b, err, step)
		}
		return ""
	}
	if err := dist.SaveCheckpointFiles(c, dir, 1, meta, write(1)); err != nil {
		t.Fatal(err)
	}
	msg := check(1)
	mpitest.Check(t, c, msg == "", "%s", msg)
	bad := []struct {
		name  string
		write func(tmp string) (map[string]string, error)
		want  string
	}{
		{"fails", func(tmp string) (map[string]string, error) {
			var err error
			if c.Rank() == c.Size()-1 {
				err = errors.New("disk on fire")
			}
			return nil, mpi.Agree(c, err)
		}, fmt.Sprintf("failed on rank %d: disk on fire", c.Size()-1)},
		{"one-rank-only", func(tmp string) (map[string]string, error) {
			if c.Rank() == 0 {
				return nil, errors.New("only here")
			}
			return map[string]string{"x.file": "data.bin"}, nil
		}, map[bool]string{true: "only here", false: "writing the data files failed on another rank"}[c.Rank() == 0]},
		{"differ", func(tmp string) (map[string]string, error) {
			return map[string]string{"x.file": fmt.Sprint(c.Rank() % 2)}, nil
		}, "differ from rank 0's"},
		{"shadows", func(tmp string) (map[string]string, error) {
			return map[string]string{"app": "other"}, nil
		}, `entry "app" is a key of the caller's metadata`},
	}
	for _, b := range bad {
		if b.name == "differ" && c.Size() == 1 {
			continue
		}
		err := dist.SaveCheckpointFiles(c, dir, 2, meta, b.write)
		mpitest.Check(t, c, err != nil && strings.Contains(err.Error(), b.want) && strings.Contains(err.Error(), "SaveCheckpoint "+dir),
			"%s: %v; want %q", b.name, err, b.want)
		msg := check(1)
		mpitest.Check(t, c, msg == "", "after %s: %s", b.name, msg)
		if c.Rank() == 0 {
			if left, _ := filepath.Glob(dir + ".tmp-*"); len(left) > 0 {
				t.Errorf("%s left %v", b.name, left)
			}
		}
	}
	if err := dist.SaveCheckpointFiles(c, dir, 3, meta, write(3)); err != nil {
		t.Fatal(err)
	}
	msg = check(3)
	mpitest.Check(t, c, msg == "", "%s", msg)
}
