//go:build cgo

package dist_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestDeviceLifetimeCUDA is TestDeviceLifetime on the CUDA backend, whose
// cleanup frees the device memory of a buffer nobody holds, as on a GPU:
// an array whose last use is a call that hands its device memory to a
// CUDA-aware MPI stays allocated until MPI is done with it (before
// 20830f6 every operation but SumAxis and Get returned freed memory). It
// skips where any rank has no CUDA device; the fake CUDA driver of
// backend/cuda's tests counts as one.
func TestDeviceLifetimeCUDA(t *testing.T) {
	world := mpitest.World(t)
	b := cudaOrSkip(t, world)
	setAware(t, aware)
	deviceLifetime(t, world, b)
}
