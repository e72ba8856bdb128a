package backend

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/profiling"
)

// ToHost returns x if it is already in host memory, and otherwise a new
// host array with a copy of x's elements.
func ToHost[T Numeric](x *Array[T]) (*Array[T], error) {
	if err := x.liveErr("ToHost"); err != nil {
		return nil, err
	}
	if x.Device().IsHost() {
		return x, nil
	}
	h, err := toHost(x)
	if err == nil {
		profiling.RecordTransfer(profiling.ToHost, "backend.ToHost", int64(x.Len()*x.DType().Size()), true, false)
	}
	return h, err
}

// toHost copies a device array to a new host array, without recording.
func toHost[T Numeric](x *Array[T]) (*Array[T], error) {
	if err := x.b.Synchronize(); err != nil {
		return nil, err
	}
	h, err := NewOn[T](mustLookup("cpu"), x.Len())
	if err != nil {
		return nil, err
	}
	if err := x.b.CopyToHost(h.Ptr(), x.buf); err != nil {
		return nil, err
	}
	return h, nil
}

// CopyToHostSlice copies x's elements into dst, which must have x.Len()
// elements. For a host array it is a plain copy.
func CopyToHostSlice[T Numeric](dst []T, x *Array[T]) error {
	if err := x.liveErr("CopyToHostSlice"); err != nil {
		return err
	}
	if len(dst) != x.Len() {
		panic(fmt.Sprintf("backend: CopyToHostSlice: destination has %d elements, array %d", len(dst), x.Len()))
	}
	if x.Device().IsHost() {
		copy(dst, x.Data())
		return nil
	}
	if err := x.b.Synchronize(); err != nil {
		return err
	}
	profiling.RecordTransfer(profiling.ToHost, "backend.CopyToHostSlice", int64(x.Len()*x.DType().Size()), true, false)
	return x.b.CopyToHost(unsafe.Pointer(unsafe.SliceData(dst)), x.buf)
}

// CopyFromHostSlice copies src into x, which must have len(src) elements.
func CopyFromHostSlice[T Numeric](x *Array[T], src []T) error {
	if err := x.liveErr("CopyFromHostSlice"); err != nil {
		return err
	}
	if len(src) != x.Len() {
		panic(fmt.Sprintf("backend: CopyFromHostSlice: source has %d elements, array %d", len(src), x.Len()))
	}
	if x.Device().IsHost() {
		copy(x.Data(), src)
		return nil
	}
	profiling.RecordTransfer(profiling.ToDevice, "backend.CopyFromHostSlice", int64(x.Len()*x.DType().Size()), true, false)
	return x.b.CopyFromHost(x.buf, unsafe.Pointer(unsafe.SliceData(src)))
}

// ToDevice returns x if it already lives on b's device, and otherwise a new
// array on b with a copy of x's elements.
func ToDevice[T Numeric](x *Array[T], b Backend) (*Array[T], error) {
	if err := x.liveErr("ToDevice"); err != nil {
		return nil, err
	}
	if x.Device() == b.Device() {
		return x, nil
	}
	if !x.Device().IsHost() {
		hx, err := ToHost(x)
		if err != nil {
			return nil, err
		}
		x = hx
	}
	d, err := NewOn[T](b, x.Len())
	if err != nil {
		return nil, err
	}
	if err := b.CopyFromHost(d.buf, x.Ptr()); err != nil {
		return nil, err
	}
	profiling.RecordTransfer(profiling.ToDevice, "backend.ToDevice", int64(x.Len()*x.DType().Size()), true, false)
	return d, nil
}

// ErrNoDevice is returned by AsDevice when the selected backend is the CPU.
var ErrNoDevice = errors.New("backend: the selected backend is the CPU, which has no device memory; select a device backend (XPMPI_BACKEND=cuda) first")

// AsDevice returns x unchanged if it lives on the selected backend's device,
// and otherwise a copy there, made once. With the CPU selected it is an
// error, so that host data is never moved by accident.
func AsDevice[T Numeric](x *Array[T]) (*Array[T], error) {
	if err := x.liveErr("AsDevice"); err != nil {
		return nil, err
	}
	b := Current()
	if b.Device().IsHost() {
		return nil, ErrNoDevice
	}
	return ToDevice(x, b)
}

// Synchronize waits until all work queued on the backends of the arrays'
// devices has finished; with no arrays, on the selected backend.
func Synchronize[T Numeric](arrays ...*Array[T]) error {
	if len(arrays) == 0 {
		return Current().Synchronize()
	}
	for _, a := range arrays {
		if err := a.liveErr("Synchronize"); err != nil {
			return err
		}
	}
	seen := map[Backend]bool{}
	for _, a := range arrays {
		if !seen[a.b] {
			seen[a.b] = true
			if err := a.b.Synchronize(); err != nil {
				return err
			}
			if !a.Device().IsHost() && profiling.Active() {
				profiling.Record(profiling.Event{Kind: profiling.Sync, Desc: "backend.Synchronize " + a.Device().String(), Bytes: profiling.UnknownBytes, Blocking: true})
			}
		}
	}
	return nil
}

// HostCopy is a copy to the host in flight, from ToHostAsync.
type HostCopy[T Numeric] struct {
	done   chan struct{}
	once   sync.Once
	result *Array[T]
	err    error
}

// ToHostAsync starts copying x to the host and returns at once. A host x
// completes at once, without a copy.
func ToHostAsync[T Numeric](x *Array[T]) *HostCopy[T] {
	c := &HostCopy[T]{done: make(chan struct{})}
	if c.err = x.liveErr("ToHostAsync"); c.err != nil {
		close(c.done)
		return c
	}
	if x.Device().IsHost() {
		c.result = x
		close(c.done)
		return c
	}
	profiling.RecordTransfer(profiling.ToHost, "backend.ToHostAsync", int64(x.Len()*x.DType().Size()), false, false)
	go func() {
		c.result, c.err = toHost(x)
		close(c.done)
	}()
	return c
}

// Ready reports whether the copy has finished, without waiting.
func (c *HostCopy[T]) Ready() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Result waits for the copy and returns the host array.
func (c *HostCopy[T]) Result() (*Array[T], error) {
	<-c.done
	return c.result, c.err
}

// HostCall runs f, a host-only function, on arrays that may live on a
// device: each device array is copied to the host, f runs on the host
// arrays, and the host arrays are copied back into the device arrays
// (whether or not f changed them). Host arrays are passed through
// unchanged.
func HostCall[T Numeric](f func(host []*Array[T]) error, arrays ...*Array[T]) error {
	for _, a := range arrays {
		if err := a.liveErr("HostCall"); err != nil {
			return err
		}
	}
	host := make([]*Array[T], len(arrays))
	for i, a := range arrays {
		if a.Device().IsHost() {
			host[i] = a
			continue
		}
		h, err := toHost(a)
		if err != nil {
			return err
		}
		profiling.RecordTransfer(profiling.ToHost, "backend.HostCall argument", int64(a.Len()*a.DType().Size()), true, true)
		host[i] = h
	}
	if err := f(host); err != nil {
		return err
	}
	for i, a := range arrays {
		if host[i] != a {
			if err := a.b.CopyFromHost(a.buf, host[i].Ptr()); err != nil {
				return err
			}
			profiling.RecordTransfer(profiling.ToDevice, "backend.HostCall result", int64(a.Len()*a.DType().Size()), true, true)
		}
	}
	return nil
}
