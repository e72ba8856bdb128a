package fakedev

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// Backend is a fake device. Use Default, or New for a device of its own (a
// test that must not share counters with others).
type Backend struct {
	dev driver.Device
	def *Stream

	mu       sync.Mutex
	streams  map[*Stream]struct{} // streams made by NewStream, not destroyed
	nstreams uint64               // streams made by NewStream so far: the next one's seq
	pinned   map[unsafe.Pointer][]uint64
	counts   Counts

	copyDelay   atomic.Int64
	kernelDelay atomic.Int64
}

// Default is the fake device registered with package backend as "fake".
var Default = New()

func init() {
	driver.Register("fake", func() (driver.Backend, error) { return Default, nil })
}

// Check at compile time that Backend is an async device backend.
var (
	_ driver.Async     = (*Backend)(nil)
	_ driver.Describer = (*Backend)(nil)
)

// New returns a new fake device, driver.Device{Kind: driver.Fake, ID: 0},
// with counters of its own. Its default stream's goroutine lives as long as
// the program.
func New() *Backend {
	b := &Backend{
		dev:     driver.Device{Kind: driver.Fake},
		streams: map[*Stream]struct{}{},
		pinned:  map[unsafe.Pointer][]uint64{},
	}
	b.def = b.newStream(true)
	return b
}

// SetCopyDelay makes every copy of Default (blocking or async, in any
// direction) take at least d when it runs, so that tests catch code that
// reads a copy's destination before waiting for it. Zero turns it off.
func SetCopyDelay(d time.Duration) { Default.SetCopyDelay(d) }

// SetKernelDelay makes every operation of Default (Fill, Axpy, ...) take at
// least d when it runs, so that tests catch copies that do not wait for
// the work that produced their source. Zero turns it off.
func SetKernelDelay(d time.Duration) { Default.SetKernelDelay(d) }

// Stall queues on Default's default stream work that takes d, as a long
// kernel would: whatever is queued after it (the producer of an array, say)
// finishes d later, so that a test catches code that does not wait for it.
func Stall(d time.Duration) { Default.Stall(d) }

// Stats returns Default's counts.
func Stats() Counts { return Default.Stats() }

// ResetStats zeroes Default's counters of events; see Backend.ResetStats.
func ResetStats() { Default.ResetStats() }

// SetCopyDelay makes every copy take at least d; see the function
// SetCopyDelay.
func (b *Backend) SetCopyDelay(d time.Duration) { b.copyDelay.Store(int64(d)) }

// SetKernelDelay makes every operation take at least d; see the function
// SetKernelDelay.
func (b *Backend) SetKernelDelay(d time.Duration) { b.kernelDelay.Store(int64(d)) }

// Stall queues work that takes d on the default stream; see the function
// Stall. It is not counted as an operation.
func (b *Backend) Stall(d time.Duration) {
	if _, err := b.def.enqueue(func() { time.Sleep(d) }); err != nil {
		panic(err)
	}
}

// Name returns "fake".
func (*Backend) Name() string { return "fake" }

// Device returns driver.Device{Kind: driver.Fake}.
func (b *Backend) Device() driver.Device { return b.dev }

// Describe says what the device is.
func (*Backend) Describe() string {
	return "fake device for tests: host memory treated as device memory, asynchronous streams, arithmetic of the cpu backend"
}

// memory is one allocation of the fake device's memory.
//
// As a CUDA allocation, it is released when no buffer refers to it any
// more: a cleanup waits for the work queued on the device and poisons the
// words (as Free does; the words themselves stay allocated while a Go
// pointer to them lives, so nothing faults, but a use of the address
// after its buffers were dropped reads the pattern). A device address
// keeps nothing alive on a GPU; here it would keep the words, so the
// poisoning is what lets a test see code that uses an address whose
// buffer is gone (see backend/cuda's devHandle).
type memory struct {
	words []uint64 // 8-byte aligned for every element type
	bytes int
	freed *atomic.Bool // shared with the cleanup
}

// At returns the address of byte off of the allocation: host memory,
// which callers treat as a device address.
func (m *memory) At(off int) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(m.words)), off)
}

// Freed reports whether the memory has been freed.
func (m *memory) Freed() bool { return m.freed.Load() }

// dropped is what the cleanup of an allocation that nobody refers to any
// more needs: not the memory itself, which would then stay reachable.
type dropped struct {
	b     *Backend
	words []uint64
	freed *atomic.Bool
}

// release poisons the words of an allocation dropped without Free, after
// the work queued on the device (which may still use them), as cuMemFree
// after a collected buffer. The counts are Free's alone: a collection's
// timing must not move them.
func (d dropped) release() {
	for _, s := range d.b.allStreams() {
		s.reached(s.queued())
	}
	if d.freed.Swap(true) {
		return
	}
	poison(unsafe.Pointer(unsafe.SliceData(d.words)), len(d.words)*8)
}

// buffer is a driver.Buffer in the fake device's memory: an allocation or
// a view of one. Its Ptr is host memory, but callers treat it as a device
// address: MPI told that it is CUDA-aware can be handed it.
type buffer = driver.DeviceView[*memory]

// host returns a host view of x's memory, for the CPU backend's arithmetic.
func host(x *buffer) *driver.HostBuffer { return driver.NewHostBuffer(x.Ptr(), x.N, x.DT) }

// view returns x as a buffer of this device, which may have been freed.
func (b *Backend) view(op string, x driver.Buffer) *buffer {
	return driver.ViewOf[*memory]("fakedev", op, x, b.dev)
}

// buf returns x as a live buffer of this device.
func (b *Backend) buf(op string, x driver.Buffer) *buffer {
	return driver.LiveViewOf[*memory]("fakedev", op, x, b.dev)
}

// maxAlloc is the largest allocation in bytes that Alloc attempts.
const maxAlloc = 1 << 40

// Alloc returns a zeroed buffer of n elements.
func (b *Backend) Alloc(dt backend.DType, n int) (driver.Buffer, error) {
	if n < 0 {
		panic(fmt.Sprintf("fakedev: Alloc of %d elements", n))
	}
	size := dt.Size() // panics for an invalid DType
	x := &buffer{N: n, DT: dt, Dev: b.dev, Root: true}
	b.mu.Lock()
	b.counts.Allocs++
	b.mu.Unlock()
	if n == 0 {
		return x, nil
	}
	if n > math.MaxInt/size || n > maxAlloc/size {
		return nil, fmt.Errorf("fakedev: cannot allocate %d elements of %v", n, dt)
	}
	bytes := n * size
	x.Mem = &memory{words: make([]uint64, (bytes+7)/8), bytes: bytes, freed: new(atomic.Bool)}
	runtime.AddCleanup(x.Mem, dropped.release, dropped{b, x.Mem.words, x.Mem.freed})
	b.mu.Lock()
	b.counts.LiveBytes += int64(bytes)
	b.mu.Unlock()
	return x, nil
}

// Free releases a buffer made by Alloc, once the work queued on the device
// has finished, and fills its memory with a pattern, so that a later use
// through a stale pointer reads garbage. Freeing a view, an empty buffer or
// a freed buffer does nothing.
func (b *Backend) Free(x driver.Buffer) {
	d, ok := x.(*buffer)
	if !ok || !d.Root || d.Mem == nil || d.Mem.freed.Load() {
		return
	}
	// As cuMemFree waits for the device; a failure of the work stays for
	// the next synchronization to report.
	for _, s := range b.allStreams() {
		s.reached(s.queued())
	}
	if d.Mem.freed.Swap(true) {
		return
	}
	poison(unsafe.Pointer(unsafe.SliceData(d.Mem.words)), len(d.Mem.words)*8)
	b.mu.Lock()
	b.counts.Frees++
	b.counts.LiveBytes -= int64(d.Mem.bytes)
	b.mu.Unlock()
}

// poison fills n bytes at p with 0xA5.
func poison(p unsafe.Pointer, n int) {
	s := unsafe.Slice((*byte)(p), n)
	for i := range s {
		s[i] = 0xA5
	}
}

// Slice returns a view of elements [lo, hi) of x.
func (b *Backend) Slice(x driver.Buffer, lo, hi int) driver.Buffer {
	return b.view("Slice", x).Slice("fakedev", lo, hi)
}

// Synchronize waits until the work queued on every stream of the device has
// finished. It returns the first failure of an operation not yet reported.
func (b *Backend) Synchronize() error {
	b.mu.Lock()
	b.counts.Syncs++
	b.mu.Unlock()
	return b.waitAll()
}

// allStreams returns the default stream and the streams not destroyed.
func (b *Backend) allStreams() []*Stream {
	b.mu.Lock()
	defer b.mu.Unlock()
	streams := make([]*Stream, 0, len(b.streams)+1)
	streams = append(streams, b.def)
	for s := range b.streams {
		streams = append(streams, s)
	}
	// In the order the streams were made, not the map's: the failure
	// that waitAll reports, of several, is the same every time.
	slices.SortFunc(streams[1:], func(x, y *Stream) int { return cmp.Compare(x.seq, y.seq) })
	return streams
}

// waitAll waits for every stream, without counting a synchronization, and
// returns the first failure not yet reported.
func (b *Backend) waitAll() error {
	var first error
	for _, s := range b.allStreams() {
		if err := s.waitFor(s.queued()); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// countCopy counts one copy.
func (b *Backend) countCopy(dir direction, bytes int, async bool, host unsafe.Pointer) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch dir {
	case toHost:
		b.counts.ToHost++
		b.counts.ToHostBytes += int64(bytes)
	case toDevice:
		b.counts.ToDevice++
		b.counts.ToDeviceBytes += int64(bytes)
	case onDevice:
		b.counts.DeviceCopies++
		b.counts.DeviceCopyBytes += int64(bytes)
	}
	if async {
		b.counts.Async++
		if dir != onDevice && bytes > 0 && !b.isPinnedLocked(host, bytes) {
			b.counts.PageableAsync++
		}
	}
}

type direction int

const (
	toHost direction = iota
	toDevice
	onDevice
)

// copyOp returns the operation that copies n bytes from src to dst, after
// the copy delay.
func (b *Backend) copyOp(dst, src unsafe.Pointer, n int) func() {
	return func() {
		if d := time.Duration(b.copyDelay.Load()); d > 0 {
			time.Sleep(d)
		}
		if n > 0 {
			copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
		}
	}
}

// CopyFromHost copies dst.Len() elements from host memory at src into dst,
// in order on the default stream, and waits for the copy.
func (b *Backend) CopyFromHost(dst driver.Buffer, src unsafe.Pointer) error {
	d := b.buf("CopyFromHost", dst)
	b.countCopy(toDevice, d.Bytes(), false, src)
	return b.def.run(b.copyOp(d.Ptr(), src, d.Bytes()))
}

// CopyToHost copies src into host memory at dst, in order on the default
// stream, and waits for the copy.
func (b *Backend) CopyToHost(dst unsafe.Pointer, src driver.Buffer) error {
	s := b.buf("CopyToHost", src)
	b.countCopy(toHost, s.Bytes(), false, dst)
	return b.def.run(b.copyOp(dst, s.Ptr(), s.Bytes()))
}

// stream returns s as a live stream of this device.
func (b *Backend) stream(op string, s driver.Stream) (*Stream, error) {
	st, ok := s.(*Stream)
	if !ok || st.b != b {
		return nil, fmt.Errorf("fakedev: %s on a stream of another device (%T)", op, s)
	}
	return st, nil
}

// CopyToHostAsync queues a copy of src into host memory at dst on s and
// returns at once.
func (b *Backend) CopyToHostAsync(dst unsafe.Pointer, src driver.Buffer, s driver.Stream) error {
	x := b.buf("CopyToHostAsync", src)
	st, err := b.stream("CopyToHostAsync", s)
	if err != nil {
		return err
	}
	b.countCopy(toHost, x.Bytes(), true, dst)
	_, err = st.enqueue(b.copyOp(dst, x.Ptr(), x.Bytes()))
	return err
}

// CopyFromHostAsync queues a copy of host memory at src into dst on s and
// returns at once.
func (b *Backend) CopyFromHostAsync(dst driver.Buffer, src unsafe.Pointer, s driver.Stream) error {
	x := b.buf("CopyFromHostAsync", dst)
	st, err := b.stream("CopyFromHostAsync", s)
	if err != nil {
		return err
	}
	b.countCopy(toDevice, x.Bytes(), true, src)
	_, err = st.enqueue(b.copyOp(x.Ptr(), src, x.Bytes()))
	return err
}

// CopyAsync queues a copy of src into dst, two buffers of the device of
// the same length and type, on s and returns at once.
func (b *Backend) CopyAsync(dst, src driver.Buffer, s driver.Stream) error {
	d, x := b.buf("CopyAsync", dst), b.buf("CopyAsync", src)
	if d.N != x.N || d.DT != x.DT {
		panic(fmt.Sprintf("fakedev: CopyAsync of %d %v into %d %v", x.N, x.DT, d.N, d.DT))
	}
	st, err := b.stream("CopyAsync", s)
	if err != nil {
		return err
	}
	b.countCopy(onDevice, x.Bytes(), true, nil)
	_, err = st.enqueue(b.copyOp(d.Ptr(), x.Ptr(), x.Bytes()))
	return err
}

// AllocPinned returns n > 0 bytes of "pinned" host memory: Go memory,
// 8-byte aligned, tracked until FreePinned so that tests can check that it
// is allocated once and freed (Counts.PinnedAllocs, PinnedLive), and so
// that async copies can tell pinned host memory from pageable.
func (b *Backend) AllocPinned(n int) (unsafe.Pointer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("fakedev: AllocPinned of %d bytes", n)
	}
	if n > maxAlloc {
		return nil, fmt.Errorf("fakedev: cannot allocate %d bytes of pinned memory", n)
	}
	words := make([]uint64, (n+7)/8)
	p := unsafe.Pointer(unsafe.SliceData(words))
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pinned[p] = words
	b.counts.PinnedAllocs++
	b.counts.PinnedLive++
	b.counts.PinnedLiveBytes += int64(len(words) * 8)
	return p, nil
}

// FreePinned releases memory from AllocPinned and fills it with a pattern,
// so that a later read through a stale pointer sees garbage. It panics if p
// is not live pinned memory of this device (freed twice, say).
func (b *Backend) FreePinned(p unsafe.Pointer) {
	b.mu.Lock()
	words, ok := b.pinned[p]
	if ok {
		delete(b.pinned, p)
		b.counts.PinnedFrees++
		b.counts.PinnedLive--
		b.counts.PinnedLiveBytes -= int64(len(words) * 8)
	}
	b.mu.Unlock()
	if !ok {
		panic(fmt.Sprintf("fakedev: FreePinned(%p): not live pinned memory of this device (freed twice?)", p))
	}
	poison(p, len(words)*8)
}

// isPinnedLocked reports whether [p, p+n) lies in one pinned allocation.
// The caller holds b.mu.
func (b *Backend) isPinnedLocked(p unsafe.Pointer, n int) bool {
	a := uintptr(p)
	for q, words := range b.pinned {
		lo := uintptr(q)
		if a >= lo && a+uintptr(n) <= lo+uintptr(len(words)*8) {
			return true
		}
	}
	return false
}

// NewStream returns a new stream of the device, run by a goroutine of its
// own until Destroy.
func (b *Backend) NewStream() (driver.Stream, error) {
	s := b.newStream(false)
	b.mu.Lock()
	b.nstreams++
	s.seq = b.nstreams
	b.streams[s] = struct{}{}
	b.counts.Streams++
	b.mu.Unlock()
	return s, nil
}

// DefaultStream returns the stream where the backend's operations run.
func (b *Backend) DefaultStream() driver.Stream { return b.def }

// kernel queues op on the default stream, after the kernel delay.
func (b *Backend) kernel(op func()) {
	b.mu.Lock()
	b.counts.Kernels++
	b.mu.Unlock()
	f := func() {
		if d := time.Duration(b.kernelDelay.Load()); d > 0 {
			time.Sleep(d)
		}
		op()
	}
	if _, err := b.def.enqueue(f); err != nil {
		panic(err) // the default stream is never destroyed
	}
}

// InjectFault queues on the default stream an operation that fails with
// err, as a kernel that faults on a GPU: the failure is kept and reported
// by the next synchronization (as an error) or the next operation that
// returns a value (as a panic whose value is an *OpError wrapping
// driver.ErrDevice and err). It is for tests of what a device failure
// does to the code above the backend.
func (b *Backend) InjectFault(err error) {
	b.kernel(func() { panic(err) })
}

// call runs op on the default stream and waits for it; a failure of op or
// of earlier work panics here, on the caller's goroutine.
func (b *Backend) call(op func()) {
	b.mu.Lock()
	b.counts.Kernels++
	b.mu.Unlock()
	err := b.def.run(func() {
		if d := time.Duration(b.kernelDelay.Load()); d > 0 {
			time.Sleep(d)
		}
		op()
	})
	if err != nil {
		panic(err)
	}
}

// Fill sets every element of x to v.
func (b *Backend) Fill(x driver.Buffer, v driver.Scalar) {
	h := host(b.buf("Fill", x))
	b.kernel(func() { cpu.Default.Fill(h, v) })
}

// Copy copies src into dst, two buffers of the device, in order on the
// default stream. It counts as a device copy.
func (b *Backend) Copy(dst, src driver.Buffer) {
	d, s := b.buf("Copy", dst), b.buf("Copy", src)
	if d.N != s.N || d.DT != s.DT {
		panic(fmt.Sprintf("fakedev: Copy of %d %v into %d %v", s.N, s.DT, d.N, d.DT))
	}
	b.countCopy(onDevice, s.Bytes(), false, nil)
	hd, hs := host(d), host(s)
	if _, err := b.def.enqueue(func() {
		if d := time.Duration(b.copyDelay.Load()); d > 0 {
			time.Sleep(d)
		}
		cpu.Default.Copy(hd, hs)
	}); err != nil {
		panic(err)
	}
}

// Scale multiplies x by a in place.
func (b *Backend) Scale(x driver.Buffer, a driver.Scalar) {
	h := host(b.buf("Scale", x))
	b.kernel(func() { cpu.Default.Scale(h, a) })
}

// Axpy sets y = a*x + y.
func (b *Backend) Axpy(a driver.Scalar, x, y driver.Buffer) {
	hx, hy := host(b.buf("Axpy", x)), host(b.buf("Axpy", y))
	b.kernel(func() { cpu.Default.Axpy(a, hx, hy) })
}

// Axpby sets y = a*x + b*y.
func (b *Backend) Axpby(a driver.Scalar, x driver.Buffer, c driver.Scalar, y driver.Buffer) {
	hx, hy := host(b.buf("Axpby", x)), host(b.buf("Axpby", y))
	b.kernel(func() { cpu.Default.Axpby(a, hx, c, hy) })
}

// Binary sets dst = x op y elementwise.
func (b *Backend) Binary(op driver.BinaryOp, dst, x, y driver.Buffer) {
	hd, hx, hy := host(b.buf(op.String(), dst)), host(b.buf(op.String(), x)), host(b.buf(op.String(), y))
	b.kernel(func() { cpu.Default.Binary(op, hd, hx, hy) })
}

// BinaryScalar sets dst = x op s elementwise.
func (b *Backend) BinaryScalar(op driver.BinaryOp, dst, x driver.Buffer, s driver.Scalar) {
	hd, hx := host(b.buf(op.String(), dst)), host(b.buf(op.String(), x))
	b.kernel(func() { cpu.Default.BinaryScalar(op, hd, hx, s) })
}

// Sum returns the sum of x, once the work queued before it has finished.
func (b *Backend) Sum(x driver.Buffer) (r driver.Scalar) {
	h := host(b.buf("Sum", x))
	b.call(func() { r = cpu.Default.Sum(h) })
	return r
}

// Dot returns the sum of x[i]*y[i].
func (b *Backend) Dot(x, y driver.Buffer) (r driver.Scalar) {
	hx, hy := host(b.buf("Dot", x)), host(b.buf("Dot", y))
	b.call(func() { r = cpu.Default.Dot(hx, hy) })
	return r
}

// Argmin returns the index and value of the first smallest element.
func (b *Backend) Argmin(x driver.Buffer) (i int, v driver.Scalar) {
	h := host(b.buf("Argmin", x))
	b.call(func() { i, v = cpu.Default.Argmin(h) })
	return i, v
}

// Argmax returns the index and value of the first largest element.
func (b *Backend) Argmax(x driver.Buffer) (i int, v driver.Scalar) {
	h := host(b.buf("Argmax", x))
	b.call(func() { i, v = cpu.Default.Argmax(h) })
	return i, v
}

// Jacobi5 applies one 5-point Jacobi sweep.
func (b *Backend) Jacobi5(dst, src driver.Buffer, rows, cols int) {
	hd, hs := host(b.buf("Jacobi5", dst)), host(b.buf("Jacobi5", src))
	b.kernel(func() { cpu.Default.Jacobi5(hd, hs, rows, cols) })
}

// Laplace5 applies the 5-point Laplacian.
func (b *Backend) Laplace5(dst, src driver.Buffer, rows, cols int) {
	hd, hs := host(b.buf("Laplace5", dst)), host(b.buf("Laplace5", src))
	b.kernel(func() { cpu.Default.Laplace5(hd, hs, rows, cols) })
}

// Laplace5Dot applies the 5-point Laplacian and returns the dot product of
// src and dst over the rows it computes, in the order driver.StencilDots
// fixes: the CPU backend's kernel on the device's memory, so the bits are
// the CPU's.
func (b *Backend) Laplace5Dot(dst, src driver.Buffer, rows, cols int) (r float64) {
	hd, hs := host(b.buf("Laplace5Dot", dst)), host(b.buf("Laplace5Dot", src))
	b.call(func() { r = cpu.Default.Laplace5Dot(hd, hs, rows, cols) })
	return r
}

// Stencil9 applies the 9-point stencil with weights w.
func (b *Backend) Stencil9(dst, src driver.Buffer, rows, cols int, w [9]float64) {
	hd, hs := host(b.buf("Stencil9", dst)), host(b.buf("Stencil9", src))
	b.kernel(func() { cpu.Default.Stencil9(hd, hs, rows, cols, w) })
}

// Stencil7 applies the 7-point 3-D stencil with weights w.
func (b *Backend) Stencil7(dst, src driver.Buffer, n0, n1, n2 int, w [7]float64) {
	hd, hs := host(b.buf("Stencil7", dst)), host(b.buf("Stencil7", src))
	b.kernel(func() { cpu.Default.Stencil7(hd, hs, n0, n1, n2, w) })
}

// ComplexArith marks the fake device as one whose arithmetic takes complex
// buffers on the device (driver.ComplexArith): it runs the CPU backend's
// complex kernels on its memory.
func (b *Backend) ComplexArith() {}

// ComplexKernels marks the fake device as one whose optional kernels take
// complex buffers too (driver.ComplexKernels), as the CPU backend's.
func (b *Backend) ComplexKernels() {}

// The fake device computes the functions of complex arrays on the device
// (driver.ComplexMath), with the CPU backend's on its memory.
var _ driver.ComplexMath = (*Backend)(nil)

// ComplexUnary sets dst = op(x) on the device.
func (b *Backend) ComplexUnary(op driver.ComplexOp, dst, x driver.Buffer) {
	hd, hx := host(b.buf(op.String(), dst)), host(b.buf(op.String(), x))
	b.kernel(func() { cpu.Default.ComplexUnary(op, hd, hx) })
}

// ComplexPow sets dst = x**y on the device.
func (b *Backend) ComplexPow(dst, x, y driver.Buffer) {
	hd, hx, hy := host(b.buf("Pow", dst)), host(b.buf("Pow", x)), host(b.buf("Pow", y))
	b.kernel(func() { cpu.Default.ComplexPow(hd, hx, hy) })
}

// ComplexPowScalar sets dst = x**s on the device.
func (b *Backend) ComplexPowScalar(dst, x driver.Buffer, s driver.Scalar) {
	hd, hx := host(b.buf("PowScalar", dst)), host(b.buf("PowScalar", x))
	b.kernel(func() { cpu.Default.ComplexPowScalar(hd, hx, s) })
}

// ComplexProd returns the product of x, once the work queued before it
// has finished.
func (b *Backend) ComplexProd(x driver.Buffer) (r driver.Scalar) {
	h := host(b.buf("Prod", x))
	b.call(func() { r = cpu.Default.ComplexProd(h) })
	return r
}

// ComplexVdot returns the sum of conj(x[i])*y[i], once the work queued
// before it has finished.
func (b *Backend) ComplexVdot(x, y driver.Buffer) (r driver.Scalar) {
	hx, hy := host(b.buf("Vdot", x)), host(b.buf("Vdot", y))
	b.call(func() { r = cpu.Default.ComplexVdot(hx, hy) })
	return r
}
