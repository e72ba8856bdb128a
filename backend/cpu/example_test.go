package cpu_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CPU backend is what the generic functions of package backend use for
// host arrays: importing package cpu registers it.
func Example() {
	x := backend.Wrap([]float64{1, 2, 3, 4})
	y := backend.Wrap([]float64{10, 20, 30, 40})
	backend.Axpy(2, x, y) // y = 2*x + y
	fmt.Println(y.Data())
	fmt.Println(backend.Sum(y), backend.Dot(x, y), backend.Argmax(y))
	// Output:
	// [12 24 36 48]
	// 120 360 3
}

// Backend methods can also be called directly on buffers.
func ExampleBackend_Jacobi5() {
	const rows, cols = 3, 4
	src, _ := cpu.Default.Alloc(backend.Float64, rows*cols)
	dst, _ := cpu.Default.Alloc(backend.Float64, rows*cols)
	s := driver.HostSlice[float64](src)
	for i := range s {
		s[i] = float64(i)
	}
	cpu.Default.Jacobi5(dst, src, rows, cols)
	fmt.Println(driver.HostSlice[float64](dst))
	// Output:
	// [0 0 0 0 0 5 6 0 0 0 0 0]
}

func ExampleBackend_Argmin() {
	x := driver.HostBufferOf([]float32{3, 1, 2, 1})
	i, v := cpu.Default.Argmin(x)
	fmt.Println(i, v, v.DType())
	// Output:
	// 1 1 float32
}
