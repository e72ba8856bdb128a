//go:build cgo

package kerneltest

// The CUDA backend needs cgo: registered here, Device finds it where a GPU
// runs; a build without cgo has the fake device only.
import _ "github.com/xpmpi/xpmpi/backend/cuda"
