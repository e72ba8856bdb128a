package cuda_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
)

// Arrays on the GPU are made on the CUDA backend; where there is no GPU,
// looking it up says why. (No output is checked: it depends on the
// machine.)
func Example() {
	b, err := backend.Lookup("cuda")
	if err != nil {
		fmt.Println("CUDA unavailable:", err)
		return
	}
	x, err := backend.ToDevice(backend.Wrap([]float64{1, 2, 3, 4}), b)
	if err != nil {
		fmt.Println(err)
		return
	}
	y, _ := backend.NewOn[float64](b, 4)
	backend.Fill(y, 10)
	backend.Axpy(2, x, y) // y = 2*x + y, as a CUDA kernel
	h, _ := backend.ToHost(y)
	fmt.Println(h.Data(), backend.Sum(y), "on", y.Device())
}

// Each rank of a node takes the next device in turn: with 4 GPUs, local
// ranks 0 to 5 use devices 0, 1, 2, 3, 0, 1.
func ExampleDeviceFor() {
	for rank := 0; rank < 6; rank++ {
		fmt.Print(cuda.DeviceFor(rank, 4), " ")
	}
	fmt.Println()
	// Output:
	// 0 1 2 3 0 1
}

// Kernel arguments are packed at their true sizes.
func ExampleArgs() {
	a := (&cuda.Args{}).Int64(1000).Float32(0.5).Float64(2).Uint32(7)
	fmt.Println(a.Len(), a.Sizes())
	// Output:
	// 4 [8 4 8 4]
}
