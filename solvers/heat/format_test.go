package heat

import (
	"errors"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/solvers"
)

// TestCheckpointFormatChecked: an unknown format, or a format without a
// checkpoint, is refused naming the field; "h5" is refused by a build
// without HDF5 with how to build one (package h5's tests restart HDF5
// checkpoints in the build that has it).
func TestCheckpointFormatChecked(t *testing.T) {
	var ce *solvers.ConfigError
	err := Config{N: 4, Iters: 1, Checkpoint: "ck", CheckpointFormat: "hdf"}.Check()
	if !errors.As(err, &ce) || ce.Field != "CheckpointFormat" || !strings.Contains(err.Error(), "want npy or h5") {
		t.Errorf("format hdf: %v", err)
	}
	err = Config{N: 4, Iters: 1, CheckpointFormat: "npy"}.Check()
	if !errors.As(err, &ce) || ce.Without != "Checkpoint" {
		t.Errorf("a format without a checkpoint: %v", err)
	}
	for _, f := range []string{"", "npy"} {
		if err := (Config{N: 4, Iters: 1, Checkpoint: "ck", CheckpointFormat: f}).Check(); err != nil {
			t.Errorf("format %q: %v", f, err)
		}
	}
	err = Config{N: 4, Iters: 1, Checkpoint: "ck", CheckpointFormat: "h5"}.Check()
	if h5.Available() {
		if err != nil {
			t.Errorf("format h5 in a build with HDF5: %v", err)
		}
	} else if !errors.Is(err, h5.ErrUnavailable) || !strings.Contains(err.Error(), "-tags mpi,hdf5") {
		t.Errorf("format h5 without HDF5: %v", err)
	}
}
