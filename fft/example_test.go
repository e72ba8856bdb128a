package fft_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/fft"
	"github.com/xpmpi/xpmpi/mpi"
)

// round drops the rounding noise of a transform for printing.
func round(v complex128) complex128 {
	r := func(f float64) float64 { return math.Round(f*1e9)/1e9 + 0 }
	return complex(r(real(v)), r(imag(v)))
}

// A 2-D FFT of a 4 x 4 array split by rows over the ranks, as
// numpy.fft.fft2(np.arange(16).reshape(4, 4)), and back: the slab method,
// with the forward result left split by columns (TransposedOut) for the
// inverse to start from, so that the pair takes one redistribution each
// way.
func ExampleFFT2() {
	world := mpi.World()
	x, err := dist.FromFunc(world, []int{4, 4}, func(idx []int) complex128 { return complex(float64(4*idx[0]+idx[1]), 0) })
	if err != nil {
		fmt.Println(err)
		return
	}
	X, err := fft.FFT2(x, fft.TransposedOut())
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(X)
	for i := 0; i < 4; i++ {
		fmt.Println(round(all[4*i]), round(all[4*i+1]), round(all[4*i+2]), round(all[4*i+3]))
	}
	back, err := fft.IFFT2(X, fft.TransposedOut())
	if err != nil {
		fmt.Println(err)
		return
	}
	xs, _ := dist.Allgather(back)
	fmt.Println("round trip:", round(xs[5]), round(xs[15]), "split on axis", back.Layout().Axis())
	// Output:
	// (120+0i) (-8+8i) (-8+0i) (-8-8i)
	// (-32+32i) (0+0i) (0+0i) (0+0i)
	// (-32+0i) (0+0i) (0+0i) (0+0i)
	// (-32-32i) (0+0i) (0+0i) (0+0i)
	// round trip: (5+0i) (15+0i) split on axis 0
}
