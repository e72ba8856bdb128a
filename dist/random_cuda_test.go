//go:build cgo

package dist_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestDeviceRandomCUDA checks that the random constructors fill CUDA
// arrays on the device (the CUDA backend's backend.RandomFiller, random.cu
// over rng's philox.cuh): no copy between host and device is recorded,
// uniform deviates and integers are rng's bit for bit, and normal
// deviates agree with rng's to 1e-14 relative (the device's log and cos
// are not Go's; float32 normals to float32's rounding), on every layout at
// any number of ranks. It skips where any rank has no CUDA device; the fake
// CUDA driver of backend/cuda's tests counts as one (see
// TestDeviceStatsCUDA for how to build and select it).
func TestDeviceRandomCUDA(t *testing.T) {
	c := mpitest.World(t)
	b, err := backend.Lookup("cuda")
	all, aerr := mpi.AllTrue(c, err == nil)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if !all {
		t.Skipf("no CUDA device on every rank (here: %v)", err)
	}
	setAware(t, aware)
	testDeviceRandom(t, c, b, true, 1e-14)
}
