package npy_test

import (
	"bytes"
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/npy"
)

// A header as numpy.save writes it for a 3 x 4 float64 array, read back.
func Example() {
	var b bytes.Buffer
	if err := npy.WriteHeader(&b, backend.Float64, []int{3, 4}); err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", b.String()[:69])
	h, err := npy.ReadHeader(&b)
	if err != nil {
		panic(err)
	}
	fmt.Println(h.DType, h.Shape, h.DataOffset, h.DataSize())
	// Output:
	// "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }"
	// float64 [3 4] 128 96
}
