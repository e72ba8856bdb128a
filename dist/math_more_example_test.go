package dist_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// vec is a 1-D float64 array of v, split over the ranks.
func vec(c mpi.Comm, v ...float64) *dist.Array[float64] {
	x, err := dist.FromFunc(c, []int{len(v)}, func(idx []int) float64 { return v[idx[0]] })
	if err != nil {
		panic(err)
	}
	return x
}

// gather is the whole of x, on every rank.
func gather[T backend.Numeric](x *dist.Array[T]) []T {
	g, err := dist.Allgather(x)
	if err != nil {
		panic(err)
	}
	return g
}

func ExampleLog10() {
	world := mpi.World()
	x := vec(world, 1, 10, 1000, 0, -1)
	d, _ := dist.ZerosLike(x)
	dist.Log10(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 1 3 -Inf NaN]
}

func ExampleLog2() {
	world := mpi.World()
	x := vec(world, 1, 8, 0.5, 0, -1)
	d, _ := dist.ZerosLike(x)
	dist.Log2(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 3 -1 -Inf NaN]
}

func ExampleTan() {
	world := mpi.World()
	x := vec(world, 0, math.Pi/4, math.Inf(1))
	d, _ := dist.ZerosLike(x)
	dist.Tan(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 1 NaN]
}

func ExampleArcsin() {
	world := mpi.World()
	x := vec(world, 0, 1, -1, 2)
	d, _ := dist.ZerosLike(x)
	dist.Arcsin(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 1.5707963267948966 -1.5707963267948966 NaN]
}

func ExampleArccos() {
	world := mpi.World()
	x := vec(world, 1, 0, -1, 2)
	d, _ := dist.ZerosLike(x)
	dist.Arccos(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 1.5707963267948966 3.141592653589793 NaN]
}

func ExampleArctan() {
	world := mpi.World()
	x := vec(world, 0, 1, math.Inf(-1))
	d, _ := dist.ZerosLike(x)
	dist.Arctan(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 0.7853981633974483 -1.5707963267948966]
}

func ExampleSinh() {
	world := mpi.World()
	x := vec(world, 0, 1, math.Inf(-1))
	d, _ := dist.ZerosLike(x)
	dist.Sinh(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 1.1752011936438014 -Inf]
}

func ExampleCosh() {
	world := mpi.World()
	x := vec(world, 0, 1, math.Inf(-1))
	d, _ := dist.ZerosLike(x)
	dist.Cosh(d, x)
	fmt.Println(gather(d))
	// Output:
	// [1 1.5430806348152437 +Inf]
}

func ExampleArcsinh() {
	world := mpi.World()
	x := vec(world, 0, 1, math.Inf(-1))
	d, _ := dist.ZerosLike(x)
	dist.Arcsinh(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 0.881373587019543 -Inf]
}

func ExampleArccosh() {
	world := mpi.World()
	x := vec(world, 1, 2, 0.5)
	d, _ := dist.ZerosLike(x)
	dist.Arccosh(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 1.3169578969248166 NaN]
}

func ExampleArctanh() {
	world := mpi.World()
	x := vec(world, 0, 0.5, 1, 2)
	d, _ := dist.ZerosLike(x)
	dist.Arctanh(d, x)
	fmt.Println(gather(d))
	// Output:
	// [0 0.5493061443340548 +Inf NaN]
}

func ExampleSign() {
	world := mpi.World()
	x := vec(world, -3, math.Copysign(0, -1), 2.5, math.NaN())
	d, _ := dist.ZerosLike(x)
	dist.Sign(d, x)
	fmt.Println(gather(d))
	// Output:
	// [-1 0 1 NaN]
}

func ExampleMaximum() {
	world := mpi.World()
	x, y := vec(world, 1, math.NaN(), -2), vec(world, 3, 0, -5)
	d, _ := dist.ZerosLike(x)
	dist.Maximum(d, x, y) // NaN propagates
	fmt.Println(gather(d))
	// Output:
	// [3 NaN -2]
}

func ExampleMinimum() {
	world := mpi.World()
	x, y := vec(world, 1, math.NaN(), -2), vec(world, 3, 0, -5)
	d, _ := dist.ZerosLike(x)
	dist.Minimum(d, x, y)
	fmt.Println(gather(d))
	// Output:
	// [1 NaN -5]
}

func ExampleMod() {
	world := mpi.World()
	x, y := vec(world, 5, -5, 5, -5, 1), vec(world, 3, 3, -3, -3, 0)
	d, _ := dist.ZerosLike(x)
	dist.Mod(d, x, y) // the sign of the divisor; x mod 0 = NaN
	fmt.Println(gather(d))
	// Output:
	// [2 1 -1 -2 NaN]
}

func ExampleFloorDivide() {
	world := mpi.World()
	x, y := vec(world, 5, -5, 5, 1), vec(world, 3, 3, -3, 0)
	d, _ := dist.ZerosLike(x)
	dist.FloorDivide(d, x, y) // rounds toward -Inf; 1 // 0 = +Inf
	fmt.Println(gather(d))
	// Output:
	// [1 -2 -2 +Inf]
}

func ExampleArctan2() {
	world := mpi.World()
	x, y := vec(world, 1, 0, -1), vec(world, 1, -1, 0)
	d, _ := dist.ZerosLike(x)
	dist.Arctan2(d, x, y) // the angle of the point (y, x)
	fmt.Println(gather(d))
	// Output:
	// [0.7853981633974483 3.141592653589793 -1.5707963267948966]
}

func ExampleIsnan() {
	world := mpi.World()
	x := vec(world, 1, math.NaN(), math.Inf(-1), 0)
	m, _ := dist.Isnan(x)
	fmt.Println(gather(m))
	// Output:
	// [0 1 0 0]
}

func ExampleIsinf() {
	world := mpi.World()
	x := vec(world, 1, math.NaN(), math.Inf(-1), 0)
	m, _ := dist.Isinf(x)
	fmt.Println(gather(m))
	// Output:
	// [0 0 1 0]
}

func ExampleIsfinite() {
	world := mpi.World()
	x := vec(world, 1, math.NaN(), math.Inf(-1), 0)
	m, _ := dist.Isfinite(x)
	fmt.Println(gather(m))
	// Output:
	// [1 0 0 1]
}

func ExampleIsclose() {
	world := mpi.World()
	x, y := vec(world, 1, 1.00001, 1.001, math.NaN()), vec(world, 1, 1, 1, math.NaN())
	m, _ := dist.Isclose(x, y)
	fmt.Println(gather(m))
	m, _ = dist.Isclose(x, y, dist.Rtol(1e-2), dist.EqualNaN())
	fmt.Println(gather(m))
	// Output:
	// [1 1 0 0]
	// [1 1 1 1]
}

func ExampleAllclose() {
	world := mpi.World()
	x, y := vec(world, 1, 2, 3), vec(world, 1, 2, 3.0000001)
	ok, _ := dist.Allclose(x, y)
	fmt.Println(ok)
	// Output:
	// true
}

func ExampleNansum() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nansum(x)
	fmt.Println(v)
	// Output:
	// 5
}

func ExampleNanprod() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanprod(x)
	fmt.Println(v)
	// Output:
	// -8
}

func ExampleNanmax() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanmax(x)
	fmt.Println(v)
	// Output:
	// 4
}

func ExampleNanmin() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanmin(x)
	fmt.Println(v)
	// Output:
	// -1
}

func ExampleNanargmax() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanargmax(x)
	fmt.Println(v)
	// Output:
	// 3
}

func ExampleNanargmin() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanargmin(x)
	fmt.Println(v)
	// Output:
	// 2
}

func ExampleNanmean() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanmean(x)
	fmt.Println(v)
	// Output:
	// 1.6666666666666667
}

func ExampleNanvar() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanvar(x, 1) // ddof 1
	fmt.Printf("%.4f\n", v)
	// Output:
	// 6.3333
}

func ExampleNanstd() {
	world := mpi.World()
	x := vec(world, 2, math.NaN(), -1, 4)
	v, _ := dist.Nanstd(x, 1) // ddof 1
	fmt.Printf("%.4f\n", v)
	// Output:
	// 2.5166
}

func ExampleNansumAxis() {
	world := mpi.World()
	nan := math.NaN()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	r, _ := dist.NansumAxis(x, 1)
	fmt.Println(gather(r))
	// Output:
	// [4 4]
}

func ExampleNanprodAxis() {
	world := mpi.World()
	nan := math.NaN()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	r, _ := dist.NanprodAxis(x, 1)
	fmt.Println(gather(r))
	// Output:
	// [3 -5]
}

func ExampleNanmaxAxis() {
	world := mpi.World()
	nan := math.NaN()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	r, _ := dist.NanmaxAxis(x, 1)
	fmt.Println(gather(r))
	// Output:
	// [3 5]
}

func ExampleNanminAxis() {
	world := mpi.World()
	nan := math.NaN()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	r, _ := dist.NanminAxis(x, 1)
	fmt.Println(gather(r))
	// Output:
	// [1 -1]
}

func ExampleNanargmaxAxis() {
	world := mpi.World()
	nan := math.NaN()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	r, _ := dist.NanargmaxAxis(x, 1)
	fmt.Println(gather(r))
	// Output:
	// [2 1]
}

func ExampleNanargminAxis() {
	world := mpi.World()
	nan := math.NaN()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	r, _ := dist.NanargminAxis(x, 1)
	fmt.Println(gather(r))
	// Output:
	// [0 2]
}

func ExampleNanmeanAxis() {
	world := mpi.World()
	nan := math.NaN()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	r, _ := dist.NanmeanAxis(x, 1)
	fmt.Println(gather(r))
	// Output:
	// [2 2]
}
