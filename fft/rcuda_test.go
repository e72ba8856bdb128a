//go:build cgo

package fft

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/staging"
)

// TestDeviceRealCUDA runs the real transforms and shifts on CUDA arrays
// (the complex stages on the device with fft.cu, the real step on the
// host) with MPI told it is CUDA-aware: the copies are the real step's
// and the split shifts' alone, and the results equal the CPU's to 1e-12
// relative. It skips where any rank has no CUDA device; the fake CUDA
// driver of backend/cuda's tests counts as one (see TestDeviceFFTCUDA).
func TestDeviceRealCUDA(t *testing.T) {
	c := mpitest.World(t)
	b, err := backend.Lookup("cuda")
	all, aerr := mpi.AllTrue(c, err == nil)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if !all {
		t.Skipf("no CUDA device on every rank (here: %v)", err)
	}
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.SetCUDAAware(true)
	t.Cleanup(staging.ClearCUDAAware)
	testDeviceReal(t, c, b, 1e-12)
}
