package cpu_test

import (
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The tests in this file exercise the generic functions of package backend
// on host arrays, with the CPU backend registered and selected.

func selectCPU(t *testing.T) {
	t.Helper()
	if err := backend.SelectStrict("cpu"); err != nil {
		t.Fatal(err)
	}
}

func TestWrapAndData(t *testing.T) {
	s := []float64{1, 2, 3}
	a := backend.Wrap(s)
	if a.Len() != 3 || a.Device() != backend.Host || a.DType() != backend.Float64 || a.Backend() != backend.Backend(cpu.Default) {
		t.Errorf("Wrap: %v on backend %v", a, a.Backend().Name())
	}
	d := a.Data()
	if &d[0] != &s[0] {
		t.Error("Data does not share memory with the wrapped slice")
	}
	d[1] = 20
	if s[1] != 20 {
		t.Error("a change through Data is not seen in the slice")
	}
	if a.Ptr() == nil || backend.Wrap([]int32{}).Ptr() != nil {
		t.Error("Ptr: nil for a non-empty array, or non-nil for an empty one")
	}
	v := a.Slice(1, 3)
	v.Data()[0] = 7
	if s[1] != 7 || v.Len() != 2 {
		t.Errorf("Slice does not share memory: %v", s)
	}
	if e := backend.Wrap([]uint64{}); e.Len() != 0 || len(e.Data()) != 0 {
		t.Error("empty Wrap")
	}
}

func TestNew(t *testing.T) {
	selectCPU(t)
	a, err := backend.New[int32](5)
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 5 || a.Backend() != backend.Backend(cpu.Default) || !slices.Equal(a.Data(), make([]int32, 5)) {
		t.Errorf("New: %v %v", a, a.Data())
	}
	b, err := backend.NewOn[float32](cpu.Default, 0)
	if err != nil || b.Len() != 0 {
		t.Errorf("NewOn 0: %v %v", b, err)
	}
	a.Free()
	if a.Len() != 0 {
		t.Errorf("after Free, Len = %d", a.Len())
	}
	f := backend.FromBuffer[float64](cpu.Default, driver.HostBufferOf([]float64{1, 2}))
	if f.Len() != 2 || f.Data()[1] != 2 {
		t.Errorf("FromBuffer: %v", f.Data())
	}
}

func TestConversionsOnHost(t *testing.T) {
	selectCPU(t)
	x := backend.Wrap([]float64{1, 2, 3})
	h, err := backend.ToHost(x)
	if err != nil || h != x {
		t.Errorf("ToHost of a host array = %p, %v; want the same array %p", h, err, x)
	}
	d, err := backend.ToDevice(x, cpu.Default)
	if err != nil || d != x {
		t.Errorf("ToDevice(x, cpu) = %p, %v; want the same array", d, err)
	}
	if _, err := backend.AsDevice(x); !errors.Is(err, backend.ErrNoDevice) {
		t.Errorf("AsDevice with the CPU selected: %v, want ErrNoDevice", err)
	}
	c := backend.ToHostAsync(x)
	if !c.Ready() {
		t.Error("ToHostAsync of a host array is not ready at once")
	}
	if r, err := c.Result(); r != x || err != nil {
		t.Errorf("ToHostAsync result %p, %v", r, err)
	}
	dst := make([]float64, 3)
	if err := backend.CopyToHostSlice(dst, x); err != nil || !slices.Equal(dst, x.Data()) {
		t.Errorf("CopyToHostSlice: %v %v", dst, err)
	}
	if err := backend.CopyFromHostSlice(x, []float64{4, 5, 6}); err != nil || !slices.Equal(x.Data(), []float64{4, 5, 6}) {
		t.Errorf("CopyFromHostSlice: %v %v", x.Data(), err)
	}
	if err := backend.Synchronize(x); err != nil {
		t.Error(err)
	}
	if err := backend.Synchronize[float64](); err != nil {
		t.Error(err)
	}
	called := false
	err = backend.HostCall(func(h []*backend.Array[float64]) error {
		called = true
		if h[0] != x {
			t.Error("HostCall did not pass the host array itself")
		}
		backend.Scale(2, h[0])
		return nil
	}, x)
	if err != nil || !called || !slices.Equal(x.Data(), []float64{8, 10, 12}) {
		t.Errorf("HostCall: called %v, err %v, x %v", called, err, x.Data())
	}
	want := errors.New("boom")
	if err := backend.HostCall(func([]*backend.Array[float64]) error { return want }, x); err != want {
		t.Errorf("HostCall error %v, want %v", err, want)
	}
}

func TestSelect(t *testing.T) {
	selectCPU(t)
	before := backend.Current()
	if err := backend.Select("nosuch"); err == nil {
		t.Error(`Select("nosuch"): no error`)
	}
	if err := backend.SelectStrict("nosuch"); err == nil {
		t.Error(`SelectStrict("nosuch"): no error`)
	}
	if backend.Current() != before {
		t.Errorf("an unknown name changed the selection to %v", backend.Current().Name())
	}
	if _, err := backend.Lookup("nosuch"); err == nil {
		t.Error(`Lookup("nosuch"): no error`)
	}
	if err := backend.Select("cpu"); err != nil || backend.Current() != backend.Backend(cpu.Default) {
		t.Errorf(`Select("cpu"): %v, current %v`, err, backend.Current().Name())
	}
	if !slices.Contains(backend.Names(), "cpu") {
		t.Errorf("Names() = %v", backend.Names())
	}
	info := backend.GetInfo()
	if info.Selected != "cpu" || info.Fallback != "" || info.Threads != backend.Threads() {
		t.Errorf("GetInfo() = %+v", info)
	}
	found := false
	for _, st := range info.Backends {
		if st.Name == "cpu" {
			found = st.Available && st.Device == "cpu" && st.Details != ""
		}
	}
	if !found {
		t.Errorf("GetInfo() does not list cpu as available with details: %+v", info.Backends)
	}
}

func TestGenericOps(t *testing.T) {
	x := backend.Wrap([]float64{1, -2, 3, math.NaN(), 3})
	y := backend.Wrap([]float64{2, 2, 2, 2, 2})
	if i := backend.Argmin(x); i != 3 {
		t.Errorf("Argmin = %d, want 3 (the NaN)", i)
	}
	if i := backend.Argmax(x.Slice(0, 3)); i != 2 {
		t.Errorf("Argmax = %d, want 2", i)
	}
	if m := backend.Min(x.Slice(0, 3)); m != -2 {
		t.Errorf("Min = %v", m)
	}
	if m := backend.Max(x.Slice(0, 3)); m != 3 {
		t.Errorf("Max = %v", m)
	}
	if i := backend.Argmin(backend.Wrap([]int32{})); i != -1 {
		t.Errorf("Argmin of nothing = %d", i)
	}
	mustPanic(t, "backend: Min of an empty array", func() { backend.Min(backend.Wrap([]int32{})) })
	mustPanic(t, "backend: Max of an empty array", func() { backend.Max(backend.Wrap([]int32{})) })
	if n := backend.Norm(backend.Wrap([]float32{3, 4})); n != 5 {
		t.Errorf("Norm = %v", n)
	}
	if s := backend.Sum(backend.Wrap([]int32{math.MaxInt32, 1})); s != math.MinInt32 {
		t.Errorf("Sum of int32 wraps to %d", s)
	}
	if s := backend.Sum(backend.Wrap([]uint32{math.MaxUint32, 2})); s != 1 {
		t.Errorf("Sum of uint32 wraps to %d", s)
	}
	if d := backend.Dot(backend.Wrap([]float32{1, 2}), backend.Wrap([]float32{3, 4})); d != 11 {
		t.Errorf("Dot = %v", d)
	}
	z := backend.Wrap(make([]float64, 5))
	backend.Fill(z, 1.5)
	backend.Apply(backend.Mul, z, z, y)
	backend.ApplyScalar(backend.Sub, z, z, 1)
	backend.Axpy(2, y, z)
	backend.Copy(y, z)
	if want := []float64{6, 6, 6, 6, 6}; !slices.Equal(y.Data(), want) {
		t.Errorf("y = %v, want %v", y.Data(), want)
	}
}

func TestMismatchPanics(t *testing.T) {
	a := backend.Wrap(make([]float64, 3))
	b := backend.Wrap(make([]float64, 4))
	const p = "backend:"
	mustPanic(t, p, func() { backend.Axpy(1, a, b) })
	mustPanic(t, p, func() { backend.Copy(a, b) })
	mustPanic(t, p, func() { backend.Dot(a, b) })
	mustPanic(t, p, func() { backend.Apply(backend.Add, a, a, b) })
	mustPanic(t, p, func() { backend.ApplyScalar(backend.Add, b, a, 1) })
	mustPanic(t, p, func() { backend.CopyToHostSlice(make([]float64, 2), a) })
	mustPanic(t, p, func() { backend.CopyFromHostSlice(a, make([]float64, 2)) })
	mustPanic(t, p, func() { a.Slice(2, 4) })
	mustPanic(t, p, func() { a.Slice(-1, 1) })
	mustPanic(t, p, func() { backend.NewOn[float64](cpu.Default, -1) })
	mustPanic(t, p, func() { backend.FromBuffer[float32](cpu.Default, a.Buffer()) })
	mustPanic(t, p, func() { driver.HostSlice[int64](a.Buffer()) })
}

func TestMap(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 1<<16 + 1} {
		x := make([]int64, n)
		for i := range x {
			x[i] = int64(i)
		}
		var calls atomic.Int64
		if err := backend.Map(backend.Wrap(x), func(v int64) int64 { calls.Add(1); return 3 * v }); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != int64(n) {
			t.Errorf("n=%d: f called %d times", n, calls.Load())
		}
		for i, v := range x {
			if v != 3*int64(i) {
				t.Fatalf("n=%d: x[%d] = %d", n, i, v)
			}
		}
	}
}

func TestThreads(t *testing.T) {
	prev := backend.SetThreads(3)
	defer backend.SetThreads(prev)
	if backend.Threads() != 3 {
		t.Errorf("Threads() = %d after SetThreads(3)", backend.Threads())
	}
	if p := backend.SetThreads(0); p != 3 || backend.Threads() != backend.DefaultThreads() {
		t.Errorf("SetThreads(0) returned %d, Threads() = %d, default %d", p, backend.Threads(), backend.DefaultThreads())
	}
	// ParallelFor covers [0, n) once; ParallelChunks calls every chunk once.
	for _, threads := range []int{1, 2, 5} {
		backend.SetThreads(threads)
		for _, n := range []int{0, 1, 7, 100, 1000} {
			for _, grain := range []int{0, 1, 3, 64, 2000} {
				hits := make([]atomic.Int32, n)
				backend.ParallelFor(n, grain, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				})
				for i := range hits {
					if hits[i].Load() != 1 {
						t.Fatalf("threads %d, ParallelFor(%d, %d): element %d covered %d times", threads, n, grain, i, hits[i].Load())
					}
				}
			}
			hits := make([]atomic.Int32, n)
			backend.ParallelChunks(n, func(c int) { hits[c].Add(1) })
			for i := range hits {
				if hits[i].Load() != 1 {
					t.Fatalf("threads %d, ParallelChunks(%d): chunk %d called %d times", threads, n, i, hits[i].Load())
				}
			}
		}
	}
}
