package dtype_test

import (
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/dtype"
)

func sizeOf[T dtype.Numeric]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

func check[T dtype.Numeric](t *testing.T, want dtype.DType, name string) {
	t.Helper()
	got := dtype.Of[T]()
	if got != want || got.String() != name || got.Size() != sizeOf[T]() || !got.Valid() {
		t.Errorf("Of[%s]() = %v (size %d, valid %v), want %v of size %d", name, got, got.Size(), got.Valid(), want, sizeOf[T]())
	}
}

func TestOf(t *testing.T) {
	check[float32](t, dtype.Float32, "float32")
	check[float64](t, dtype.Float64, "float64")
	check[int32](t, dtype.Int32, "int32")
	check[int64](t, dtype.Int64, "int64")
	check[uint32](t, dtype.Uint32, "uint32")
	check[uint64](t, dtype.Uint64, "uint64")
	check[int8](t, dtype.Int8, "int8")
	check[int16](t, dtype.Int16, "int16")
	check[uint8](t, dtype.Uint8, "uint8")
	check[uint16](t, dtype.Uint16, "uint16")
	check[complex64](t, dtype.Complex64, "complex64")
	check[complex128](t, dtype.Complex128, "complex128")
	if dtype.NumDTypes != 12 {
		t.Errorf("NumDTypes = %d, want 12", dtype.NumDTypes)
	}
	for _, d := range []dtype.DType{-1, dtype.DType(dtype.NumDTypes)} {
		if d.Valid() {
			t.Errorf("%v.Valid() = true", d)
		}
	}
	if got := dtype.Complex64.Real(); got != dtype.Float32 {
		t.Errorf("Complex64.Real() = %v", got)
	}
	if !dtype.Int8.IsSigned() || dtype.Uint8.IsSigned() || !dtype.Float32.IsFloat() || !dtype.Complex128.IsComplex() {
		t.Error("IsSigned/IsFloat/IsComplex disagree with the type list")
	}
}
