package dist

import "github.com/xpmpi/xpmpi/backend"

// convCall runs backend.Converter operations for arrays of one backend: on
// their device where the backend is a Converter, and otherwise on host
// copies of the inputs (recorded by backend.ToHost) with the CPU backend,
// the outputs copied back to the device when done (recorded too).
type convCall struct {
	conv backend.Converter
	host bool           // the operations run on host copies
	back []func() error // copies of host outputs to the device
}

// newConvCall returns the convCall of backend b. complex says whether a
// complex element type takes part: a Converter that is not also a
// backend.ComplexKernels has kernels for the real types only (every
// backend of xpmpi's is one: the CPU backend, the fake device and CUDA),
// so the operation then runs on host copies.
func newConvCall(b backend.Backend, complex bool) *convCall {
	if c, ok := b.(backend.Converter); ok {
		if _, ck := b.(backend.ComplexKernels); !complex || ck {
			return &convCall{conv: c}
		}
	}
	return &convCall{conv: backend.HostBackend().(backend.Converter), host: true}
}

// onHost reports whether the operations run on host copies.
func (cc *convCall) onHost() bool { return cc.host }

// input returns the buffer of a that the Converter reads.
func input[T backend.Numeric](cc *convCall, a *backend.Array[T]) (backend.Buffer, error) {
	if !cc.onHost() {
		return a.Buffer(), nil
	}
	if a.Len() == 0 {
		return backend.HostBufferOf([]T{}), nil
	}
	h, err := backend.ToHost(a)
	if err != nil {
		return nil, err
	}
	return h.Buffer(), nil
}

// output returns the buffer of a that the Converter writes; done copies it
// to a where it is a host stand-in.
func output[T backend.Numeric](cc *convCall, a *backend.Array[T]) backend.Buffer {
	if !cc.onHost() {
		return a.Buffer()
	}
	h := make([]T, a.Len())
	if len(h) > 0 {
		cc.back = append(cc.back, func() error { return backend.CopyFromHostSlice(a, h) })
	}
	return backend.HostBufferOf(h)
}

// done copies host outputs to their device.
func (cc *convCall) done() error {
	for _, f := range cc.back {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// hostComplex returns the CPU backend's complex functions, which run on
// host copies where the array's backend has none.
func hostComplex() backend.ComplexMath { return backend.HostBackend().(backend.ComplexMath) }
