package cpu_test

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/backendtest"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

func TestBackend(t *testing.T) {
	backendtest.TestBackend(t, cpu.Default)
}

// TestCapabilities runs the suite of every optional interface the CPU
// backend claims. It has no RandomFiller (its blocks are host memory,
// which package rng fills) and no Async (host copies are synchronous).
func TestCapabilities(t *testing.T) {
	backendtest.TestCapabilities(t, cpu.Default, "Math", "Converter", "AxisReducer", "StatsReducer", "Sorter",
		"FFTer", "GEMM", "Stencils", "WeightedStencils", "StencilDots", "ComplexMath", "ComplexKernels", "Describer")
}

func TestRegistered(t *testing.T) {
	b, err := backend.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if b != backend.Backend(cpu.Default) {
		t.Errorf(`Lookup("cpu") = %v, want cpu.Default`, b)
	}
	if cpu.Default.Name() != "cpu" || cpu.Default.Device() != backend.Host {
		t.Errorf("Name %q, Device %v", cpu.Default.Name(), cpu.Default.Device())
	}
	if d := cpu.Default.Describe(); !strings.Contains(d, "thread budget") {
		t.Errorf("Describe() = %q", d)
	}
}

// mustPanic calls f and checks that it panics with a message that starts
// with prefix.
func mustPanic(t *testing.T, prefix string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic, want one starting %q", prefix)
			return
		}
		msg, _ := r.(string)
		if err, ok := r.(error); ok {
			msg = err.Error()
		}
		if !strings.HasPrefix(msg, prefix) {
			t.Errorf("panic %q, want one starting %q", msg, prefix)
		}
	}()
	f()
}

func TestIntegerDivisionByZero(t *testing.T) {
	const prefix = "cpu: integer division by zero"
	for _, n := range []int{1, 5, 1 << 17} {
		x := make([]int64, n)
		y := make([]int64, n)
		for i := range x {
			x[i], y[i] = int64(i), 1
		}
		y[n-1] = 0
		d := make([]int64, n)
		for i := range d {
			d[i] = 42
		}
		bx, by, bd := driver.HostBufferOf(x), driver.HostBufferOf(y), driver.HostBufferOf(d)
		mustPanic(t, prefix, func() { cpu.Default.Binary(backend.Div, bd, bx, by) })
		for i, v := range d {
			if v != 42 {
				t.Fatalf("n=%d: element %d of dst written (%d) before the panic", n, i, v)
			}
		}
		mustPanic(t, prefix, func() { cpu.Default.BinaryScalar(backend.Div, bd, bx, driver.ScalarOf(int64(0))) })
		u := driver.HostBufferOf(make([]uint32, n))
		mustPanic(t, prefix, func() { cpu.Default.BinaryScalar(backend.Div, u, u, driver.ScalarOf(uint32(0))) })
	}
	// Float division by zero is IEEE arithmetic, no panic.
	x := driver.HostBufferOf([]float64{1, -1, 0})
	cpu.Default.BinaryScalar(backend.Div, x, x, driver.ScalarOf(0.0))
}

func TestPanics(t *testing.T) {
	b := cpu.Default
	i32 := driver.HostBufferOf(make([]int32, 9))
	mustPanic(t, "cpu: Jacobi5 needs a float32 or float64 grid", func() { b.Jacobi5(i32, driver.HostBufferOf(make([]int32, 9)), 3, 3) })
	f := make([]float64, 20)
	mustPanic(t, "cpu: Jacobi5: dst and src overlap", func() {
		b.Jacobi5(driver.HostBufferOf(f[:9]), driver.HostBufferOf(f[5:14]), 3, 3)
	})
	mustPanic(t, "cpu: Jacobi5 of a 3 x 4 grid", func() {
		b.Jacobi5(driver.HostBufferOf(f[:9]), driver.HostBufferOf(f[10:19]), 3, 4)
	})
	mustPanic(t, "cpu: Alloc of -1 elements", func() { b.Alloc(backend.Float64, -1) })
	mustPanic(t, "backend: slice [3:2]", func() { b.Slice(driver.HostBufferOf(f), 3, 2) })
	if _, err := b.Alloc(backend.Float64, 1<<60); err == nil {
		t.Error("Alloc of 2^60 float64s: no error")
	}
}

// TestLargeCopies checks the parallel paths of Copy, CopyFromHost and
// CopyToHost.
func TestLargeCopies(t *testing.T) {
	prev := backend.SetThreads(4)
	defer backend.SetThreads(prev)
	const n = 3<<20 + 5 // 24 MiB of float64
	src := make([]float64, n)
	for i := range src {
		src[i] = float64(i)
	}
	b := cpu.Default
	buf, err := b.Alloc(backend.Float64, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CopyFromHost(buf, unsafe.Pointer(&src[0])); err != nil {
		t.Fatal(err)
	}
	dst := driver.HostBufferOf(make([]float64, n))
	b.Copy(dst, buf)
	back := make([]float64, n)
	if err := b.CopyToHost(unsafe.Pointer(&back[0]), dst); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, src) {
		t.Error("large copies do not round-trip")
	}
}

// TestCopyOverlap checks that Copy between overlapping views of one buffer
// behaves as Go's copy (memmove), also above the parallel threshold.
func TestCopyOverlap(t *testing.T) {
	for _, n := range []int{10, 1 << 20} {
		x := make([]float64, n+3)
		for i := range x {
			x[i] = float64(i)
		}
		want := append([]float64(nil), x...)
		copy(want[3:], want[:n])
		buf := driver.HostBufferOf(x)
		cpu.Default.Copy(buf.Slice(3, n+3), buf.Slice(0, n))
		for i := range x {
			if x[i] != want[i] {
				t.Fatalf("n=%d: element %d = %v, want %v", n, i, x[i], want[i])
			}
		}
	}
}

// TestOtherHostBuffer checks that the backend works on a host Buffer that
// is not a *driver.HostBuffer (pinned memory from package staging, say).
func TestOtherHostBuffer(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5}
	var b driver.Buffer = otherBuffer{driver.HostBufferOf(x)}
	v := cpu.Default.Slice(b, 1, 4)
	if got := cpu.Default.Sum(v).Float64(); got != 9 {
		t.Errorf("Sum of a view of another host buffer = %v, want 9", got)
	}
	if e := cpu.Default.Slice(b, 2, 2); e.Len() != 0 || e.Ptr() != nil {
		t.Errorf("empty view: Len %d, Ptr %p", e.Len(), e.Ptr())
	}
	mustPanic(t, "cpu: slice [4:6]", func() { cpu.Default.Slice(b, 4, 6) })
}

type otherBuffer struct{ *driver.HostBuffer }
