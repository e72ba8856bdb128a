package cuda_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestGPUBandwidth measures, in one run on the device: the W1 triad
// y = a*x + y (24 bytes per element) against a device-to-device copy of the
// same arrays (16 bytes per element: read and write), and pinned copies
// host-to-device and device-to-host. It logs one line per figure, starting
// "GPUBW", that scripts/gpu-check.sh collects. It skips without a GPU and on
// the fake driver (whose timings mean nothing).
func TestGPUBandwidth(t *testing.T) {
	b := gpu(t)
	if emulated(b) || testing.Short() {
		t.Skip("timings need a real device")
	}
	const n = 1 << 26 // 512 MiB per float64 array
	x, err := b.Alloc(backend.Float64, n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(x)
	y, err := b.Alloc(backend.Float64, n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(y)
	b.Fill(x, driver.ScalarOf(1.0))
	b.Fill(y, driver.ScalarOf(2.0))
	median := func(f func()) float64 {
		f() // warm up: kernel compilation, first touch
		if err := b.Synchronize(); err != nil {
			t.Fatal(err)
		}
		var ts []float64
		for range 7 {
			start := time.Now()
			f()
			if err := b.Synchronize(); err != nil {
				t.Fatal(err)
			}
			ts = append(ts, time.Since(start).Seconds())
		}
		sort.Float64s(ts)
		return ts[len(ts)/2]
	}
	triad := median(func() { b.Axpy(driver.ScalarOf(1e-3), x, y) })
	dtod := median(func() { b.Copy(y, x) })
	gbs := func(bytes float64, s float64) float64 { return bytes / s / 1e9 }
	tr, cp := gbs(24*n, triad), gbs(16*n, dtod)
	t.Logf("GPUBW triad_GBs %.1f", tr)
	t.Logf("GPUBW dtod_GBs %.1f", cp)
	t.Logf("GPUBW triad_over_dtod %.3f", tr/cp)

	const bytes = 256 << 20
	h, err := b.AllocHost(bytes)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Free()
	d, err := b.Alloc(backend.Float64, bytes/8)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(d)
	s := b.Stream()
	h2d := median(func() {
		if err := b.CopyFromHostAsync(d, h.Ptr(), s); err != nil {
			t.Fatal(err)
		}
	})
	d2h := median(func() {
		if err := b.CopyToHostAsync(h.Ptr(), d, s); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("GPUBW pinned_h2d_GBs %.1f", gbs(bytes, h2d))
	t.Logf("GPUBW pinned_d2h_GBs %.1f", gbs(bytes, d2h))
	fmt.Println() // keep the log lines apart from the PASS line
}
