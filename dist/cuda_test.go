//go:build cgo

package dist_test

// The device tests that run on a GPU (TestDeviceHaloCUDA, through
// scripts/gpu-check.sh) need the CUDA backend registered; dist itself
// registers only the CPU backend.
import _ "github.com/xpmpi/xpmpi/backend/cuda"
