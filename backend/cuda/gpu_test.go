package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/backendtest"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The TestGPU tests run on a CUDA device, and are skipped where there is
// none. TestFakeDriver runs them here too, against a fake driver that
// emulates the kernels on the host.

// gpu returns the CUDA backend in the parity mode (xpmpi's kernels: the
// bits these tests check), restored to its mode at the end of the test,
// or skips the test. TestGPUVendor tests the vendor mode.
func gpu(t *testing.T) *cuda.Backend {
	t.Helper()
	b, err := cuda.Default()
	if err != nil {
		t.Skipf("no CUDA backend here: %v", err)
	}
	old := b.SetLibMode(cuda.ParityMode)
	t.Cleanup(func() { b.SetLibMode(old) })
	return b
}

// emulated reports whether b runs on the tests' fake driver.
func emulated(b *cuda.Backend) bool { return strings.Contains(b.Info().Name, "host emulation") }

func TestGPUConformance(t *testing.T) {
	b := gpu(t)
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s; kernels for %s", b.Describe(), b.KernelArch())
	if emulated(b) {
		// Each emulated thread is a fiber on the host: the large sizes
		// for every type would take a minute.
		backendtest.TestBackendQuick(t, b)
		return
	}
	backendtest.TestBackend(t, b)
}

// TestGPUCapabilities runs the suite of every optional interface the CUDA
// backend claims, in the bit-parity mode (gpu sets it), on a GPU. On the
// fake driver it is skipped: the emulated kernels would take minutes over
// the suites' sizes, and TestGPUConformance and the per-capability TestGPU
// tests cover the emulated kernels there.
func TestGPUCapabilities(t *testing.T) {
	b := gpu(t)
	if emulated(b) {
		t.Skip("the capability suites on emulated kernels take minutes: run on a GPU (scripts/gpu-check.sh)")
	}
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	backendtest.TestCapabilities(t, b, "Math", "Converter", "AxisReducer", "StatsReducer", "Sorter",
		"FFTer", "GEMM", "RandomFiller", "Stencils", "WeightedStencils", "StencilDots", "ComplexMath",
		"ComplexKernels", "Async", "Describer")
}

func TestGPURegistered(t *testing.T) {
	b := gpu(t)
	lb, err := backend.Lookup("cuda")
	if err != nil {
		t.Fatal(err)
	}
	if lb != backend.Backend(b) {
		t.Errorf("Lookup(cuda) = %v, want cuda.Default()", lb)
	}
	id, err := cuda.ChooseDevice(mustCount(t))
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "cuda" || b.Device() != (backend.Device{Kind: backend.CUDA, ID: id}) {
		t.Errorf("Name %q, Device %v; want cuda on device %d", b.Name(), b.Device(), id)
	}
	d := b.Describe()
	for _, want := range []string{"CUDA driver", b.Info().Name, "NVRTC", "local rank"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe() = %q lacks %q", d, want)
		}
	}
	if o, err := cuda.Open(id); err != nil || o != b {
		t.Errorf("Open(%d) = %v, %v; want the same backend", id, o, err)
	}
	if _, err := cuda.Open(-1); err == nil {
		t.Error("Open(-1): no error")
	}
	devs, err := cuda.Devices()
	if err != nil || len(devs) == 0 || devs[id].Name != b.Info().Name {
		t.Errorf("Devices() = %v, %v", devs, err)
	}
	free, total, err := b.MemInfo()
	if err != nil || total == 0 || free > total {
		t.Errorf("MemInfo() = %d, %d, %v", free, total, err)
	}
	info := backend.GetInfo()
	for _, st := range info.Backends {
		if st.Name == "cuda" && (!st.Available || !strings.Contains(st.Details, "CUDA driver")) {
			t.Errorf("GetInfo cuda status %+v", st)
		}
	}
}

func mustCount(t *testing.T) int {
	n, err := cuda.DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mustPanic calls f and checks that it panics with a message that starts
// with prefix.
func mustPanic(t *testing.T, prefix string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		msg := fmt.Sprint(r) // a string, or an error value (a freed buffer's)
		if r == nil || !strings.HasPrefix(msg, prefix) {
			t.Errorf("panic %v, want one starting %q", r, prefix)
		}
	}()
	f()
}

// upload copies x to a new device buffer.
func upload[T backend.Numeric](t *testing.T, b *cuda.Backend, x []T) driver.Buffer {
	t.Helper()
	buf, err := b.Alloc(backend.DTypeOf[T](), len(x))
	if err != nil {
		t.Fatal(err)
	}
	if len(x) > 0 {
		if err := b.CopyFromHost(buf, unsafe.Pointer(&x[0])); err != nil {
			t.Fatal(err)
		}
	}
	return buf
}

// download copies a device buffer to a new slice.
func download[T backend.Numeric](t *testing.T, b *cuda.Backend, buf driver.Buffer) []T {
	t.Helper()
	x := make([]T, buf.Len())
	if len(x) > 0 {
		if err := b.CopyToHost(unsafe.Pointer(&x[0]), buf); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func TestGPUPanics(t *testing.T) {
	b := gpu(t)
	const prefix = "cuda: integer division by zero"
	for _, n := range []int{1, 5, 1 << 17} {
		x := make([]int64, n)
		y := make([]int64, n)
		d := make([]int64, n)
		for i := range x {
			x[i], y[i], d[i] = int64(i), 1, 42
		}
		y[n-1] = 0
		if n > 2 {
			y[n/2] = 0
		}
		bx, by, bd := upload(t, b, x), upload(t, b, y), upload(t, b, d)
		first := n - 1
		if n > 2 {
			first = n / 2
		}
		mustPanic(t, prefix, func() { b.Binary(backend.Div, bd, bx, by) })
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "element "+strconv.Itoa(first)+" ") {
					t.Errorf("n=%d: panic %v, want one naming element %d", n, r, first)
				}
			}()
			b.Binary(backend.Div, bd, bx, by)
		}()
		for i, v := range download[int64](t, b, bd) {
			if v != 42 {
				t.Fatalf("n=%d: element %d of dst written (%d) before the panic", n, i, v)
			}
		}
		mustPanic(t, prefix, func() { b.BinaryScalar(backend.Div, bd, bx, driver.ScalarOf(int64(0))) })
		for _, buf := range []driver.Buffer{bx, by, bd} {
			b.Free(buf)
		}
	}
	// Float division by zero is IEEE arithmetic.
	f := upload(t, b, []float64{1, -1, 0})
	b.BinaryScalar(backend.Div, f, f, driver.ScalarOf(0.0))
	got := download[float64](t, b, f)
	if !math.IsInf(got[0], 1) || !math.IsInf(got[1], -1) || !math.IsNaN(got[2]) {
		t.Errorf("float division by zero: %v", got)
	}
	i32 := upload(t, b, make([]int32, 9))
	mustPanic(t, "cuda: Jacobi5 needs a float32 or float64 grid", func() { b.Jacobi5(i32, upload(t, b, make([]int32, 9)), 3, 3) })
	g := upload(t, b, make([]float64, 20))
	mustPanic(t, "cuda: Jacobi5: dst and src overlap", func() { b.Jacobi5(b.Slice(g, 0, 9), b.Slice(g, 5, 14), 3, 3) })
	mustPanic(t, "cuda: Jacobi5 of a 3 x 4 grid", func() { b.Jacobi5(b.Slice(g, 0, 9), b.Slice(g, 10, 19), 3, 4) })
	mustPanic(t, "cuda: Alloc of -1 elements", func() { b.Alloc(backend.Float64, -1) })
	mustPanic(t, "cuda: slice [3:2]", func() { b.Slice(g, 3, 2) })
	mustPanic(t, "cuda: Fill of a buffer on cpu", func() { b.Fill(driver.HostBufferOf([]float64{1}), driver.ScalarOf(1.0)) })
	if _, err := b.Alloc(backend.Float64, 1<<60); err == nil {
		t.Error("Alloc of 2^60 float64s: no error")
	}
	b.Free(g)
	mustPanic(t, "cuda: Sum of a freed buffer", func() { b.Sum(g) })
	mustPanic(t, "cuda: kernel argument: a buffer on", func() { (&cuda.Args{}).Buffer(g) })
	b.Free(g) // twice: nothing happens
}

// TestGPUCopyOverlap checks that Copy between overlapping views behaves as
// Go's copy (memmove).
func TestGPUCopyOverlap(t *testing.T) {
	b := gpu(t)
	for _, n := range []int{10, 1 << 16} {
		x := make([]float64, n+3)
		for i := range x {
			x[i] = float64(i)
		}
		buf := upload(t, b, x)
		want := append([]float64(nil), x...)
		copy(want[3:], want[:n])
		b.Copy(b.Slice(buf, 3, n+3), b.Slice(buf, 0, n))
		want2 := append([]float64(nil), want...)
		copy(want2[:n], want2[3:])
		b.Copy(b.Slice(buf, 0, n), b.Slice(buf, 3, n+3))
		got := download[float64](t, b, buf)
		for i := range got {
			if got[i] != want2[i] {
				t.Fatalf("n=%d: element %d = %v, want %v", n, i, got[i], want2[i])
			}
		}
		b.Free(buf)
	}
}

// TestGPUAsync checks pinned memory, registered Go memory, streams, events
// and asynchronous copies.
func TestGPUAsync(t *testing.T) {
	b := gpu(t)
	const n = 1000
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i) / 4
	}
	reg, err := cuda.RegisterSlice(b, src)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Len() != 4*n || reg.Ptr() != unsafe.Pointer(&src[0]) {
		t.Errorf("registration of %d bytes at %p", reg.Len(), reg.Ptr())
	}
	if _, err := cuda.RegisterSlice(b, src[10:20]); err == nil {
		t.Error("registering registered memory again: no error")
	}
	ns, err := b.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	s := ns.(*cuda.Stream)
	start, err := b.NewEvent(true)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := b.NewEvent(true)
	quiet, _ := b.NewEvent(false)
	d, err := b.Alloc(backend.Float32, n)
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := b.AllocHost(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	if pinned.Len() != 4*n || len(pinned.Bytes()) != 4*n {
		t.Errorf("pinned memory of %d bytes", pinned.Len())
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(start.Record(s))
	must(b.CopyFromHostAsync(d, reg.Ptr(), s))
	// Work on the backend's stream after the copy: wait for it there.
	must(quiet.Record(s))
	must(b.Stream().Wait(quiet))
	b.Scale(d, driver.ScalarOf(float32(2)))
	must(quiet.Record(nil))
	must(s.Wait(quiet))
	must(b.CopyToHostAsync(pinned.Ptr(), d, s))
	must(end.Record(s))
	must(end.Synchronize())
	if done, err := end.Done(); !done || err != nil {
		t.Errorf("event Done() = %v, %v after Synchronize", done, err)
	}
	must(s.Synchronize())
	if done, err := s.Done(); !done || err != nil {
		t.Errorf("stream Done() = %v, %v after Synchronize", done, err)
	}
	if el, err := cuda.Elapsed(start, end); err != nil || el < 0 {
		t.Errorf("Elapsed = %v, %v", el, err)
	}
	got := driver.HostSlice[float32](pinned.Buffer(backend.Float32, n))
	for i := range got {
		if got[i] != 2*src[i] {
			t.Fatalf("element %d = %v, want %v", i, got[i], 2*src[i])
		}
	}
	// A device-to-device copy on the stream.
	d2, _ := b.Alloc(backend.Float32, n)
	must(b.CopyAsync(d2, d, s))
	must(s.Synchronize())
	if v := b.Sum(d2).Float64(); v != 2*float64(n*(n-1))/8 {
		t.Errorf("Sum after CopyAsync = %v", v)
	}
	must(reg.Unregister())
	must(reg.Unregister()) // twice: nothing happens
	must(pinned.Free())
	must(s.Destroy())
	must(b.Stream().Destroy()) // the backend's own stream: nothing happens
	for _, e := range []*cuda.Event{start, end, quiet} {
		must(e.Destroy())
	}
	b.Free(d)
	b.Free(d2)
	must(b.Synchronize())
}

// TestGPUModule compiles and launches a kernel of its own, whose arguments
// have every size, and checks that each arrives intact.
func TestGPUModule(t *testing.T) {
	b := gpu(t)
	if emulated(b) {
		t.Skip("the fake driver runs only the backend's own kernels")
	}
	src := `extern "C" __global__ void xp_args_test(float f, int i, long long l, double d, unsigned int u, double *out) {
		out[0] = f; out[1] = i; out[2] = (double)l; out[3] = d; out[4] = u;
	}`
	m, err := b.CompileModule(src, "args.cu")
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Function("xp_args_test")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := b.Alloc(backend.Float64, 5)
	args := (&cuda.Args{}).Float32(1.5).Int32(-7).Int64(1 << 40).Float64(-2.25).Uint32(4000000000).Buffer(out)
	if err := f.Launch(cuda.Dim3{X: 1}, cuda.Dim3{X: 1}, 0, nil, args); err != nil {
		t.Fatal(err)
	}
	got := download[float64](t, b, out)
	want := []float64{1.5, -7, 1 << 40, -2.25, 4000000000}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("argument %d arrived as %v, want %v", i, got[i], want[i])
		}
	}
	if _, err := m.Function("no_such_kernel"); err == nil {
		t.Error("Function(no_such_kernel): no error")
	}
	if err := m.Unload(); err != nil {
		t.Error(err)
	}
}

// TestGPUArrays uses the backend through package backend's arrays and
// conversions.
func TestGPUArrays(t *testing.T) {
	b := gpu(t)
	h := backend.Wrap([]float64{3, 4, 0, -1})
	d, err := backend.ToDevice(h, b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Device() != b.Device() || d.Backend() != backend.Backend(b) {
		t.Errorf("ToDevice made an array on %v", d.Device())
	}
	if n := backend.Norm(d); n != math.Sqrt(26) {
		t.Errorf("Norm = %v", n)
	}
	y, _ := backend.NewOn[float64](b, 4)
	backend.Fill(y, 1)
	backend.Axpy(2, d, y)
	if got, _ := backend.ToHost(y); got.Data()[0] != 7 || got.Data()[3] != -1 {
		t.Errorf("Axpy on the device: %v", got.Data())
	}
	if backend.Argmin(d) != 3 || backend.Max(d) != 4 {
		t.Errorf("Argmin %d, Max %v", backend.Argmin(d), backend.Max(d))
	}
	if err := backend.Map(d, func(v float64) float64 { return v * v }); err != nil {
		t.Fatal(err)
	}
	if backend.Sum(d) != 26 {
		t.Errorf("Sum after Map = %v", backend.Sum(d))
	}
	c := backend.ToHostAsync(d)
	if r, err := c.Result(); err != nil || r.Data()[1] != 16 {
		t.Errorf("ToHostAsync: %v, %v", r, err)
	}
	d.Free()
	y.Free()
}

// TestGPUConcurrent runs operations from many goroutines at once (contexts
// are per OS thread; the reductions share scratch memory).
func TestGPUConcurrent(t *testing.T) {
	b := gpu(t)
	const n, workers = 5000, 8
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, err := b.Alloc(backend.Int64, n)
			if err != nil {
				errs <- err.Error()
				return
			}
			defer b.Free(x)
			for k := 0; k < 5; k++ {
				b.Fill(x, driver.ScalarOf(int64(w+k)))
				if s := b.Sum(x).Int64(); s != int64(n*(w+k)) {
					errs <- "wrong sum"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestGPUDeterminism checks that reductions give bitwise the same result
// every time, and the same for a view as for a copy of it.
func TestGPUDeterminism(t *testing.T) {
	b := gpu(t)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 1<<20 + 9
	x := make([]float64, n)
	for i := range x {
		x[i] = (2*r.Float64() - 1) * math.Ldexp(1, r.IntN(41)-20)
	}
	bx := upload(t, b, x)
	ref := b.Sum(bx).Bits()
	for k := 0; k < 3; k++ {
		if s := b.Sum(bx).Bits(); s != ref {
			t.Fatalf("Sum differs on run %d: %x, then %x", k, ref, s)
		}
	}
	v := b.Slice(bx, 5, n-4)
	cp := upload(t, b, x[5:n-4])
	if b.Sum(v).Bits() != b.Sum(cp).Bits() || b.Dot(v, v).Bits() != b.Dot(cp, cp).Bits() {
		t.Error("a view and a copy of it reduce differently")
	}
	b.Free(bx)
	b.Free(cp)
}

// TestGPUParity checks that the elementwise operations and the stencils
// give the CPU backend's results bit for bit (no fused multiply-add), Axpby
// and Laplace5 among them.
func TestGPUParity(t *testing.T) {
	b := gpu(t)
	parity[float64](t, b)
	parity[float32](t, b)
	parity[int32](t, b)
	parity[uint64](t, b)
}

func parity[T backend.Element](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	r := rand.New(rand.NewPCG(5, uint64(dt)))
	rnd := func(n int) []T {
		x := make([]T, n)
		for i := range x {
			if dt.IsFloat() {
				x[i] = T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(21)-10))
			} else {
				x[i] = T(r.Uint64())
			}
		}
		return x
	}
	one := func() T { return rnd(1)[0] }
	h := cpu.Default
	check := func(what string, op func(be backend.Backend, bufs []driver.Buffer), inputs ...[]T) {
		t.Helper()
		hb := make([]driver.Buffer, len(inputs))
		db := make([]driver.Buffer, len(inputs))
		for i, in := range inputs {
			hb[i] = driver.HostBufferOf(append([]T(nil), in...))
			db[i] = upload(t, b, in)
		}
		op(h, hb)
		op(b, db)
		for i := range inputs {
			want := driver.HostSlice[T](hb[i])
			got := download[T](t, b, db[i])
			for k := range want {
				same := got[k] == want[k] && math.Signbit(float64(got[k])) == math.Signbit(float64(want[k]))
				if !same && !(got[k] != got[k] && want[k] != want[k]) {
					t.Errorf("%v %s: buffer %d element %d = %v on the GPU, %v on the CPU", dt, what, i, k, got[k], want[k])
					break
				}
			}
			b.Free(db[i])
		}
	}
	const n = 10007
	a, c := driver.ScalarOf(one()), driver.ScalarOf(one())
	check("Axpby", func(be backend.Backend, x []driver.Buffer) { be.Axpby(a, x[0], c, x[1]) }, rnd(n), rnd(n))
	check("Axpy", func(be backend.Backend, x []driver.Buffer) { be.Axpy(a, x[0], x[1]) }, rnd(n), rnd(n))
	check("Scale", func(be backend.Backend, x []driver.Buffer) { be.Scale(x[0], a) }, rnd(n))
	for _, op := range []backend.BinaryOp{backend.Add, backend.Sub, backend.Mul} {
		check(op.String(), func(be backend.Backend, x []driver.Buffer) { be.Binary(op, x[0], x[1], x[2]) }, rnd(n), rnd(n), rnd(n))
		check(op.String()+" scalar", func(be backend.Backend, x []driver.Buffer) { be.BinaryScalar(op, x[0], x[1], c) }, rnd(n), rnd(n))
	}
	if !dt.IsFloat() {
		return
	}
	check("Div", func(be backend.Backend, x []driver.Buffer) { be.Binary(backend.Div, x[0], x[1], x[2]) }, rnd(n), rnd(n), rnd(n))
	for _, sh := range [][2]int{{3, 3}, {4, 6}, {37, 101}, {300, 70}} {
		rows, cols := sh[0], sh[1]
		check("Laplace5", func(be backend.Backend, x []driver.Buffer) { driver.StencilsOf(be).Laplace5(x[0], x[1], rows, cols) }, rnd(rows*cols), rnd(rows*cols))
		check("Jacobi5", func(be backend.Backend, x []driver.Buffer) { driver.StencilsOf(be).Jacobi5(x[0], x[1], rows, cols) }, rnd(rows*cols), rnd(rows*cols))
	}
	g := upload(t, b, make([]T, 20))
	mustPanic(t, "cuda: Laplace5: dst and src overlap", func() { b.Laplace5(b.Slice(g, 0, 9), b.Slice(g, 5, 14), 3, 3) })
	b.Free(g)
}
