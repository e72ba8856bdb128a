//go:build cgo

package fusecuda

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

func init() {
	if fuse.SetCUDALauncher(Launcher{}) != nil {
		panic("fusecuda: a CUDA launcher was set before fusecuda's registration")
	}
}

// Launcher is the fuse.CUDALauncher of package backend/cuda: it runs a
// program on the device of its arrays (the CUDA backend cuda.Open gives
// for that device; device 0's default backend for a kernel without
// arrays). The zero value is ready to use; its compiled modules are
// shared by every Launcher.
type Launcher struct{}

var _ fuse.CUDALauncher = Launcher{}

// modules holds the compiled programs, by device ordinal and entry name.
var modules struct {
	mu sync.Mutex
	m  map[moduleKey]*cuda.Module
}

type moduleKey struct {
	dev  int
	main string
}

// module returns p compiled for b's device, compiling it on first use.
func module(b *cuda.Backend, p *fuse.CUDAProgram) (*cuda.Module, error) {
	key := moduleKey{b.Device().ID, p.Main}
	modules.mu.Lock()
	defer modules.mu.Unlock()
	if m, ok := modules.m[key]; ok {
		return m, nil
	}
	m, err := b.CompileModule(p.Source, p.Name, p.Options...)
	if err != nil {
		return nil, err
	}
	if modules.m == nil {
		modules.m = map[moduleKey]*cuda.Module{}
	}
	modules.m[key] = m
	return m, nil
}

// deviceOf returns the CUDA backend of the arrays' device, checking that
// they all live on it.
func deviceOf(arrays []backend.Buffer) (*cuda.Backend, error) {
	if len(arrays) == 0 {
		return cuda.Default()
	}
	dev := arrays[0].Device()
	for _, a := range arrays[1:] {
		if a.Device() != dev {
			return nil, fmt.Errorf("fusecuda: arrays on %v and %v", dev, a.Device())
		}
	}
	if dev.Kind != backend.CUDA {
		return nil, fmt.Errorf("fusecuda: arrays on %v, not a CUDA device", dev)
	}
	return cuda.Open(dev.ID)
}

// LaunchFused runs p over n elements of arrays with params on the arrays'
// CUDA device, and returns one result per reduction of p. It is not
// collective: it runs on the calling process's device only.
func (Launcher) LaunchFused(p *fuse.CUDAProgram, n int, arrays []backend.Buffer, params []backend.Scalar) ([]backend.Scalar, error) {
	b, err := deviceOf(arrays)
	if err != nil {
		return nil, err
	}
	m, err := module(b, p)
	if err != nil {
		return nil, err
	}
	main, err := m.Function(p.Main)
	if err != nil {
		return nil, err
	}
	args := (&cuda.Args{}).Int64(int64(n))
	for _, a := range arrays {
		args.Buffer(a)
	}
	for _, s := range params {
		args.Scalar(s)
	}
	grid := p.Grid(n)
	nres := len(p.Results)
	var part, out backend.Buffer
	if nres > 0 {
		if part, err = b.Alloc(backend.Uint64, grid*nres); err != nil {
			return nil, err
		}
		defer b.Free(part)
		if out, err = b.Alloc(backend.Uint64, nres); err != nil {
			return nil, err
		}
		defer b.Free(out)
		args.Buffer(part)
	}
	if err := main.Launch(cuda.Dim3{X: grid}, cuda.Dim3{X: fuse.CUDABlock}, 0, nil, args); err != nil {
		return nil, err
	}
	if nres == 0 {
		return nil, nil
	}
	final, err := m.Function(p.Final)
	if err != nil {
		return nil, err
	}
	fargs := (&cuda.Args{}).Int32(int32(grid)).Buffer(part).Buffer(out)
	if err := final.Launch(cuda.Dim3{X: 1}, cuda.Dim3{X: fuse.CUDABlock}, 0, nil, fargs); err != nil {
		return nil, err
	}
	words := make([]uint64, nres)
	if err := b.CopyToHost(unsafe.Pointer(&words[0]), out); err != nil {
		return nil, err
	}
	res := make([]backend.Scalar, nres)
	for i, w := range words {
		res[i] = fuse.ScalarOfBits(p.ResultTypes[i], w)
	}
	return res, nil
}
