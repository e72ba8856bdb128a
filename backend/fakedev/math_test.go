package fakedev_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/backend/fakedev"
)

// TestMath checks that the math functions run on the device as kernels,
// with the CPU backend's results, and that wrong arguments panic at the
// call, before anything is queued.
func TestMath(t *testing.T) {
	b := fakedev.New()
	x, err := backend.ToDevice(backend.Wrap([]float64{-2, -0.5, 0, 4}), b)
	if err != nil {
		t.Fatal(err)
	}
	before := b.Stats()
	b.Unary(driver.Abs, x.Buffer(), x.Buffer())
	b.PowScalar(x.Buffer(), x.Buffer(), driver.ScalarOf(0.5))
	b.Clip(x.Buffer(), x.Buffer(), driver.ScalarOf(0.8), driver.ScalarOf(1.5))
	d := b.Stats().Sub(before)
	h, err := backend.ToHost(x)
	if err != nil {
		t.Fatal(err)
	}
	// |x|**0.5 clipped to [0.8, 1.5]: sqrt(2), sqrt(0.5) -> 0.8, 0 -> 0.8, 2 -> 1.5.
	want := []float64{1.4142135623730951, 0.8, 0.8, 1.5}
	for i, v := range h.Data() {
		if v != want[i] {
			t.Errorf("element %d = %v, want %v", i, v, want[i])
		}
	}
	if d.Kernels != 3 || d.ToHost != 0 || d.ToDevice != 0 {
		t.Errorf("the three functions made %+v, want three kernels and no copies", d)
	}
	i32, err := b.Alloc(backend.Int32, 4)
	if err != nil {
		t.Fatal(err)
	}
	short, err := b.Alloc(backend.Float64, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"log of int32", "fakedev: log of int32", func() { b.Unary(driver.Log, i32, i32) }},
		{"pow of int32", "fakedev: Pow of int32", func() { b.Pow(i32, i32, i32) }},
		{"lengths", "fakedev: Clip of 3 float64 and 4 float64", func() {
			b.Clip(short, x.Buffer(), driver.ScalarOf(0.0), driver.ScalarOf(1.0))
		}},
		{"pow lengths", "fakedev: Pow of 4 float64 and 3 float64", func() { b.Pow(x.Buffer(), x.Buffer(), short) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, c.want) {
					t.Errorf("%s: panic %v, want %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
	if err := b.Synchronize(); err != nil {
		t.Error(err)
	}
}
