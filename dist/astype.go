package dist

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Astype returns a new array of x's layout, on x's device, holding x's
// elements converted to D (a copy when D is x's type), as NumPy's
// x.astype(D) does. It is collective (the allocation is agreed on).
//
// The conversions are those of backend.ConvertValue: integers wrap,
// integers and wider floats round to nearest float, floats truncate toward
// zero to integers; where C leaves a float-to-integer conversion undefined
// (NaN, ±Inf, out of range) the result is x86-64's, as from NumPy's scalar
// loops: NaN and ±Inf become -2^31 as int32, -2^63 as int64, 2^63 as
// uint64 and 0 as the narrower types and uint32; out-of-range values go
// through int32 (int64 for 64-bit and uint32 targets) and wrap, so 300.7
// becomes 44 as int8.
//
// Complex types: a real value converts to a complex one exactly as to
// its part type (x.astype(np.complex128)); complex converts to complex
// part by part. Complex to real drops the imaginary part, which NumPy
// does with a ComplexWarning: here Astype panics unless opts hold
// DiscardImag, and with it converts the real parts by the rules above.
// No other option applies.
//
// A block on a device is converted there when its backend is a
// backend.Converter (every backend of xpmpi's), and for complex types also
// a backend.ComplexKernels (the CPU backend, the fake device and CUDA);
// otherwise (a backend a user registers) the block is copied to the host
// and the result back, recorded as the copies they are.
func Astype[D, S backend.Numeric](x *Array[S], opts ...Option) (*Array[D], error) {
	if x.freed {
		return nil, freedCollective("Astype", x.comm)
	}
	to, from := backend.DTypeOf[D](), backend.DTypeOf[S]()
	if from.IsComplex() && !to.IsComplex() && !discardImag(opts) {
		panic(fmt.Sprintf("dist: Astype from %v to %v drops the imaginary parts: pass DiscardImag() to take the real parts (NumPy warns with a ComplexWarning), or use Real", from, to))
	}
	if err := check("Astype", x, mpi.Arg{Name: "to", Value: int64(backend.DTypeOf[D]()), Text: backend.DTypeOf[D]().String()}); err != nil {
		return nil, err
	}
	b := x.local.Backend()
	out, err := newOn[D](x.comm, x.layout, b)
	if err != nil {
		return nil, err
	}
	cc := newConvCall(b, from.IsComplex() || to.IsComplex())
	src, err := input(cc, x.local)
	if err == nil {
		cc.conv.Convert(output(cc, out.local), src)
		err = cc.done()
	}
	if err := mpi.Agree(x.comm, err); err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// DiscardImag, an option of Astype and of Load with Convert, lets a
// conversion from a complex type to a real one keep the real parts and
// drop the imaginary parts, as NumPy's astype does with a ComplexWarning.
// Without it such a conversion is refused.
func DiscardImag() Option { return func(o *options) { o.discardImag = true } }

func discardImag(opts []Option) bool {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o.discardImag
}
