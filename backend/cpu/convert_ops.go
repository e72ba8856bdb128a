package cpu

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CPU backend compares, selects, compacts and converts on the host.
var _ driver.Converter = (*Backend)(nil)

// maskOps is the set of type-erased mask and conversion operations for one
// element type.
type maskOps interface {
	compare(op driver.CompareOp, mask, x, y driver.Buffer)
	compareScalar(op driver.CompareOp, mask, x driver.Buffer, s driver.Scalar)
	where(dst, mask, a, b driver.Buffer)
	compress(dst, x, mask driver.Buffer) int
	convertFrom(dst, src driver.Buffer)
}

func maskOpsFor(dt backend.DType) maskOps {
	switch dt {
	case backend.Float32:
		return maskImpl[float32]{}
	case backend.Float64:
		return maskImpl[float64]{}
	case backend.Int32:
		return maskImpl[int32]{}
	case backend.Int64:
		return maskImpl[int64]{}
	case backend.Uint32:
		return maskImpl[uint32]{}
	case backend.Uint64:
		return maskImpl[uint64]{}
	case backend.Int8:
		return maskImpl[int8]{}
	case backend.Int16:
		return maskImpl[int16]{}
	case backend.Uint8:
		return maskImpl[uint8]{}
	case backend.Uint16:
		return maskImpl[uint16]{}
	}
	panic(fmt.Sprintf("cpu: invalid DType %d", int(dt)))
}

type maskImpl[T backend.Element] struct{}

// Compare sets mask (Uint8) to x op y elementwise: 1 or 0.
func (*Backend) Compare(op driver.CompareOp, mask, x, y driver.Buffer) {
	checkMask("Compare", mask, x.Len())
	if x.DType() != y.DType() || y.Len() != x.Len() {
		panic(fmt.Sprintf("cpu: Compare of %d %v and %d %v", x.Len(), x.DType(), y.Len(), y.DType()))
	}
	maskOpsFor(x.DType()).compare(op, mask, x, y)
}

// CompareScalar sets mask (Uint8) to x op s elementwise: 1 or 0.
func (*Backend) CompareScalar(op driver.CompareOp, mask, x driver.Buffer, s driver.Scalar) {
	checkMask("CompareScalar", mask, x.Len())
	maskOpsFor(x.DType()).compareScalar(op, mask, x, s)
}

// Where sets dst[i] = a[i] where mask[i] != 0, else b[i]; it takes every
// element type, complex included.
func (*Backend) Where(dst, mask, a, b driver.Buffer) {
	checkMask("Where", mask, dst.Len())
	for _, x := range []driver.Buffer{a, b} {
		if x.DType() != dst.DType() || x.Len() != dst.Len() {
			panic(fmt.Sprintf("cpu: Where of %d %v into %d %v", x.Len(), x.DType(), dst.Len(), dst.DType()))
		}
	}
	switch dst.DType() {
	case backend.Complex64:
		whereSlice[complex64](dst, mask, a, b)
	case backend.Complex128:
		whereSlice[complex128](dst, mask, a, b)
	default:
		maskOpsFor(dst.DType()).where(dst, mask, a, b)
	}
}

// Compress copies the x[i] with mask[i] != 0, in order, to the start of
// dst and returns their count; it takes every element type, complex
// included.
func (*Backend) Compress(dst, x, mask driver.Buffer) int {
	checkMask("Compress", mask, x.Len())
	if dst.DType() != x.DType() {
		panic(fmt.Sprintf("cpu: Compress of %v into %v", x.DType(), dst.DType()))
	}
	switch x.DType() {
	case backend.Complex64:
		return compressSlice[complex64](dst, x, mask)
	case backend.Complex128:
		return compressSlice[complex128](dst, x, mask)
	}
	return maskOpsFor(x.DType()).compress(dst, x, mask)
}

// Convert sets dst to src converted elementwise to dst's type, by the rules
// of driver.ConvertValue.
func (*Backend) Convert(dst, src driver.Buffer) {
	if dst.Len() != src.Len() {
		panic(fmt.Sprintf("cpu: Convert of %d elements into %d", src.Len(), dst.Len()))
	}
	if dst.DType().IsComplex() || src.DType().IsComplex() {
		convertComplex(dst, src)
		return
	}
	maskOpsFor(dst.DType()).convertFrom(dst, src)
}

func checkMask(op string, mask driver.Buffer, n int) {
	if mask.DType() != backend.Uint8 || mask.Len() != n {
		panic(fmt.Sprintf("cpu: %s: mask of %d %v for %d elements (want uint8)", op, mask.Len(), mask.DType(), n))
	}
}

// cmp returns the mask byte of a op b.
func cmpOp[T backend.Element](op driver.CompareOp, a, b T) uint8 {
	var r bool
	switch op {
	case driver.Less:
		r = a < b
	case driver.LessEqual:
		r = a <= b
	case driver.Greater:
		r = a > b
	case driver.GreaterEqual:
		r = a >= b
	case driver.Equal:
		r = a == b
	case driver.NotEqual:
		r = a != b
	default:
		panic(fmt.Sprintf("cpu: invalid CompareOp %d", int(op)))
	}
	if r {
		return 1
	}
	return 0
}

func (maskImpl[T]) compare(op driver.CompareOp, mask, x, y driver.Buffer) {
	m, xs, ys := hs[uint8](mask), hs[T](x), hs[T](y)
	for i := range m {
		m[i] = cmpOp(op, xs[i], ys[i])
	}
}

func (maskImpl[T]) compareScalar(op driver.CompareOp, mask, x driver.Buffer, s driver.Scalar) {
	m, xs, v := hs[uint8](mask), hs[T](x), driver.ValueOf[T](s)
	for i := range m {
		m[i] = cmpOp(op, xs[i], v)
	}
}

func (maskImpl[T]) where(dst, mask, a, b driver.Buffer) { whereSlice[T](dst, mask, a, b) }

func (maskImpl[T]) compress(dst, x, mask driver.Buffer) int { return compressSlice[T](dst, x, mask) }

// whereSlice is Where for any element type, complex included.
func whereSlice[T backend.Numeric](dst, mask, a, b driver.Buffer) {
	d, m, as, bs := hs[T](dst), hs[uint8](mask), hs[T](a), hs[T](b)
	for i := range d {
		if m[i] != 0 {
			d[i] = as[i]
		} else {
			d[i] = bs[i]
		}
	}
}

// compressSlice is Compress for any element type, complex included.
func compressSlice[T backend.Numeric](dst, x, mask driver.Buffer) int {
	d, xs, m := hs[T](dst), hs[T](x), hs[uint8](mask)
	k := 0
	for i, v := range xs {
		if m[i] != 0 {
			d[k] = v
			k++
		}
	}
	return k
}

func (maskImpl[D]) convertFrom(dst, src driver.Buffer) {
	d := hs[D](dst)
	switch src.DType() {
	case backend.Float32:
		convertSlice(d, hs[float32](src))
	case backend.Float64:
		convertSlice(d, hs[float64](src))
	case backend.Int32:
		convertSlice(d, hs[int32](src))
	case backend.Int64:
		convertSlice(d, hs[int64](src))
	case backend.Uint32:
		convertSlice(d, hs[uint32](src))
	case backend.Uint64:
		convertSlice(d, hs[uint64](src))
	case backend.Int8:
		convertSlice(d, hs[int8](src))
	case backend.Int16:
		convertSlice(d, hs[int16](src))
	case backend.Uint8:
		convertSlice(d, hs[uint8](src))
	case backend.Uint16:
		convertSlice(d, hs[uint16](src))
	default:
		panic(fmt.Sprintf("cpu: invalid DType %d", int(src.DType())))
	}
}

func convertSlice[D, S backend.Element](d []D, s []S) {
	s = s[:len(d)]
	if !isFloat[S]() || isFloat[D]() {
		for i, v := range s {
			d[i] = D(v)
		}
		return
	}
	for i, v := range s {
		d[i] = driver.FloatToInt[D](float64(v))
	}
}
