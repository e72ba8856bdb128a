package dist_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// nanMatrix is [[1, NaN, 3], [NaN, 5, -1]], split over the ranks.
func nanMatrix(c mpi.Comm) *dist.Array[float64] {
	nan := math.NaN()
	x, err := dist.FromFunc(c, []int{2, 3}, func(idx []int) float64 {
		return [][]float64{{1, nan, 3}, {nan, 5, -1}}[idx[0]][idx[1]]
	})
	if err != nil {
		panic(err)
	}
	return x
}

// nanComplexVec is [1+2i, NaN+1i, 3-1i, 2+NaNi, -1], split over the ranks:
// two elements are NaN, one in each part.
func nanComplexVec(c mpi.Comm) *dist.Array[complex128] {
	nan := math.NaN()
	v := []complex128{1 + 2i, complex(nan, 1), 3 - 1i, complex(2, nan), -1}
	x, err := dist.FromFunc(c, []int{len(v)}, func(idx []int) complex128 { return v[idx[0]] })
	if err != nil {
		panic(err)
	}
	return x
}

func ExampleNanvarAxis() {
	x := nanMatrix(mpi.World())
	defer x.Free()
	r, _ := dist.NanvarAxis(x, 1, 0) // the rows {1, 3} and {5, -1}
	fmt.Println(gather(r))
	r, _ = dist.NanvarAxis(x, 0, 1) // a column of one element has none to spare for ddof=1
	fmt.Println(gather(r))
	// Output:
	// [1 9]
	// [NaN NaN 8]
}

func ExampleNanstdAxis() {
	x := nanMatrix(mpi.World())
	defer x.Free()
	r, _ := dist.NanstdAxis(x, -1, 0)
	fmt.Println(gather(r))
	// Output:
	// [1 3]
}

func ExampleNansumComplex() {
	x := nanComplexVec(mpi.World())
	defer x.Free()
	s, _ := dist.NansumComplex(x)
	fmt.Println(s)
	// Output:
	// (3+1i)
}

func ExampleNanprodComplex() {
	x := nanComplexVec(mpi.World())
	defer x.Free()
	p, _ := dist.NanprodComplex(x)
	fmt.Println(p)
	// Output:
	// (-5-5i)
}

func ExampleNanmeanComplex() {
	x := nanComplexVec(mpi.World())
	defer x.Free()
	m, _ := dist.NanmeanComplex(x)
	fmt.Printf("%.4f\n", m)
	// Output:
	// (1.0000+0.3333i)
}

func ExampleNanvarComplex() {
	x := nanComplexVec(mpi.World())
	defer x.Free()
	v, _ := dist.NanvarComplex(x, 0) // the mean of |z - (1+i/3)|^2 over the three others
	fmt.Printf("%.4f\n", v)
	v, _ = dist.NanvarComplex(x, 3) // three elements are not NaN
	fmt.Println(v)
	// Output:
	// 4.2222
	// NaN
}

func ExampleNanstdComplex() {
	x := nanComplexVec(mpi.World())
	defer x.Free()
	s, _ := dist.NanstdComplex(x, 1)
	fmt.Printf("%.4f\n", s)
	// Output:
	// 2.5166
}
