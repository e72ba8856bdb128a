package dist_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// A checkpoint whose data file the caller writes (as package h5 writes
// checkpoint.h5): the writer writes into the temporary directory and
// returns the manifest's entries; the checkpoint is committed only after
// the writer succeeded on every rank.
func ExampleSaveCheckpointFiles() {
	c := mpi.NewSerial()
	dir, _ := os.MkdirTemp("", "ckfiles")
	defer os.RemoveAll(dir)
	ck := filepath.Join(dir, "ck")
	err := dist.SaveCheckpointFiles(c, ck, 3, map[string]string{"app": "example"}, func(tmp string) (map[string]string, error) {
		err := os.WriteFile(filepath.Join(tmp, "data.txt"), []byte("42"), 0o644)
		return map[string]string{"example.file": "data.txt"}, mpi.Agree(c, err)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := dist.OpenCheckpoint(c, ck)
	b, _ := os.ReadFile(filepath.Join(r.Dir(), r.Manifest().Meta["example.file"]))
	fmt.Println(r.Manifest().Step, string(b))
	// Output:
	// 3 42
}
