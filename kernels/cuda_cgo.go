//go:build cgo

package kernels

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
)

// This file and cuda_nocgo.go are the package's only link to backend/cuda,
// whose driver and NVRTC bindings need cgo: built without cgo, kernels
// keeps its host paths and says that CUDA is not built in.

// maxArgBytes is the most bytes of one kernel argument that backend/cuda
// passes (a struct by value).
const maxArgBytes = cuda.MaxArgBytes

// compilePTX compiles CUDA C to PTX with NVRTC (no driver, no GPU).
func compilePTX(src, name string, opts []string) ([]byte, error) {
	return cuda.CompilePTX(src, name, opts...)
}

// nvrtcInfo returns the NVRTC version and file, loading it if needed.
func nvrtcInfo() (version, path string, err error) { return cuda.NVRTC() }

// compileError returns NVRTC's log and result code of a failed
// compilation, and whether err is one (rather than NVRTC missing).
func compileError(err error) (log string, code int, ok bool) {
	ce, ok := err.(*cuda.CompileError)
	if !ok {
		return "", 0, false
	}
	return ce.Log, ce.Code, true
}

// cudaDevice is a CUDA backend, as the launch path uses it.
type cudaDevice struct{ b *cuda.Backend }

// cudaOf returns the CUDA backend that owns the memory of a backend's
// arrays, or false for any other backend (the CPU, the fake device).
func cudaOf(b backend.Backend) (cudaDevice, bool) {
	cb, ok := b.(*cuda.Backend)
	return cudaDevice{cb}, ok
}

// cudaFunc is a loaded kernel entry.
type cudaFunc struct{ f *cuda.Function }

// load compiles src for the device and returns its entry called entry.
func (d cudaDevice) load(src, file, entry string, opts []string) (cudaFunc, error) {
	m, err := d.b.CompileModule(src, file, opts...)
	if err != nil {
		return cudaFunc{}, err
	}
	f, err := m.Function(entry)
	if err != nil {
		return cudaFunc{}, err
	}
	return cudaFunc{f}, nil
}

func (d cudaDevice) synchronize() error { return d.b.Synchronize() }

// launch launches f on the backend's stream with the packed arguments.
func (f cudaFunc) launch(grid, block Dim3, shared int, args []packedArg) error {
	a := &cuda.Args{}
	for _, p := range args {
		if p.buf != nil {
			a.Buffer(p.buf)
		} else {
			a.Bytes(p.bytes)
		}
	}
	return f.f.Launch(cuda.Dim3{X: grid.X, Y: grid.Y, Z: grid.Z}, cuda.Dim3{X: block.X, Y: block.Y, Z: block.Z}, shared, nil, a)
}
