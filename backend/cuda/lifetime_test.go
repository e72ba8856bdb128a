package cuda_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// collect runs the garbage collector twice and waits, each time, for the
// cleanup of an object dropped just before it (cleanups run on their own
// goroutine, after the collection).
func collect() {
	for range 2 {
		done := make(chan struct{})
		s := make([]byte, 4096) // not a tiny object: its cleanup runs
		runtime.AddCleanup(&s[0], func(ch chan struct{}) { close(ch) }, done)
		s = nil
		runtime.GC()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	time.Sleep(time.Millisecond)
}

// TestGPULifetime checks that a buffer whose last use is an operation is
// not freed before the operation's kernel is queued. A device address is
// not a Go pointer: once the kernel's arguments are packed, nothing but
// the Args (Args.Buffer) keeps the buffer reachable, and its cleanup would
// free the memory the kernel is about to use. A hook in Function.Launch
// collects garbage between the packing and the launch; the device's free
// memory must not grow there. It can fail on the fake driver, whose
// cuMemGetInfo counts its allocations exactly (on a GPU the driver's own
// accounting may hide a small free).
func TestGPULifetime(t *testing.T) {
	b := gpu(t)
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	const n = 1 << 16
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	y := upload(t, b, make([]float64, n))
	var launches int
	var what string
	cuda.SetLaunchHook(func() {
		before, _, err1 := b.MemInfo()
		collect()
		after, _, err2 := b.MemInfo()
		launches++
		if err1 == nil && err2 == nil && after > before {
			t.Errorf("%s: %d bytes of device memory freed between the packing of a kernel's arguments and its launch", what, after-before)
		}
	})
	defer cuda.SetLaunchHook(nil)
	// Each operation's input is dropped after the call; y and dst are kept.
	for _, op := range []struct {
		name string
		run  func(x driver.Buffer)
	}{
		{"Axpy", func(x driver.Buffer) { b.Axpy(driver.ScalarOf(2.0), x, y) }},
		{"Scale", func(x driver.Buffer) { b.Scale(x, driver.ScalarOf(3.0)) }},
		{"Binary", func(x driver.Buffer) { b.Binary(driver.Add, y, x, y) }},
	} {
		what = op.name
		x := upload(t, b, ones)
		collect() // no garbage of an earlier operation is left to free
		op.run(x)
	}
	if err := b.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if launches < 3 {
		t.Errorf("the hook ran at %d launches, want at least 3", launches)
	}
	// y = 2*1, then y = y + 1.
	for i, v := range download[float64](t, b, y) {
		if v != 3 {
			t.Fatalf("y[%d] = %v, want 3", i, v)
		}
	}
}
