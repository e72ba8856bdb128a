package kernels_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

func TestCatalog(t *testing.T) {
	c := kernels.NewCatalog()
	host := func(*kernels.HostCall) error { return nil }
	b := kernels.MustNew(kernels.Spec{Name: "b", Signature: "void b(float *x)", Host: host})
	a := kernels.MustNew(kernels.Spec{Name: "a", CUDA: `extern "C" __global__ void a(T *x, int n) {}`, Types: []backend.DType{backend.Float64, backend.Int32},
		Defines: map[string]string{"W": "3"}})
	for _, k := range []*kernels.Kernel{b, a} {
		if err := c.Register(k); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Register(a); err == nil || !strings.Contains(err.Error(), "a kernel named a is already registered") {
		t.Errorf("duplicate: %v", err)
	}
	if k, ok := c.Lookup("a"); !ok || k != a {
		t.Errorf("Lookup(a) = %v, %v", k, ok)
	}
	if _, ok := c.Lookup("zz"); ok {
		t.Error("Lookup(zz) found something")
	}
	all := c.All()
	if len(all) != 2 || all[0].Name() != "a" || all[1].Name() != "b" {
		t.Errorf("All() = %v", all)
	}
	s := c.Summary()
	if s.String() != "CUDA kernels: 1 of 2 (missing: b)" || s.Host != 1 || s.CUDA != 1 {
		t.Errorf("Summary = %q, %+v", s, s)
	}
	in := s.Kernels[0]
	if in.Name != "a" || in.Host || !in.CUDA || strings.Join(in.Variants, ";") != "float64 W=3;int32 W=3" || in.Signature != `extern "C" __global__ void a(T *x, int n)` {
		t.Errorf("Info(a) = %+v", in)
	}
	// A kernel without a host implementation on host arrays.
	err := a.Call(kernels.Array(backend.Wrap([]float64{1})), kernels.Int(1))
	if err == nil || !strings.Contains(err.Error(), "no host implementation") {
		t.Errorf("CUDA-only kernel on the host: %v", err)
	}
}

func TestDebugModeSource(t *testing.T) {
	k := kernels.MustNew(kernels.Spec{Name: "d", CUDA: `extern "C" __global__ void d(float *x) {}`})
	if src := k.VariantSource(k.Variants()[0]); strings.Contains(src, "XPMPI_DEBUG") {
		t.Errorf("XPMPI_DEBUG defined without XPMPI_CUDA_DEBUG=1")
	}
	t.Setenv("XPMPI_CUDA_DEBUG", "1")
	if src := k.VariantSource(k.Variants()[0]); !strings.Contains(src, "#define XPMPI_DEBUG 1\n") {
		t.Errorf("XPMPI_CUDA_DEBUG=1: no XPMPI_DEBUG in\n%s", src)
	}
}

// TestConcurrentCalls runs one kernel from many goroutines, on the host
// and on the fake device (run with -race).
func TestConcurrentCalls(t *testing.T) {
	var wg sync.WaitGroup
	ys := make([]*backend.Array[float64], 8)
	for g := range ys {
		xs := []float64{1, 2, 3, float64(g)}
		var x, y *backend.Array[float64]
		if g%2 == 0 {
			x, y = backend.Wrap(xs), backend.Wrap(make([]float64, 4))
		} else {
			x, y = fakeArray(t, xs), fakeArray(t, make([]float64, 4))
		}
		ys[g] = y
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if err := kernels.AxpyKernel.Call(kernels.Int(4), kernels.Scalar(1.0), kernels.Array(x), kernels.Array(y)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for g, y := range ys {
		if got := toHost(t, y); got[3] != 20*float64(g) {
			t.Errorf("goroutine %d: y = %v", g, got)
		}
	}
}
