package fft_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/fft"
	"github.com/xpmpi/xpmpi/mpi"
)

// roundR drops the rounding noise of a real transform for printing.
func roundR(v float64) float64 { return math.Round(v*1e9)/1e9 + 0 }

// The half spectrum of a real 1-D array, as numpy.fft.rfft([1, 2, 3, 4,
// 5, 6]): 6/2+1 = 4 terms. A 1-D array split over several ranks is split
// along the transformed axis, which RFFT refuses: Resplit it to
// replicated first (or use RFFTN, which does so).
func ExampleRFFT() {
	world := mpi.World()
	x, err := dist.FromFunc(world, []int{6}, func(idx []int) float64 { return float64(idx[0] + 1) }, dist.SplitAxis(dist.Replicated))
	if err != nil {
		fmt.Println(err)
		return
	}
	X, err := fft.RFFT(x, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(X)
	for _, v := range all {
		fmt.Println(round(v))
	}
	// Output:
	// (21+0i)
	// (-3+5.196152423i)
	// (-3+1.732050808i)
	// (-3+0i)
}

// The real signal of a half spectrum, as numpy.fft.irfft([6, 1j, 2]):
// the default length 2(3-1) = 4, and an odd length 5.
func ExampleIRFFT() {
	world := mpi.World()
	X, err := dist.FromFunc(world, []int{3}, func(idx []int) complex128 { return []complex128{6, 1i, 2}[idx[0]] }, dist.SplitAxis(dist.Replicated))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range []int{0, 5} {
		x, err := fft.IRFFT(X, n, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		all, _ := dist.Allgather(x)
		for i := range all {
			all[i] = roundR(all[i])
		}
		fmt.Println(all)
	}
	// Output:
	// [2 0.5 2 1.5]
	// [2 0.172363798 1.212099495 1.682327696 0.933209011]
}

// The 2-D real transform of a 3 x 4 array split by rows, as
// numpy.fft.rfft2(np.arange(12).reshape(3, 4)): 3 x 3 terms, split by
// rows as the input was.
func ExampleRFFT2() {
	world := mpi.World()
	x, err := dist.FromFunc(world, []int{3, 4}, func(idx []int) float64 { return float64(4*idx[0] + idx[1]) })
	if err != nil {
		fmt.Println(err)
		return
	}
	X, err := fft.RFFT2(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(X)
	for i := 0; i < 3; i++ {
		fmt.Println(round(all[3*i]), round(all[3*i+1]), round(all[3*i+2]))
	}
	fmt.Println(X.Shape(), "split on axis", X.Layout().Axis())
	// Output:
	// (66+0i) (-6+6i) (-6+0i)
	// (-24+13.856406461i) (0+0i) (0+0i)
	// (-24-13.856406461i) (0+0i) (0+0i)
	// [3 3] split on axis 0
}

// IRFFT2 of RFFT2's result returns the input, given the last axis's
// length (4, the default 2(3-1) here).
func ExampleIRFFT2() {
	world := mpi.World()
	x, err := dist.FromFunc(world, []int{3, 4}, func(idx []int) float64 { return float64(4*idx[0] + idx[1]) })
	if err != nil {
		fmt.Println(err)
		return
	}
	X, err := fft.RFFT2(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	back, err := fft.IRFFT2(X, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(back)
	for i := range all {
		all[i] = roundR(all[i])
	}
	fmt.Println(all)
	// Output:
	// [0 1 2 3 4 5 6 7 8 9 10 11]
}

// The 3-D real transform of a 2 x 2 x 2 array, as
// numpy.fft.rfftn(np.arange(8).reshape(2, 2, 2)), and back with IRFFTN.
func ExampleRFFTN() {
	world := mpi.World()
	x, err := dist.FromFunc(world, []int{2, 2, 2}, func(idx []int) float64 { return float64(4*idx[0] + 2*idx[1] + idx[2]) })
	if err != nil {
		fmt.Println(err)
		return
	}
	X, err := fft.RFFTN(x, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(X)
	for i := range all {
		all[i] = round(all[i])
	}
	fmt.Println(all)
	back, err := fft.IRFFTN(X, 2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	xs, _ := dist.Allgather(back)
	for i := range xs {
		xs[i] = roundR(xs[i])
	}
	fmt.Println(xs)
	// Output:
	// [(28+0i) (-4+0i) (-8+0i) (0+0i) (-16+0i) (0+0i) (0+0i) (0+0i)]
	// [0 1 2 3 4 5 6 7]
}

// IRFFTN over the last axis alone, to an odd length: as
// numpy.fft.irfftn(X, s=(5,), axes=(1,)) for each row of X.
func ExampleIRFFTN() {
	world := mpi.World()
	X, err := dist.FromFunc(world, []int{2, 3}, func(idx []int) complex128 {
		return []complex128{6, 1i, 2}[idx[1]] * complex(float64(idx[0]+1), 0)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, err := fft.IRFFTN(X, 5, []int{1})
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(x)
	for i := range all {
		all[i] = roundR(all[i])
	}
	fmt.Println(all[:5])
	fmt.Println(all[5:])
	// Output:
	// [2 0.172363798 1.212099495 1.682327696 0.933209011]
	// [4 0.344727596 2.424198989 3.364655393 1.866418022]
}

// The half spectrum of a local block (no communication).
func ExampleLocalRFFT() {
	X := fft.LocalRFFT([]float64{1, 2, 3, 4, 5, 6}, []int{6}, 0)
	fmt.Println(round(X[0]), round(X[3]))
	x := fft.LocalIRFFT(X, []int{4}, 0, 6)
	for i := range x {
		x[i] = roundR(x[i])
	}
	fmt.Println(x)
	// Output:
	// (21+0i) (-3+0i)
	// [1 2 3 4 5 6]
}

// The sample frequencies of a transform of length 5 and 6 with spacing
// 0.5, as numpy.fft.fftfreq.
func ExampleFFTFreq() {
	for _, n := range []int{5, 6} {
		f, err := fft.FFTFreq(n, 0.5)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(f)
	}
	// Output:
	// [0 0.4 0.8 -0.8 -0.4]
	// [0 0.3333333333333333 0.6666666666666666 -1 -0.6666666666666666 -0.3333333333333333]
}

// The sample frequencies of RFFT's terms, as numpy.fft.rfftfreq(6, 0.5).
func ExampleRFFTFreq() {
	f, err := fft.RFFTFreq(6, 0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f)
	// Output:
	// [0 0.3333333333333333 0.6666666666666666 1]
}

// FFTShift of a 1-D array of odd length split over the ranks, and of a
// 2 x 3 array along both axes, as numpy.fft.fftshift.
func ExampleFFTShift() {
	world := mpi.World()
	v, err := dist.Arange[int64](world, 0, 7, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := fft.FFTShift(v, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(s)
	fmt.Println(all)
	m, err := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 { return float64(3*idx[0] + idx[1]) })
	if err != nil {
		fmt.Println(err)
		return
	}
	ms, err := fft.FFTShift(m, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	mall, _ := dist.Allgather(ms)
	fmt.Println(mall)
	// Output:
	// [4 5 6 0 1 2 3]
	// [5 3 4 2 0 1]
}

// IFFTShift undoes FFTShift, also for odd lengths, as numpy.fft.ifftshift.
func ExampleIFFTShift() {
	world := mpi.World()
	v, err := dist.Arange[int64](world, 0, 7, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := fft.IFFTShift(v, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(s)
	fmt.Println(all)
	back, err := fft.FFTShift(s, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ball, _ := dist.Allgather(back)
	fmt.Println(ball)
	// Output:
	// [3 4 5 6 0 1 2]
	// [0 1 2 3 4 5 6]
}
