package dist

import "github.com/xpmpi/xpmpi/backend"

// The elementwise functions below need no communication: each rank works on
// its own block. The arrays must have the same layout (a different layout
// panics, naming both) and their blocks must be on the same device.

// Fill sets every element of x to v.
func Fill[T backend.Numeric](x *Array[T], v T) {
	if x.freed {
		panic(freedError("Fill"))
	}
	backend.Fill(x.local, v)
}

// Copy copies src into dst.
func Copy[T backend.Numeric](dst, src *Array[T]) {
	if dst.freed || src.freed {
		panic(freedError("Copy"))
	}
	sameLayout("Copy", dst, src)
	backend.Copy(dst.local, src.local)
}

// Scale multiplies x by a in place.
func Scale[T backend.Numeric](a T, x *Array[T]) {
	if x.freed {
		panic(freedError("Scale"))
	}
	backend.Scale(a, x.local)
}

// Axpy sets y = a*x + y.
func Axpy[T backend.Numeric](a T, x, y *Array[T]) {
	if x.freed || y.freed {
		panic(freedError("Axpy"))
	}
	sameLayout("Axpy", x, y)
	backend.Axpy(a, x.local, y.local)
}

// Add sets dst = x + y; dst may be x or y.
func Add[T backend.Numeric](dst, x, y *Array[T]) { apply(backend.Add, dst, x, y) }

// Sub sets dst = x - y; dst may be x or y.
func Sub[T backend.Numeric](dst, x, y *Array[T]) { apply(backend.Sub, dst, x, y) }

// Mul sets dst = x * y elementwise; dst may be x or y.
func Mul[T backend.Numeric](dst, x, y *Array[T]) { apply(backend.Mul, dst, x, y) }

// Div sets dst = x / y elementwise; dst may be x or y.
func Div[T backend.Numeric](dst, x, y *Array[T]) { apply(backend.Div, dst, x, y) }

func apply[T backend.Numeric](op backend.BinaryOp, dst, x, y *Array[T]) {
	if dst.freed || x.freed || y.freed {
		panic(freedError(op.String()))
	}
	sameLayout(op.String(), dst, x, y)
	backend.Apply(op, dst.local, x.local, y.local)
}

// AddScalar sets dst = x + s; dst may be x.
func AddScalar[T backend.Numeric](dst, x *Array[T], s T) { applyScalar(backend.Add, dst, x, s) }

// SubScalar sets dst = x - s; dst may be x.
func SubScalar[T backend.Numeric](dst, x *Array[T], s T) { applyScalar(backend.Sub, dst, x, s) }

// MulScalar sets dst = x * s; dst may be x.
func MulScalar[T backend.Numeric](dst, x *Array[T], s T) { applyScalar(backend.Mul, dst, x, s) }

// DivScalar sets dst = x / s; dst may be x.
func DivScalar[T backend.Numeric](dst, x *Array[T], s T) { applyScalar(backend.Div, dst, x, s) }

func applyScalar[T backend.Numeric](op backend.BinaryOp, dst, x *Array[T], s T) {
	if dst.freed || x.freed {
		panic(freedError(op.String()))
	}
	sameLayout(op.String(), dst, x)
	backend.ApplyScalar(op, dst.local, x.local, s)
}

// Map sets x[i] = f(x[i]) for every element. f runs on the host, in
// parallel: it must be safe for concurrent use. A block on a device is
// copied to the host and back: RunFused runs an expression of package
// kernels/fuse on the device instead (one kernel, no copy), with its
// reductions.
func Map[T backend.Numeric](x *Array[T], f func(T) T) error {
	if x.freed {
		return freedError("Map")
	}
	return backend.Map(x.local, f)
}

// MapIndex sets every element to f(idx, value), where idx is the element's
// global multi-index. f runs on the host, serially; idx must not be kept.
func MapIndex[T backend.Numeric](x *Array[T], f func(idx []int, v T) T) error {
	if x.freed {
		return freedError("MapIndex")
	}
	return backend.HostCall(func(h []*backend.Array[T]) error {
		host := h[0].Data()
		start, shape := x.layout.box(x.comm.Rank())
		idx := make([]int, len(shape))
		for i := range host {
			unravel(i, shape, idx)
			for d := range idx {
				idx[d] += start[d]
			}
			host[i] = f(idx, host[i])
		}
		return nil
	}, x.local)
}
