package staging_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// answer returns a CUDA-awareness answer for WithCUDAAware.
func answer(known, aware bool) func() staging.CUDAAwareness {
	return func() staging.CUDAAwareness {
		if !known {
			return staging.CUDAAwareness{Source: "unknown"}
		}
		return staging.CUDAAwareness{Aware: aware, Known: true, Source: "test"}
	}
}

// fill returns a new array of n elements on b holding f(i).
func fill[T backend.Element](t *testing.T, b backend.Backend, n int, f func(i int) T) *backend.Array[T] {
	t.Helper()
	h := make([]T, n)
	for i := range h {
		h[i] = f(i)
	}
	x, err := backend.NewOn[T](b, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.CopyFromHostSlice(x, h); err != nil {
		t.Fatal(err)
	}
	return x
}

// read returns x's elements on the host (a copy for a device array).
func read[T backend.Element](t *testing.T, x *backend.Array[T]) []T {
	t.Helper()
	h := make([]T, x.Len())
	if err := backend.CopyToHostSlice(h, x); err != nil {
		t.Fatal(err)
	}
	return h
}

// counted runs f with a profiling counter and returns the counter and what
// the fake device did meanwhile.
func counted(dev *fakedev.Backend, f func()) (*profiling.Counter, fakedev.Counts) {
	before := dev.Stats()
	c := profiling.Counting(f)
	return c, dev.Stats().Sub(before)
}

// events describes a counter's counts of the kinds staging records.
func events(c *profiling.Counter) string {
	return fmt.Sprintf("to_host %d (%d B), to_device %d (%d B), device_copy %d (%d B), sync %d",
		c.Count(profiling.ToHost), c.Bytes(profiling.ToHost), c.Count(profiling.ToDevice), c.Bytes(profiling.ToDevice),
		c.Count(profiling.DeviceCopy), c.Bytes(profiling.DeviceCopy), c.Count(profiling.Sync))
}

// checkMatches fails unless the profiling events match the copies the fake
// device made, one for one.
func checkMatches(t *testing.T, c *profiling.Counter, d fakedev.Counts) {
	t.Helper()
	if c.Count(profiling.ToHost) != d.ToHost || c.Bytes(profiling.ToHost) != d.ToHostBytes ||
		c.Count(profiling.ToDevice) != d.ToDevice || c.Bytes(profiling.ToDevice) != d.ToDeviceBytes {
		t.Errorf("recorded %s; the device made %v", events(c), d)
	}
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic, want one containing %q", want)
		} else if s := fmt.Sprint(r); !strings.Contains(s, want) {
			t.Errorf("panic %q, want one containing %q", s, want)
		}
	}()
	f()
}

func TestRing(t *testing.T) {
	dev := fakedev.New()
	dev.SetCopyDelay(2 * time.Millisecond)
	dev.SetKernelDelay(2 * time.Millisecond)
	const n = 5
	before := dev.Stats()
	r, err := staging.NewRing[float64](dev, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Buffers() != staging.DefaultBuffers || r.Len() != n {
		t.Errorf("ring of %d buffers of %d", r.Buffers(), r.Len())
	}
	if d := dev.Stats().Sub(before); d.PinnedAllocs != 2 || d.PinnedLive != 2 {
		t.Errorf("NewRing: %d pinned allocations, %d live; want 2", d.PinnedAllocs, d.PinnedLive)
	}
	x, _ := backend.NewOn[float64](dev, n)
	var ps []*staging.Pending[float64]
	c, d := counted(dev, func() {
		for v := 1; v <= 3; v++ {
			backend.Fill(x, float64(v)) // queued: the snapshot must wait for it
			p, err := r.Copy(x)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		backend.Fill(x, 99) // after the last snapshot: must not show
	})
	// One snapshot and one copy to pinned memory per Copy; the third Copy
	// waited for the first's slot.
	if c.Count(profiling.ToHost) != 3 || c.Bytes(profiling.ToHost) != 3*n*8 ||
		c.Count(profiling.DeviceCopy) != 3 || c.Count(profiling.Sync) < 1 {
		t.Errorf("events: %s", events(c))
	}
	checkMatches(t, c, d)
	if d.PageableAsync != 0 || d.PinnedAllocs != 0 {
		t.Errorf("copies went to pageable memory or allocated: %v", d)
	}
	if _, err := ps[0].Result(); !errors.Is(err, staging.ErrReused) {
		t.Errorf("Result of a reused slot: %v, want ErrReused", err)
	}
	if !ps[0].Ready() {
		t.Error("Ready of a reused slot: false (Result returns at once)")
	}
	for i, p := range ps[1:] {
		got, err := p.Result()
		want := slices.Repeat([]float64{float64(i + 2)}, n)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("copy %d: %v, %v; want %v", i+2, got, err, want)
		}
		if !p.Ready() {
			t.Errorf("copy %d: not Ready after Result", i+2)
		}
	}
	// The result is the staging buffer itself: the same memory every time.
	a, _ := ps[2].Result()
	b, _ := ps[2].Result()
	if &a[0] != &b[0] {
		t.Error("Result returned different memory")
	}
	// Ready does not wait.
	dev.SetCopyDelay(50 * time.Millisecond)
	p, _ := r.Copy(x)
	if p.Ready() {
		t.Error("Ready right after a slow Copy")
	}
	if got, err := p.Result(); err != nil || got[0] != 99 {
		t.Errorf("slow copy: %v %v", got, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Result(); !errors.Is(err, staging.ErrClosed) {
		t.Errorf("Result after Close: %v", err)
	}
	if _, err := r.Copy(x); !errors.Is(err, staging.ErrClosed) {
		t.Errorf("Copy after Close: %v", err)
	}
	if d := dev.Stats().Sub(before); d.PinnedLive != 0 || d.PinnedFrees != 2 || d.Streams != 0 {
		t.Errorf("after Close: %v", d)
	}
}

func TestRingChecks(t *testing.T) {
	dev := fakedev.New()
	r, err := staging.NewRing[float32](dev, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	short, _ := backend.NewOn[float32](dev, 3)
	mustPanic(t, "3 elements into a ring of 4", func() { r.Copy(short) })
	host := backend.Wrap(make([]float32, 4))
	mustPanic(t, "array on cpu into a ring on fake:0", func() { r.Copy(host) })
	mustPanic(t, "-1 buffers", func() { staging.NewRing[float32](dev, 4, -1) })
	// A device without async copies cannot have a ring.
	if _, err := staging.NewRing[float32](syncOnly{dev}, 4, 0); err == nil || !strings.Contains(err.Error(), "no async copies") {
		t.Errorf("NewRing on a backend without async copies: %v", err)
	}
	// An empty ring works and allocates nothing.
	before := dev.Stats()
	e, err := staging.NewRing[float32](dev, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	z, _ := backend.NewOn[float32](dev, 0)
	p, err := e.Copy(z)
	if err != nil || !p.Ready() {
		t.Fatal(err)
	}
	if got, err := p.Result(); err != nil || len(got) != 0 {
		t.Errorf("empty copy: %v %v", got, err)
	}
	e.Close()
	if d := dev.Stats().Sub(before); d.PinnedAllocs != 0 || d.ToHost != 0 {
		t.Errorf("empty ring: %v", d)
	}
}

// syncOnly is a device backend without async copies.
type syncOnly struct{ backend.Backend }

func TestRingHost(t *testing.T) {
	r, err := staging.NewRing[int64](cpu.Default, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	x := backend.Wrap([]int64{1, 2, 3})
	var p *staging.Pending[int64]
	c := profiling.Counting(func() { p, _ = r.Copy(x) })
	x.Data()[0] = 7
	got, err := p.Result()
	if err != nil || !slices.Equal(got, []int64{1, 2, 3}) || !p.Ready() || c.Total() != 0 {
		t.Errorf("host ring: %v %v ready %v, %d events", got, err, p.Ready(), c.Total())
	}
	r.Copy(x)
	r.Copy(x)
	if _, err := p.Result(); !errors.Is(err, staging.ErrReused) {
		t.Errorf("host ring reuse: %v", err)
	}
}

func TestToHostOnStream(t *testing.T) {
	// Host input completes at once, with its own memory.
	h := backend.Wrap([]float64{1, 2})
	p, err := staging.ToHostOnStream(h)
	if err != nil || !p.Ready() {
		t.Fatal(err)
	}
	if got, _ := p.Result(); &got[0] != &h.Data()[0] {
		t.Error("host input was copied")
	}

	dev := fakedev.New()
	x := fill(t, dev, 1, func(int) int32 { return 42 })
	dev.SetCopyDelay(30 * time.Millisecond)
	var q *staging.Pending[int32]
	c, d := counted(dev, func() {
		q, err = staging.ToHostOnStream(x)
		if err != nil {
			t.Fatal(err)
		}
		if q.Ready() {
			t.Error("Ready right after a slow copy started")
		}
		backend.Fill(x, 0) // after the copy on the same stream
		got, err := q.Result()
		if err != nil || !slices.Equal(got, []int32{42}) {
			t.Errorf("Result %v, %v", got, err)
		}
	})
	if c.Count(profiling.ToHost) != 1 || c.Bytes(profiling.ToHost) != 4 || !q.Ready() {
		t.Errorf("events %s, ready %v", events(c), q.Ready())
	}
	checkMatches(t, c, d)
}

func TestMirrorHost(t *testing.T) {
	host := []float64{1, 2, 3}
	m := staging.NewMirror(cpu.Default, host)
	c := profiling.Counting(func() {
		d, err := m.ToDevice()
		if err != nil || &d.Data()[0] != &host[0] {
			t.Errorf("on the CPU the device side is not the host slice: %v", err)
		}
		backend.Scale(2, d)
		h, _ := m.ToHost()
		if &h[0] != &host[0] || !slices.Equal(host, []float64{2, 4, 6}) {
			t.Errorf("ToHost: %v", h)
		}
		m.Zero()
	})
	if c.Total() != 0 || !slices.Equal(host, []float64{0, 0, 0}) {
		t.Errorf("%d events, host %v", c.Total(), host)
	}
	other := []float64{5}
	m.Rebind(other)
	d, _ := m.Device()
	if &d.Data()[0] != &other[0] {
		t.Error("Rebind on the CPU: device side is not the new host slice")
	}
}

func TestMirrorDevice(t *testing.T) {
	dev := fakedev.New()
	host := []float32{1, 2, 3, 4}
	m := staging.NewMirror(dev, host)
	if _, err := m.ToHost(); err == nil {
		t.Error("ToHost before the device side exists: no error")
	}
	var d *backend.Array[float32]
	c, n := counted(dev, func() {
		var err error
		if d, err = m.ToDevice(); err != nil {
			t.Fatal(err)
		}
		backend.Scale(10, d) // on the device
		h, err := m.ToHost()
		if err != nil || &h[0] != &host[0] {
			t.Fatalf("ToHost did not write in place: %v", err)
		}
	})
	if !slices.Equal(host, []float32{10, 20, 30, 40}) {
		t.Errorf("host after the round trip: %v", host)
	}
	if c.Count(profiling.ToDevice) != 1 || c.Bytes(profiling.ToDevice) != 16 || c.Count(profiling.ToHost) != 1 || c.Bytes(profiling.ToHost) != 16 || n.Allocs != 1 {
		t.Errorf("round trip: %s, device %v", events(c), n)
	}
	checkMatches(t, c, n)
	// Zero makes zeros on the device without a copy.
	c, n = counted(dev, func() {
		z, err := m.Zero()
		if err != nil || z != d {
			t.Errorf("Zero: a new device buffer (%v)", err)
		}
	})
	if c.Total() != 0 || n.ToDevice != 0 || n.ToHost != 0 || n.Allocs != 0 {
		t.Errorf("Zero copied or allocated: %s, device %v", events(c), n)
	}
	if got := read(t, d); !slices.Equal(got, []float32{0, 0, 0, 0}) {
		t.Errorf("after Zero: %v", got)
	}
	// Rebind to a slice of the same length keeps the device buffer.
	other := []float32{7, 7, 7, 7}
	m.Rebind(other)
	d2, err := m.ToDevice()
	if err != nil || d2 != d || d2.Ptr() != d.Ptr() {
		t.Errorf("Rebind of the same length made a new device buffer")
	}
	if got := read(t, d2); !slices.Equal(got, other) || !slices.Equal(m.Host(), other) {
		t.Errorf("after Rebind and ToDevice: %v", got)
	}
	// Of another length it does not.
	m.Rebind(make([]float32, 2))
	d3, _ := m.Device()
	if d3 == d || d3.Len() != 2 {
		t.Errorf("Rebind of another length kept the device buffer")
	}
	m.Free()
}

func TestSynchronizeForMPI(t *testing.T) {
	dev := fakedev.New()
	mustPanic(t, "an event and a stream", func() {
		ev, _ := dev.DefaultStream().Record()
		staging.SynchronizeForMPI(ev, dev.DefaultStream())
	})
	x, _ := backend.NewOn[float64](dev, 3)
	y, _ := backend.NewOn[int32](dev, 3)
	h := backend.Wrap([]float64{1})
	dev.SetKernelDelay(20 * time.Millisecond)

	cases := []struct {
		name   string
		sync   func() error
		syncs  int // profiling Sync events
		waited int // synchronizations of the fake device
	}{
		{"event", func() error {
			ev, _ := dev.DefaultStream().Record()
			return staging.SynchronizeForMPI(ev, nil, x)
		}, 1, 1},
		{"stream", func() error { return staging.SynchronizeForMPI(nil, dev.DefaultStream(), x) }, 1, 1},
		{"arrays of one device", func() error { return staging.SynchronizeForMPI(nil, nil, x, y, h) }, 1, 1},
		{"host arrays only", func() error { return staging.SynchronizeForMPI(nil, nil, h) }, 0, 0},
		{"no arrays", func() error { return staging.SynchronizeForMPI(nil, nil) }, 0, 0},
	}
	for _, tc := range cases {
		backend.Fill(x, 3) // a slow producer
		var err error
		c, d := counted(dev, func() { err = tc.sync() })
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if c.Count(profiling.Sync) != tc.syncs || d.Syncs != tc.waited {
			t.Errorf("%s: %d sync events, %d device syncs; want %d, %d", tc.name, c.Count(profiling.Sync), d.Syncs, tc.syncs, tc.waited)
		}
		if tc.waited > 0 {
			// The producer has finished: a copy on another stream that does
			// not wait for it sees its result.
			s, _ := dev.NewStream()
			p, _ := dev.AllocPinned(24)
			dev.CopyToHostAsync(p, x.Buffer(), s)
			s.Synchronize()
			if v := *(*float64)(p); v != 3 {
				t.Errorf("%s: the producer had not finished (%v)", tc.name, v)
			}
			dev.FreePinned(p)
			s.Destroy()
		}
		dev.Synchronize()
	}
}

func TestLeaseModes(t *testing.T) {
	const n = 6
	cases := []struct {
		name         string
		host         bool // a host array (else one on the fake device)
		known, aware bool
		send         bool
		staged       bool
		toHost       int // events per lease, of n*8 bytes each
		toDevice     int
		syncs        int
		pinned       int // pinned allocations over all the leases
	}{
		{name: "host send", host: true, send: true},
		{name: "host recv", host: true},
		{name: "host with unknown answer", host: true, known: false, send: true},
		{name: "aware send", known: true, aware: true, send: true, syncs: 1},
		{name: "aware recv", known: true, aware: true, syncs: 1},
		{name: "staged send", known: true, send: true, staged: true, toHost: 1, pinned: 1},
		{name: "staged recv", known: true, staged: true, toDevice: 1, pinned: 1},
	}
	const rounds = 3
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dev := fakedev.New()
			dev.SetKernelDelay(time.Millisecond)
			dev.SetCopyDelay(time.Millisecond)
			var b backend.Backend = dev
			if tc.host {
				b = cpu.Default
			}
			s := staging.NewStaging[float64](dev, n, staging.WithCUDAAware(answer(tc.known, tc.aware)))
			if s.Len() != n || s.Device() != dev.Device() {
				t.Errorf("Staging of %d on %v", s.Len(), s.Device())
			}
			x := fill(t, b, n, func(i int) float64 { return float64(i) })
			c := profiling.NewCounter()
			var d fakedev.Counts
			for round := 1; round <= rounds; round++ {
				backend.Scale(2, x) // the producer: queued on a device
				before := dev.Stats()
				c.Start()
				l, err := s.Lease(x, tc.send)
				if err != nil {
					t.Fatal(err)
				}
				if l.Staged() != tc.staged || l.Len() != n {
					t.Errorf("Staged %v, Len %d", l.Staged(), l.Len())
				}
				if own := l.Ptr() == x.Ptr(); own == tc.staged {
					t.Errorf("the pointer is the array's memory: %v, want %v", own, !tc.staged)
				}
				mem := unsafe.Slice((*float64)(l.Ptr()), n)
				if tc.send {
					// MPI reads the producer's result.
					for i, v := range mem {
						if want := float64(i) * float64(int(1)<<round); v != want {
							t.Fatalf("round %d: the leased memory holds %v", round, mem)
						}
					}
				} else {
					// MPI writes.
					for i := range mem {
						mem[i] = float64(i) * float64(int(1)<<round)
					}
				}
				if err := l.Release(); err != nil {
					t.Fatal(err)
				}
				c.Stop()
				d = addCounts(d, dev.Stats().Sub(before))
				if got := read(t, x); got[n-1] != float64(n-1)*float64(int(1)<<round) {
					t.Fatalf("round %d: the array holds %v after Release", round, got)
				}
			}
			if c.Count(profiling.ToHost) != rounds*tc.toHost || c.Bytes(profiling.ToHost) != int64(rounds*tc.toHost*n*8) ||
				c.Count(profiling.ToDevice) != rounds*tc.toDevice || c.Bytes(profiling.ToDevice) != int64(rounds*tc.toDevice*n*8) ||
				c.Count(profiling.Sync) != rounds*tc.syncs || c.Count(profiling.DeviceCopy) != 0 {
				t.Errorf("events: %s", events(c))
			}
			checkMatches(t, c, d)
			if d.PinnedAllocs != tc.pinned || d.PageableAsync != 0 {
				t.Errorf("%d pinned allocations in %d leases, want %d; %d async copies to pageable memory", d.PinnedAllocs, rounds, tc.pinned, d.PageableAsync)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if c := dev.Stats(); c.PinnedLive != 0 {
				t.Errorf("%d pinned allocations live after Close", c.PinnedLive)
			}
			if _, err := s.Lease(x, tc.send); err == nil {
				t.Error("Lease after Close: no error")
			}
		})
	}
}

func addCounts(a, b fakedev.Counts) fakedev.Counts {
	var z fakedev.Counts
	return a.Sub(z.Sub(b))
}

func TestLeaseOneAtATime(t *testing.T) {
	dev := fakedev.New()
	s := staging.NewStaging[int32](dev, 2, staging.WithCUDAAware(answer(true, false)))
	x, _ := backend.NewOn[int32](dev, 2)
	l, err := s.Lease(x, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lease(x, false); !errors.Is(err, staging.ErrLeased) {
		t.Errorf("second Lease: %v, want ErrLeased", err)
	}
	if err := s.Close(); err == nil {
		t.Error("Close while leased: no error")
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err == nil {
		t.Error("second Release: no error")
	}
	mustPanic(t, "Attach to a released lease", func() { l.Attach(nil) })
	l2, err := s.Lease(x, false)
	if err != nil {
		t.Fatalf("Lease after Release: %v", err)
	}
	l2.Release()
	// Arguments the caller could have checked panic.
	mustPanic(t, "3 elements from a Staging of 2", func() { s.Lease(backend.Wrap(make([]int32, 3)), true) })
	s1 := staging.NewStaging[int32](device1{dev}, 2)
	mustPanic(t, "array on fake:0 from a Staging of fake:1", func() { s1.Lease(x, true) })
}

// device1 is the fake device claiming to be device 1, for the device check.
type device1 struct{ *fakedev.Backend }

func (device1) Device() backend.Device { return backend.Device{Kind: backend.Fake, ID: 1} }

func TestLeaseRecovers(t *testing.T) {
	dev := fakedev.New()
	known := false
	s := staging.NewStaging[float64](dev, 3, staging.Strict(), staging.WithCUDAAware(func() staging.CUDAAwareness {
		return answer(known, false)()
	}))
	x := fill(t, dev, 3, func(i int) float64 { return float64(i) })
	// No answer in strict mode: an error that says what to do, and the
	// Staging stays free.
	_, err := s.Lease(x, true)
	if !errors.Is(err, staging.ErrCUDAAwareUnknown) || !strings.Contains(err.Error(), "staging.SetCUDAAware") {
		t.Fatalf("Lease with no answer: %v", err)
	}
	known = true
	// A failing copy: an earlier operation of the device failed, and the
	// synchronization of the staging copy reports it.
	z, _ := backend.NewOn[int32](dev, 1)
	backend.Apply(backend.Div, z, z, z)
	if _, err := s.Lease(x, true); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("Lease after a device failure: %v", err)
	}
	l, err := s.Lease(x, true)
	if err != nil {
		t.Fatalf("Lease after a failed lease: %v", err)
	}
	if got := unsafe.Slice((*float64)(l.Ptr()), 3); !slices.Equal(got, []float64{0, 1, 2}) {
		t.Errorf("leased %v", got)
	}
	l.Release()
}

// With no explicit answer, Lease asks staging.CUDAAware: on the serial
// stand-in nobody knows, and a device array is staged (an error in strict
// mode); a real MPI library may answer.
func TestLeaseDefaultAnswer(t *testing.T) {
	t.Setenv("XPMPI_CUDA_AWARE", "")
	staging.ClearCUDAAware()
	dev := fakedev.New()
	s := staging.NewStaging[float64](dev, 2)
	strict := staging.NewStaging[float64](dev, 2, staging.Strict())
	x, _ := backend.NewOn[float64](dev, 2)
	aw := staging.CUDAAware()
	l, err := s.Lease(x, true)
	if !aw.Known {
		if err != nil || !l.Staged() {
			t.Errorf("Lease with no answer (source %s): %v, want a staged lease", aw.Source, err)
		}
		if _, serr := strict.Lease(x, true); !errors.Is(serr, staging.ErrCUDAAwareUnknown) || !strings.Contains(serr.Error(), "XPMPI_CUDA_AWARE") {
			t.Errorf("strict Lease with no answer (source %s): %v", aw.Source, serr)
		}
	} else if err != nil || l.Staged() == aw.Aware {
		t.Errorf("Lease with the answer %+v: %v", aw, err)
	}
	if err == nil {
		l.Release()
	}
	staging.SetCUDAAware(true)
	defer staging.ClearCUDAAware()
	l, err = s.Lease(x, true)
	if err != nil || l.Staged() {
		t.Errorf("Lease after SetCUDAAware(true): %v, staged %v", err, err == nil && l.Staged())
	}
	if err == nil {
		l.Release()
	}
}

// TestLeaseMPI sends a device array around a ring of ranks through leases,
// with and without a CUDA-aware MPI, attaching the requests to the leases.
func TestLeaseMPI(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	next, prev := (me+1)%p, (me+p-1)%p
	for _, n := range []int{0, 1, 5, 1000} {
		for _, aware := range []bool{false, true} {
			t.Run(fmt.Sprintf("n%d/aware=%v", n, aware), func(t *testing.T) {
				dev := fakedev.New()
				dev.SetCopyDelay(100 * time.Microsecond)
				dev.SetKernelDelay(100 * time.Microsecond)
				ss := staging.NewStaging[float64](dev, n, staging.WithCUDAAware(answer(true, aware)))
				rs := staging.NewStaging[float64](dev, n, staging.WithCUDAAware(answer(true, aware)))
				x := fill(t, dev, n, func(i int) float64 { return float64(1000*me + i) })
				y, _ := backend.NewOn[float64](dev, n)
				for round := range 3 {
					cnt := profiling.Count()
					before := dev.Stats()
					rl, err := rs.Lease(y, false)
					if err != nil {
						t.Fatal(err)
					}
					req, err := c.Irecv(rl.Ptr(), n, mpi.Float64, prev, 7)
					if err != nil {
						t.Fatal(err)
					}
					rl.Attach(req)
					sl, err := ss.Lease(x, true)
					if err != nil {
						t.Fatal(err)
					}
					sreq, err := c.Isend(sl.Ptr(), n, mpi.Float64, next, 7)
					if err != nil {
						t.Fatal(err)
					}
					sl.Attach(sreq)
					if err := sl.Release(); err != nil {
						t.Fatal(err)
					}
					if err := rl.Release(); err != nil {
						t.Fatal(err)
					}
					cnt.Stop()
					d := dev.Stats().Sub(before)
					bytes := int64(8 * n)
					wantCopies, wantSyncs := 1, 0
					if aware {
						wantCopies, wantSyncs = 0, 2
					}
					if n == 0 {
						wantCopies, wantSyncs, bytes = 0, 0, 0
					}
					if cnt.Count(profiling.ToHost) != wantCopies || cnt.Bytes(profiling.ToHost) != int64(wantCopies)*bytes ||
						cnt.Count(profiling.ToDevice) != wantCopies || cnt.Bytes(profiling.ToDevice) != int64(wantCopies)*bytes ||
						cnt.Count(profiling.Sync) != wantSyncs {
						t.Errorf("round %d: events %s", round, events(cnt))
					}
					checkMatches(t, cnt, d)
					got := read(t, y)
					for i, v := range got {
						if want := float64(1000*prev + i + round); v != want {
							t.Fatalf("round %d: received %v at %d, want %v", round, v, i, want)
						}
					}
					backend.ApplyScalar(backend.Add, x, x, 1) // the next round's producer
				}
				if d := dev.Stats(); d.PinnedAllocs > 2 || (aware && d.PinnedAllocs != 0) {
					t.Errorf("%d pinned allocations for two stagings", d.PinnedAllocs)
				}
				ss.Close()
				rs.Close()
			})
		}
	}
}

// Abandon ends a receive lease without copying the host buffer back.
func TestLeaseAbandon(t *testing.T) {
	dev := fakedev.New()
	s := staging.NewStaging[float64](dev, 2, staging.WithCUDAAware(answer(true, false)))
	x := fill(t, dev, 2, func(i int) float64 { return 5 })
	l, err := s.Lease(x, false)
	if err != nil {
		t.Fatal(err)
	}
	mem := unsafe.Slice((*float64)(l.Ptr()), 2)
	mem[0], mem[1] = -1, -1 // a receive that failed half-way
	c, d := counted(dev, func() {
		if err := l.Abandon(); err != nil {
			t.Fatal(err)
		}
	})
	if c.Total() != 0 || d.ToDevice != 0 {
		t.Errorf("Abandon copied: %s", events(c))
	}
	if got := read(t, x); !slices.Equal(got, []float64{5, 5}) {
		t.Errorf("array after Abandon: %v", got)
	}
	if err := l.Release(); err == nil {
		t.Error("Release after Abandon: no error")
	}
	l, err = s.Lease(x, false)
	if err != nil {
		t.Fatalf("Lease after Abandon: %v", err)
	}
	l.Release()
}
