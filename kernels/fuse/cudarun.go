package fuse

import (
	"fmt"
	"sync"

	"github.com/xpmpi/xpmpi/backend"
)

// CUDALauncher runs the generated CUDA kernels of a fused kernel on a CUDA
// device. Package fuse generates the source (Kernel.CUDA) but does not
// launch it itself: the CUDA backend is a cgo package, and this one is pure
// Go. A launcher (set by the program, with SetCUDALauncher) compiles the
// program once per device, launches it as CUDAProgram describes and
// returns the reductions' results as CUDAProgram.Results says.
type CUDALauncher interface {
	// LaunchFused runs p over n elements. arrays are the buffers of
	// p.Arrays, in order; params the values of p.Params, in order. It
	// returns one result per reduction of p, in order.
	LaunchFused(p *CUDAProgram, n int, arrays []backend.Buffer, params []backend.Scalar) ([]backend.Scalar, error)
}

var launcher struct {
	mu sync.Mutex
	l  CUDALauncher
}

// SetCUDALauncher sets the launcher of kernels whose arrays are on a CUDA
// device, and returns the previous one (nil: none).
func SetCUDALauncher(l CUDALauncher) CUDALauncher {
	launcher.mu.Lock()
	defer launcher.mu.Unlock()
	prev := launcher.l
	launcher.l = l
	return prev
}

// runCUDA runs the kernel with the launcher, on arrays of a CUDA device.
func (k *Kernel) runCUDA(ws *workspace, n int, dev backend.Device, args Args) (Result, error) {
	res := Result{k: k}
	launcher.mu.Lock()
	l := launcher.l
	launcher.mu.Unlock()
	if l == nil {
		return res, fmt.Errorf("fuse: the arrays are on %v, and no CUDA launcher is set (SetCUDALauncher); copy them with backend.ToHost to run on the CPU", dev)
	}
	p, err := k.CUDA()
	if err != nil {
		return res, err
	}
	arrays := make([]backend.Buffer, 0, len(p.Arrays))
	for _, name := range p.Arrays {
		arrays = append(arrays, args[name].(array).Buffer())
	}
	params := make([]backend.Scalar, 0, len(p.Params))
	for _, name := range p.Params {
		id := k.paramID(name)
		params = append(params, scalarOf(backend.DType(k.nodes[id].dt), ws.rs.sc[id]))
	}
	vals, err := l.LaunchFused(p, n, arrays, params)
	if err != nil {
		return res, err
	}
	if len(vals) != len(k.reds) {
		return res, fmt.Errorf("fuse: the CUDA launcher returned %d results for %d reductions", len(vals), len(k.reds))
	}
	copy(res.vals[:], vals)
	return res, nil
}

func (k *Kernel) paramID(name string) int32 {
	for _, id := range k.params {
		if k.nodes[id].name == name {
			return id
		}
	}
	return -1
}
