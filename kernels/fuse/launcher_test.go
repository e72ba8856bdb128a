package fuse_test

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// cudaLike is a backend whose buffers say they are on a CUDA device but
// are host memory: enough to take Run's CUDA path without a GPU.
type cudaLike struct{ backend.Backend }

type cudaBuf struct{ *backend.HostBuffer }

func (cudaBuf) Device() backend.Device { return backend.Device{Kind: backend.CUDA} }

func (cudaLike) Device() backend.Device { return backend.Device{Kind: backend.CUDA} }

func (c cudaLike) Alloc(dt backend.DType, n int) (backend.Buffer, error) {
	b, err := cpu.Default.Alloc(dt, n)
	if err != nil {
		return nil, err
	}
	return cudaBuf{b.(*backend.HostBuffer)}, nil
}

// hostLauncher "launches" a CUDAProgram by running the kernel it came from
// on the host views of the buffers, after checking that it was handed the
// arrays and parameters in the order that the program names them.
type hostLauncher struct {
	k     *fuse.Kernel
	calls int
	got   string
}

func (l *hostLauncher) LaunchFused(p *fuse.CUDAProgram, n int, arrays []backend.Buffer, params []backend.Scalar) ([]backend.Scalar, error) {
	l.calls++
	args := fuse.Args{}
	var desc []string
	for i, name := range p.Arrays {
		b := arrays[i]
		if b.Len() != n {
			return nil, fmt.Errorf("array %s of %d elements, n = %d", name, b.Len(), n)
		}
		args[name] = backend.Wrap(unsafe.Slice((*float64)(b.Ptr()), n))
		desc = append(desc, name)
	}
	for i, name := range p.Params {
		args[name] = params[i].Float64()
		desc = append(desc, fmt.Sprintf("%s=%v", name, params[i]))
	}
	l.got = strings.Join(desc, " ")
	res, err := l.k.Run(args)
	if err != nil {
		return nil, err
	}
	var out []backend.Scalar
	for _, r := range p.Results {
		out = append(out, res.Scalar(r))
	}
	return out, nil
}

// TestCUDAPath checks that Run on arrays of a CUDA device calls the
// launcher with the program, the arrays and the parameters in the
// program's order, and returns its results; and that without a launcher
// it is an error. (No GPU: the launcher here runs on the host.)
func TestCUDAPath(t *testing.T) {
	x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
	yn := fuse.Out("y", fuse.Add(fuse.Mul(a, x), y))
	k := fuse.MustCompile(yn, fuse.Dot("yy", yn, yn))
	dev := cudaLike{cpu.Default}
	mk := func(v []float64) *backend.Array[float64] {
		arr, err := backend.NewOn[float64](dev, len(v))
		if err != nil {
			t.Fatal(err)
		}
		copy(unsafe.Slice((*float64)(arr.Ptr()), len(v)), v)
		return arr
	}
	xs, ys := mk([]float64{1, 2, 3}), mk([]float64{1, 1, 1})
	args := fuse.Args{"x": xs, "y": ys, "a": 2.0}
	prev := fuse.SetCUDALauncher(nil)
	defer fuse.SetCUDALauncher(prev)
	if _, err := k.Run(args); err == nil || !strings.Contains(err.Error(), "no CUDA launcher") {
		t.Errorf("without a launcher: error %v", err)
	}
	l := &hostLauncher{k: k}
	fuse.SetCUDALauncher(l)
	res, err := k.Run(args)
	if err != nil {
		t.Fatal(err)
	}
	if got := unsafe.Slice((*float64)(ys.Ptr()), 3); got[0] != 3 || got[1] != 5 || got[2] != 7 {
		t.Errorf("y = %v", got)
	}
	if l.calls != 1 || l.got != "x y a=2" || res.Float64("yy") != 83 {
		t.Errorf("launcher called %d times with %q; yy = %v", l.calls, l.got, res.Float64("yy"))
	}
}
