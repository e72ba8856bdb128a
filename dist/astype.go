package dist

import (
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
// A block on a device is converted there when its backend is a
// backend.Converter (the CPU backend and the fake device); on another
// (CUDA, until it has the kernel) the block is copied to the host and the
// result back, recorded as the copies they are.
func Astype[D, S backend.Element](x *Array[S]) (*Array[D], error) {
	if err := check("Astype", x, mpi.Arg{Name: "to", Value: int64(backend.DTypeOf[D]()), Text: backend.DTypeOf[D]().String()}); err != nil {
		return nil, err
	}
	b := x.local.Backend()
	out, err := newOn[D](x.comm, x.layout, b)
	if err != nil {
		return nil, err
	}
	cc := newConvCall(b)
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
