package fakedev_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/backend/fakedev"
)

// TestFFT checks that FFT runs on the device as one kernel, with no copy,
// and gives the CPU backend's results bit for bit (complex128 and
// complex64, along the last and a middle axis), and that wrong arguments
// panic at the call.
func TestFFT(t *testing.T) {
	b := fakedev.New()
	for _, c := range []struct{ pre, n, post int }{{3, 7, 1}, {2, 12, 3}, {0, 5, 2}} {
		x := make([]complex128, c.pre*c.n*c.post)
		for i := range x {
			x[i] = complex(float64(i%11)-5, float64(i%7)/3)
		}
		fftBits(t, b, x, c.pre, c.n, c.post)
		x64 := make([]complex64, len(x))
		for i, v := range x {
			x64[i] = complex64(v)
		}
		fftBits(t, b, x64, c.pre, c.n, c.post)
	}
	r64, err := b.Alloc(backend.Float64, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		r, _ := recover().(string)
		if !strings.HasPrefix(r, "backend: FFT of a float64 buffer") {
			t.Errorf("FFT of float64: panic %q", r)
		}
	}()
	b.FFT(r64, 1, 4, 1, false)
}

func fftBits[T complex64 | complex128](t *testing.T, b *fakedev.Backend, x []T, pre, n, post int) {
	for _, inverse := range []bool{false, true} {
		d, err := backend.ToDevice(backend.Wrap(append([]T(nil), x...)), b)
		if err != nil {
			t.Fatal(err)
		}
		before := b.Stats()
		if err := b.FFT(d.Buffer(), pre, n, post, inverse); err != nil {
			t.Fatal(err)
		}
		st := b.Stats().Sub(before)
		h, err := backend.ToHost(d)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]T(nil), x...)
		if err := cpu.Default.FFT(driver.HostBufferOf(want), pre, n, post, inverse); err != nil {
			t.Fatal(err)
		}
		for i, v := range h.Data() {
			if v != want[i] {
				t.Errorf("%v %d x %d x %d inverse=%v: element %d = %v, the CPU's %v", backend.DTypeOf[T](), pre, n, post, inverse, i, v, want[i])
				break
			}
		}
		if st.Kernels != 1 || st.ToHost != 0 || st.ToDevice != 0 {
			t.Errorf("%v FFT made %+v, want one kernel and no copies", backend.DTypeOf[T](), st)
		}
	}
}
