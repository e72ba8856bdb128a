//go:build cgo

package fft

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/staging"
)

// TestDeviceFFTCUDA transforms CUDA arrays (the CUDA backend's
// backend.FFTer, fft.cu) with MPI told it is CUDA-aware: after a first
// transform that makes the plans (and records their upload), neither the
// redistributions nor the local transforms record a copy between host and
// device, and the results equal the CPU's to 1e-12 relative. It skips
// where any rank has no CUDA device; the fake CUDA driver of backend/cuda's
// tests counts as one:
//
//	g++ -std=c++17 -O2 -fPIC -shared -fvisibility=hidden -ffp-contract=off -fno-strict-aliasing \
//	    -I backend/cuda -o /tmp/libcuda.so.1 backend/cuda/testdata/fakecuda/fakecuda.cpp
//	XPMPI_LIBCUDA=/tmp/libcuda.so.1 XPMPI_NVRTC=/tmp/libcuda.so.1 go test ./fft -run TestDeviceFFTCUDA
//
// (the fake driver's memory is host memory, so that a "CUDA-aware" MPI
// reads it).
func TestDeviceFFTCUDA(t *testing.T) {
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
	testDeviceFFTN(t, c, b, 1e-12)
}
