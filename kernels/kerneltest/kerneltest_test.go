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
