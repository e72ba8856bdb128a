//go:build mpi && linux

package mpi_test

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// A file-size limit makes MPI_File_set_size fail; Open MPI says only
// "MPI_ERR_OTHER: known error not in list". The error names the call, the
// file and the limit.
func TestFileErrorNamesTheLimit(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "big.bin")
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip("getrlimit:", err)
	}
	f, err := mpi.OpenFile(c, path, mpi.WriteOnly|mpi.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const limit, size = 64 << 10, 1 << 20
	lim := old
	lim.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip("setrlimit:", err)
	}
	err = f.SetSize(size)
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)
	// Every rank takes part; the rank (or ranks) that resized report.
	failed, aerr := mpi.AllreduceValue(c, b2i(err != nil), mpi.Max)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if failed == 0 {
		t.Fatalf("SetSize(%d) under a %d-byte file-size limit succeeded on every rank", size, limit)
	}
	if err == nil {
		return
	}
	var fe *mpi.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("SetSize: %T %v, want a *mpi.FileError", err, err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"File_set_size", path, "ulimit -f", "65536 bytes"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error %q lacks %q", msg, want)
		}
	}
	if fe.Class == "" {
		t.Errorf("no MPI error class in %+v", fe)
	}
	var me *mpi.Error
	if !errors.As(err, &me) || me.Code == 0 {
		t.Errorf("errors.As(*mpi.Error) on %v", err)
	}
}

// Opening a file in a directory that does not exist names the file and
// the class.
func TestFileErrorOpen(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	path := filepath.Join(dir, "no-such-dir", "f.bin")
	_, err := mpi.OpenFile(c, path, mpi.ReadOnly)
	if err == nil {
		t.Fatal("opened a file in a missing directory")
	}
	var fe *mpi.FileError
	if errors.As(err, &fe) {
		if fe.Path != path || fe.Call != "File_open" || !strings.Contains(err.Error(), path) {
			t.Fatalf("%+v: want File_open of %s", fe, path)
		}
		if fe.Class != "MPI_ERR_NO_SUCH_FILE" && fe.Class != "MPI_ERR_FILE" && fe.Class != "MPI_ERR_IO" && fe.Class != "MPI_ERR_OTHER" {
			t.Fatalf("class %q of opening a missing file", fe.Class)
		}
	} else if !strings.Contains(err.Error(), path) {
		t.Fatalf("%v does not name %s", err, path)
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
