package fakedev_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/backendtest"
	"github.com/xpmpi/xpmpi/backend/fakedev"
)

func TestBackend(t *testing.T) {
	if raceEnabled && testing.Short() {
		// About 90 s under the race detector: the arithmetic is the CPU
		// backend's (race-tested in its package), and the streams are
		// race-tested by the other tests here.
		t.Skip("the conformance suite is slow under the race detector; run without -short")
	}
	backendtest.TestBackend(t, fakedev.Default)
}

// TestCapabilities runs the suite of every optional interface the fake
// device claims: the device paths of package dist take each of them.
func TestCapabilities(t *testing.T) {
	backendtest.TestCapabilities(t, fakedev.Default, "Math", "Converter", "AxisReducer", "StatsReducer", "Sorter",
		"FFTer", "GEMM", "RandomFiller", "Stencils", "WeightedStencils", "StencilDots", "ComplexMath", "ComplexKernels", "Async", "Describer")
}

func TestRegistered(t *testing.T) {
	b, err := backend.Lookup("fake")
	if err != nil || b != backend.Backend(fakedev.Default) {
		t.Fatalf("Lookup(fake) = %v, %v", b, err)
	}
	if d := b.Device(); d.IsHost() || d.Kind != backend.Fake || d.String() != "fake:0" {
		t.Errorf("device %v", d)
	}
}

func TestDataPanics(t *testing.T) {
	x, err := backend.NewOn[float64](fakedev.New(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not host memory") {
			t.Errorf("Data of a fake array: panic %v", r)
		}
	}()
	x.Data()
}

func ptr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

// An async copy really is async: its destination is not written until the
// stream reaches it, and an event marks when.
func TestAsyncCopy(t *testing.T) {
	b := fakedev.New()
	b.SetCopyDelay(20 * time.Millisecond)
	x, _ := backend.NewOn[float64](b, 4)
	backend.Fill(x, 7)
	s, err := b.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := b.AllocPinned(32)
	if err != nil {
		t.Fatal(err)
	}
	host := unsafe.Slice((*float64)(pinned), 4)
	// Order the private stream after the producer (the Fill).
	ev, _ := b.DefaultStream().Record()
	if err := s.Wait(ev); err != nil {
		t.Fatal(err)
	}
	before := b.Stats()
	if err := b.CopyToHostAsync(pinned, x.Buffer(), s); err != nil {
		t.Fatal(err)
	}
	done, _ := s.Record()
	if ok, _ := done.Done(); ok || host[0] != 0 {
		t.Errorf("async copy finished at once (done %v, host %v)", ok, host)
	}
	if err := done.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := done.Done(); !ok || host[0] != 7 || host[3] != 7 {
		t.Errorf("after Synchronize: done %v, host %v", ok, host)
	}
	d := b.Stats().Sub(before)
	if d.ToHost != 1 || d.ToHostBytes != 32 || d.Async != 1 || d.PageableAsync != 0 || d.Syncs != 1 {
		t.Errorf("counts %v", d)
	}
	// Pageable host memory is counted as such.
	pageable := make([]float64, 4)
	b.CopyToHostAsync(ptr(pageable), x.Buffer(), s)
	s.Synchronize()
	if d := b.Stats().Sub(before); d.PageableAsync != 1 {
		t.Errorf("pageable async copies: %d", d.PageableAsync)
	}
	if err := s.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := s.Destroy(); err == nil {
		t.Error("second Destroy: no error")
	}
	if _, err := s.Record(); err == nil {
		t.Error("Record on a destroyed stream: no error")
	}
	ev.Destroy()
	done.Destroy()
	b.FreePinned(pinned)
	if c := b.Stats(); c.PinnedLive != 0 || c.PinnedAllocs != 1 || c.PinnedFrees != 1 || c.Streams != 0 {
		t.Errorf("after frees: %v", c)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("FreePinned twice: no panic")
			}
		}()
		b.FreePinned(pinned)
	}()
}

// Kernels run on the default stream, after the caller returns; a copy on
// another stream that does not wait for them reads stale memory, one that
// waits reads the result.
func TestProducerOrder(t *testing.T) {
	b := fakedev.New()
	b.SetKernelDelay(20 * time.Millisecond)
	x, _ := backend.NewOn[int64](b, 2)
	s, _ := b.NewStream()
	defer s.Destroy()
	p, _ := b.AllocPinned(16)
	defer b.FreePinned(p)
	host := unsafe.Slice((*int64)(p), 2)

	backend.Fill(x, 5)
	if !raceEnabled { // the race detector would report this deliberate race
		b.CopyToHostAsync(p, x.Buffer(), s) // no wait: a race
		s.Synchronize()
		if host[0] == 5 {
			t.Error("a copy that did not wait for the producer saw its result: kernels are not async")
		}
	}
	ev, _ := b.DefaultStream().Record()
	s.Wait(ev)
	b.CopyToHostAsync(p, x.Buffer(), s)
	s.Synchronize()
	if host[0] != 5 || host[1] != 5 {
		t.Errorf("after waiting for the producer: %v", host)
	}
	// A blocking copy is in order with the default stream.
	backend.Fill(x, 6)
	h := make([]int64, 2)
	if err := backend.CopyToHostSlice(h, x); err != nil || h[0] != 6 {
		t.Errorf("blocking copy: %v %v", h, err)
	}
}

// A panic of an operation is reported by the next synchronization.
func TestOpFailure(t *testing.T) {
	b := fakedev.New()
	x, _ := backend.NewOn[int32](b, 3)
	y, _ := backend.NewOn[int32](b, 3)
	backend.Apply(backend.Div, x, x, y) // integer division by zero
	err := b.Synchronize()
	var oe *fakedev.OpError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("Synchronize after a failed operation: %v", err)
	}
	if err := b.Synchronize(); err != nil {
		t.Errorf("the failure is reported once: %v", err)
	}
	backend.Apply(backend.Div, x, x, y)
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("Sum after a failed operation did not panic")
			}
		}()
		backend.Sum(x)
	}()
}

func TestFree(t *testing.T) {
	b := fakedev.New()
	x, _ := backend.NewOn[float32](b, 10)
	if c := b.Stats(); c.LiveBytes != 40 || c.Allocs != 1 {
		t.Errorf("after Alloc: %v", c)
	}
	v := x.Slice(2, 4)
	x.Free()
	if c := b.Stats(); c.LiveBytes != 0 || c.Frees != 1 {
		t.Errorf("after Free: %v", c)
	}
	defer func() {
		if err, ok := recover().(error); !ok || !errors.Is(err, backend.ErrFreed) || !strings.Contains(err.Error(), "freed") {
			t.Errorf("Fill of a view of a freed buffer: %v", err)
		}
	}()
	backend.Fill(v, 1)
}

func TestStreamOfAnotherDevice(t *testing.T) {
	a, b := fakedev.New(), fakedev.New()
	x, _ := backend.NewOn[float64](a, 1)
	h := make([]float64, 1)
	if err := a.CopyToHostAsync(ptr(h), x.Buffer(), b.DefaultStream()); err == nil {
		t.Error("copy on another device's stream: no error")
	}
	ev, _ := b.DefaultStream().Record()
	if err := a.DefaultStream().Wait(ev); err == nil {
		t.Error("wait for another device's event: no error")
	}
}
