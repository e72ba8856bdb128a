package mpi_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestFile(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "data.bin")
	p, me := c.Size(), c.Rank()
	const k = 5 // elements per rank; rank r writes at r*k
	f, err := mpi.OpenFile(c, path, mpi.WriteOnly|mpi.Create)
	if err != nil {
		t.Fatal(err)
	}
	if err := mpi.WriteAtAll(f, int64(me*k*8), vals[float64](me, k)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	f, err = mpi.OpenFile(c, path, mpi.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := f.Size(); err != nil || n != int64(p*k*8) {
		t.Fatalf("Size = %d, %v", n, err)
	}
	// Read the next rank's part.
	next := (me + 1) % p
	got := make([]float64, k)
	if err := mpi.ReadAtAll(f, int64(next*k*8), got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, vals[float64](next, k)) {
		t.Fatalf("read %v", got)
	}
	// Past the end.
	if err := mpi.ReadAtAll(f, int64(p*k*8-8), got); err == nil {
		t.Fatal("read past the end: no error")
	}
	f.Close()
	if me == 0 {
		if st, err := os.Stat(path); err != nil || st.Size() != int64(p*k*8) {
			t.Fatalf("file on disk: %v %v", st, err)
		}
	}
	if _, err := mpi.OpenFile(c, filepath.Join(dir, "missing", "x"), mpi.ReadOnly); err == nil {
		t.Fatal("opening a missing file: no error")
	}
}
