package staging

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/profiling"
)

// Mirror is a device mirror of a host buffer owned by someone else (a
// library's array, a file's buffer): a device array of the same length,
// with copies between the two that keep the host slice itself, so that its
// owner sees the data in place.
//
// On a host backend the device side is the host slice itself: ToDevice and
// ToHost copy nothing. On a device it is allocated at first use and kept.
//
// A Mirror is not safe for concurrent use.
type Mirror[T backend.Numeric] struct {
	b    backend.Backend
	host []T
	dev  *backend.Array[T]
}

// NewMirror returns a mirror of host on backend b. It allocates nothing.
func NewMirror[T backend.Numeric](b backend.Backend, host []T) *Mirror[T] {
	return &Mirror[T]{b: b, host: host}
}

// Host returns the host slice, the one given to NewMirror or Rebind.
func (m *Mirror[T]) Host() []T { return m.host }

// Device returns the device side, allocating it (zeroed) at first use.
// On a host backend it is the host slice itself.
func (m *Mirror[T]) Device() (*backend.Array[T], error) {
	if m.dev != nil {
		return m.dev, nil
	}
	if m.b.Device().IsHost() {
		m.dev = backend.FromBuffer[T](m.b, backend.HostBufferOf(m.host))
		return m.dev, nil
	}
	d, err := backend.NewOn[T](m.b, len(m.host))
	if err != nil {
		return nil, fmt.Errorf("staging: Mirror: %w", err)
	}
	m.dev = d
	return d, nil
}

// ToDevice copies the host slice into the device side, which it returns.
func (m *Mirror[T]) ToDevice() (*backend.Array[T], error) {
	d, err := m.Device()
	if err != nil || d.Device().IsHost() || d.Len() == 0 {
		return d, err
	}
	if err := copyToDevice(d, unsafe.Pointer(unsafe.SliceData(m.host))); err != nil {
		return nil, fmt.Errorf("staging: Mirror.ToDevice: %w", err)
	}
	profiling.RecordTransfer(profiling.ToDevice, "staging.Mirror.ToDevice", int64(nbytes(d)), true, false)
	return d, nil
}

// ToHost copies the device side into the host slice, in place, and returns
// the host slice. It is an error before the device side exists.
func (m *Mirror[T]) ToHost() ([]T, error) {
	if m.dev == nil {
		if m.b.Device().IsHost() {
			return m.host, nil
		}
		return nil, errors.New("staging: Mirror.ToHost before the device side exists (call ToDevice, Zero or Device first)")
	}
	if m.dev.Device().IsHost() || m.dev.Len() == 0 {
		return m.host, nil
	}
	if err := copyToHost(unsafe.Pointer(unsafe.SliceData(m.host)), m.dev); err != nil {
		return nil, fmt.Errorf("staging: Mirror.ToHost: %w", err)
	}
	profiling.RecordTransfer(profiling.ToHost, "staging.Mirror.ToHost", int64(nbytes(m.dev)), true, false)
	return m.host, nil
}

// Zero sets the device side to zeros, on the device, without a copy, and
// returns it. On a host backend that zeroes the host slice, which is the
// device side.
func (m *Mirror[T]) Zero() (*backend.Array[T], error) {
	d, err := m.Device()
	if err != nil {
		return nil, err
	}
	backend.Fill(d, 0)
	return d, nil
}

// Rebind makes the mirror mirror host instead. The device buffer is kept
// if host has the old length (its contents are not copied: call ToDevice),
// and freed otherwise.
func (m *Mirror[T]) Rebind(host []T) {
	if m.b.Device().IsHost() {
		m.host, m.dev = host, nil
		return
	}
	if m.dev != nil && len(host) != m.dev.Len() {
		m.dev.Free()
		m.dev = nil
	}
	m.host = host
}

// Free frees the device side; the mirror allocates it again if used.
func (m *Mirror[T]) Free() {
	if m.dev != nil && !m.b.Device().IsHost() {
		m.dev.Free()
	}
	m.dev = nil
}
