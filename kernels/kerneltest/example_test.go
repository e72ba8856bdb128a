package kerneltest_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

func ExampleCompare() {
	host := []float64{1, 2, math.NaN(), 4}
	device := []float64{1, 2, math.NaN(), math.Nextafter(4, 5)}
	fmt.Println(kerneltest.Compare(host, device, 1))
	fmt.Println(kerneltest.Compare(host, device, 0))
	// Output:
	// <nil>
	// first difference at index 3: host 4 (0x4010000000000000), device 4.000000000000001 (0x4010000000000001) (1 ULPs apart; tolerance 0)
}
