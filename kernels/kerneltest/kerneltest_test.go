package kerneltest_test

import (
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

func TestCompare(t *testing.T) {
	nan2 := math.Float32frombits(0x7fc00001)
	tests := []struct {
		name       string
		host, dev  []float32
		ulps       int
		wantIndex  int // -1: equal
		wantSubstr string
	}{
		{"equal", []float32{1, 2}, []float32{1, 2}, 0, -1, ""},
		{"nan payloads", []float32{float32(math.NaN())}, []float32{nan2}, 0, -1, ""},
		{"nan vs number", []float32{1, float32(math.NaN())}, []float32{1, 1}, 1000, 1, "index 1"},
		{"one ulp", []float32{1}, []float32{math.Nextafter32(1, 2)}, 1, -1, ""},
		{"two ulps", []float32{1, 1}, []float32{1, math.Nextafter32(math.Nextafter32(1, 2), 2)}, 1, 1, "2 ULPs apart"},
		{"signed zeros bitwise", []float32{0}, []float32{float32(math.Copysign(0, -1))}, 0, 0, "index 0"},
		{"signed zeros with tolerance", []float32{0}, []float32{float32(math.Copysign(0, -1))}, 1, -1, ""},
		{"across zero", []float32{math.SmallestNonzeroFloat32}, []float32{-math.SmallestNonzeroFloat32}, 2, -1, ""},
		{"infinities", []float32{float32(math.Inf(1))}, []float32{float32(math.Inf(-1))}, 5, 0, "+Inf"},
		{"lengths", []float32{1}, []float32{}, 0, 0, "lengths 1 and 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := kerneltest.Compare(tc.host, tc.dev, tc.ulps)
			if tc.wantIndex < 0 {
				if err != nil {
					t.Errorf("Compare = %v", err)
				}
				return
			}
			m, ok := err.(*kerneltest.Mismatch)
			if !ok || (m.LenA == m.LenB && m.Index != tc.wantIndex) || !strings.Contains(err.Error(), tc.wantSubstr) {
				t.Errorf("Compare = %v, want a mismatch at %d saying %q", err, tc.wantIndex, tc.wantSubstr)
			}
		})
	}
	if err := kerneltest.Compare([]int64{1, 2, 3}, []int64{1, 2, 4}, 10); err == nil || !strings.Contains(err.Error(), "index 2: host 3, device 4") {
		t.Errorf("int64: %v", err)
	}
}

// TestParityFindsDifference: a kernel whose device side differs from its
// host side (here: a host implementation that behaves differently on
// device memory) fails Parity with the first differing index.
func TestParityFindsDifference(t *testing.T) {
	k := kernels.MustNew(kernels.Spec{
		Name:      "odd",
		Signature: "void odd(const float *x, float *y)",
		Host: func(c *kernels.HostCall) error {
			x, y := kernels.In[float32](c, 0), kernels.Out[float32](c, 1)
			for i := range y {
				y[i] = x[i] * 2
			}
			return nil
		},
		Parity: []kernels.ParityCase{{Name: "five", Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
			x, err := backend.NewOn[float32](b, 5)
			if err != nil {
				return nil, kernels.Config{}, err
			}
			y, err := backend.NewOn[float32](b, 5)
			if err != nil {
				return nil, kernels.Config{}, err
			}
			vals := []float32{1, 2, 3, 4, 5}
			if !b.Device().IsHost() {
				vals[3] = 40 // the device side gets other inputs
			}
			if err := backend.CopyFromHostSlice(x, vals); err != nil {
				return nil, kernels.Config{}, err
			}
			return []kernels.Arg{kernels.Array(x), kernels.Array(y)}, kernels.Config{}, nil
		}}},
	})
	err := kerneltest.CheckCase(k, k.ParityCases()[0], fakedev.Default, backend.Float32)
	for _, w := range []string{"odd (five, float32), argument 0 (x): host and fake:0 differ: first difference at index 3: host 4 (0x40800000), device 40",
		"argument 1 (y): host and fake:0 differ: first difference at index 3: host 8"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("CheckCase = %v, want it to say %q", err, w)
		}
	}
}

// TestConstChecked: a host implementation that writes a const array (by
// In, which does not refuse) is caught.
func TestConstChecked(t *testing.T) {
	k := kernels.MustNew(kernels.Spec{
		Name:      "sneaky",
		Signature: "void sneaky(const float *x)",
		Host: func(c *kernels.HostCall) error {
			kernels.In[float32](c, 0)[0] = 9
			return nil
		},
		Parity: []kernels.ParityCase{{Name: "one", Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
			x, err := backend.NewOn[float32](b, 1)
			return []kernels.Arg{kernels.Array(x)}, kernels.Config{}, err
		}}},
	})
	err := kerneltest.CheckCase(k, k.ParityCases()[0], fakedev.Default, backend.Float32)
	if err == nil || !strings.Contains(err.Error(), "argument 0 (x) is const, but the host implementation changed it") {
		t.Errorf("CheckCase = %v", err)
	}
}

// scaleKernel is y = K*x, K a compile-time define (default 2), for
// float32 and float64. Its host implementation is deliberately wrong for
// float32 at index 3 when wrong is set: the parity check must catch it
// against the CUDA source run on the fake driver (or a GPU).
func scaleKernel(name string, wrong bool) *kernels.Kernel {
	host := func(c *kernels.HostCall) error {
		kv, _ := c.Define("K")
		k := 2.0
		if kv == "3" {
			k = 3
		}
		switch c.DType() {
		case backend.Float32:
			x, y := kernels.In[float32](c, 0), kernels.Out[float32](c, 1)
			for i := range y {
				y[i] = float32(k) * x[i]
				if wrong && i == 3 {
					y[i] += 1
				}
			}
		case backend.Float64:
			x, y := kernels.In[float64](c, 0), kernels.Out[float64](c, 1)
			for i := range y {
				y[i] = k * x[i]
			}
		}
		return nil
	}
	mk := func(defines map[string]string) func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
		return func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
			in := kernels.Inputs{N: 9}
			var x, y kernels.Arg
			if dt == backend.Float32 {
				xa, err := kernels.NewArray[float32](b, in.Values(dt, 0))
				if err != nil {
					return nil, kernels.Config{}, err
				}
				ya, err := backend.NewOn[float32](b, in.N)
				if err != nil {
					return nil, kernels.Config{}, err
				}
				x, y = kernels.Array(xa), kernels.Array(ya)
			} else {
				xa, err := kernels.NewArray[float64](b, in.Values(dt, 0))
				if err != nil {
					return nil, kernels.Config{}, err
				}
				ya, err := backend.NewOn[float64](b, in.N)
				if err != nil {
					return nil, kernels.Config{}, err
				}
				x, y = kernels.Array(xa), kernels.Array(ya)
			}
			return []kernels.Arg{x, y}, kernels.Config{Defines: defines, Block: kernels.Dim3{X: 4}}, nil
		}
	}
	return kernels.MustNew(kernels.Spec{
		Name: name,
		CUDA: `extern "C" __global__ void ` + name + `(const T *x, T *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < 9) {
		y[i] = (T)K * x[i];
	}
}`,
		Types:   []backend.DType{backend.Float32, backend.Float64},
		Defines: map[string]string{"K": "2"},
		Host:    host,
		Parity: []kernels.ParityCase{
			{Name: "K=2", Make: mk(nil)},
			{Name: "K=3", Make: mk(map[string]string{"K": "3"})},
		},
	})
}

var (
	wrongScale = scaleKernel("wrongscale", true)
	rightScale = scaleKernel("rightscale", false)
)

// TestParityCanFail: parity compares the host implementation with the
// CUDA source (here on the fake CUDA driver, every variant compiled in:
// two types, two values of a define): a host implementation that is wrong
// for float32 only fails there, naming the index, and a right one passes
// for every variant. Without a device and without the fake driver
// (-short) there is nothing to compare, and the test skips.
func TestParityCanFail(t *testing.T) {
	dev := kerneltest.Emulate(t, wrongScale, rightScale)
	if dev == nil {
		return
	}
	for _, c := range wrongScale.ParityCases() {
		err := kerneltest.CheckCase(wrongScale, c, dev, backend.Float32)
		if err == nil || !strings.Contains(err.Error(), "argument 1 (y): host and cuda:0 differ: first difference at index 3") {
			t.Errorf("the wrong float32 host implementation (%s): CheckCase = %v, want a difference at index 3", c.Name, err)
		}
		if err := kerneltest.CheckCase(wrongScale, c, dev, backend.Float64); err != nil {
			t.Errorf("float64 (%s): %v", c.Name, err)
		}
	}
	kerneltest.ParityOn(t, rightScale, dev)
}

// TestNothingToCompare: on a device that runs no CUDA code (the fake
// device, whose kernels fall back to their host implementations) and for
// a host-only kernel, parity says there is nothing to compare.
func TestNothingToCompare(t *testing.T) {
	if why := rightScale.ParityUnavailable(fakedev.Default); !strings.Contains(why, "runs no CUDA code") || !strings.Contains(why, "nothing to compare") {
		t.Errorf("on the fake device: %q", why)
	}
	hostOnly := kernels.MustNew(kernels.Spec{Name: "hostonly", Signature: "void hostonly(float *y)",
		Host:   func(*kernels.HostCall) error { return nil },
		Parity: []kernels.ParityCase{{Name: "x"}}})
	if why := hostOnly.ParityUnavailable(fakedev.Default); !strings.Contains(why, "no CUDA source") {
		t.Errorf("host-only: %q", why)
	}
	cat := kernels.NewCatalog()
	cat.MustRegister(rightScale)
	res, err := cat.Parity(fakedev.Default)
	if err != nil || len(res) != 1 || res[0].Compared() {
		t.Errorf("Catalog.Parity on the fake device = %+v, %v; want one skipped result", res, err)
	}
}
