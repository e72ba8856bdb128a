package linalg_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/linalg"
	"github.com/xpmpi/xpmpi/mpi"
)

// round drops rounding noise for printing.
func round(v float64) float64 { return math.Round(v*1e8)/1e8 + 0 }

func rounded(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = round(x)
	}
	return out
}

// The outer product of [1 2 3] and [1 10], as numpy.outer: split by rows
// as a is.
func ExampleOuter() {
	world := mpi.World()
	a, _ := dist.FromFunc(world, []int{3}, func(i []int) float64 { return float64(i[0] + 1) })
	b, _ := dist.FromFunc(world, []int{2}, func(i []int) float64 { return math.Pow(10, float64(i[0])) })
	y, err := linalg.Outer(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(y)
	fmt.Println(y.Shape(), all, "split on axis", y.Layout().Axis())
	// Output:
	// [3 2] [1 10 2 20 3 30] split on axis 0
}

// A 3 x 3 system split by rows, as numpy.linalg.solve([[2, 1, 1], [1, 3,
// 2], [1, 0, 0]], [4, 5, 6]); and a singular one, an error that names the
// column of the zero pivot.
func ExampleSolve() {
	world := mpi.World()
	m := []float64{2, 1, 1, 1, 3, 2, 1, 0, 0}
	a, _ := dist.FromFunc(world, []int{3, 3}, func(i []int) float64 { return m[3*i[0]+i[1]] })
	b, _ := dist.FromFunc(world, []int{3}, func(i []int) float64 { return float64(4 + i[0]) })
	x, err := linalg.Solve(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := dist.Allgather(x)
	fmt.Println(rounded(all))

	// Column 1 is twice column 0.
	s, _ := dist.FromFunc(world, []int{3, 3}, func(i []int) float64 { return float64((i[0] + 1) * (i[1]%2 + 1) * (1 + i[1]/2*i[0])) })
	_, err = linalg.Solve(s, b)
	fmt.Println(errors.Is(err, linalg.ErrSingular))
	fmt.Println(err)
	// Output:
	// [6 15 -23]
	// true
	// linalg: Solve: singular matrix: the pivot of column 1 is exactly zero (LAPACK getrf info 2)
}

// The QR factorization of a 4 x 2 matrix split by rows: q split as a, r
// replicated with a nonnegative diagonal (NumPy's q and r here have the
// signs of both columns flipped).
func ExampleQR() {
	world := mpi.World()
	m := []float64{3, 1, 1, 2, 1, 1, 0, 1}
	a, _ := dist.FromFunc(world, []int{4, 2}, func(i []int) float64 { return m[2*i[0]+i[1]] })
	q, r, err := linalg.QR(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	qs, _ := dist.Allgather(q)
	rs, _ := dist.Allgather(r)
	fmt.Println(rounded(qs))
	fmt.Println(rounded(rs))
	// Output:
	// [0.90453403 -0.32961713 0.30151134 0.75341057 0.30151134 0.2354408 0 0.51796977]
	// [3.31662479 1.80906807 0 1.9306146]
}

// The least-squares solution of a 4 x 2 system, as
// numpy.linalg.lstsq(a, b): x, the squared residual, the rank and the
// singular values.
func ExampleLstsq() {
	world := mpi.World()
	m := []float64{3, 1, 1, 2, 1, 1, 0, 1}
	a, _ := dist.FromFunc(world, []int{4, 2}, func(i []int) float64 { return m[2*i[0]+i[1]] })
	bv := []float64{1, 2, 2, 3}
	b, _ := dist.FromFunc(world, []int{4}, func(i []int) float64 { return bv[i[0]] })
	res, err := linalg.Lstsq(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	x, _ := dist.Allgather(res.X)
	fmt.Println(rounded(x), rounded(res.Residuals), res.Rank, rounded(res.S))
	// Output:
	// [-0.26829268 1.65853659] [3.29268293] 2 [3.91465903 1.63567866]
}

// Norms of [[1, -2, 3], [-4, 5, -6]] split by rows, as numpy.linalg.norm:
// Frobenius, the max column sum (ord 1), the max row sum (ord inf), the
// 1-norm of each row (axis 1) and the largest singular value (ord 2).
func ExampleNorm() {
	world := mpi.World()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(i []int) float64 {
		k := 3*i[0] + i[1] + 1
		if k%2 == 0 {
			return float64(-k)
		}
		return float64(k)
	})
	for _, tc := range []struct {
		ord  linalg.Ord
		axes []int
	}{{linalg.OrdDefault, nil}, {linalg.OrdP(1), nil}, {linalg.OrdP(math.Inf(1)), nil}, {linalg.OrdP(1), []int{1}}, {linalg.OrdP(2), nil}} {
		y, err := linalg.Norm(x, tc.ord, tc.axes...)
		if err != nil {
			fmt.Println(err)
			return
		}
		v, _ := dist.Allgather(y)
		fmt.Println(tc.ord, tc.axes, rounded(v))
		y.Free()
	}
	// Output:
	// None [] [9.53939201]
	// 1 [] [9]
	// +Inf [] [15]
	// 1 [1] [6 15]
	// 2 [] [9.508032]
}

// Norms of the complex vector [3+4i, 0, 1i], as numpy.linalg.norm: of the
// moduli, in float64.
func ExampleNormComplex() {
	world := mpi.World()
	v := []complex128{3 + 4i, 0, 1i}
	x, _ := dist.FromFunc(world, []int{3}, func(i []int) complex128 { return v[i[0]] })
	for _, ord := range []linalg.Ord{linalg.OrdDefault, linalg.OrdP(math.Inf(1)), linalg.OrdP(0)} {
		y, err := linalg.NormComplex[float64](x, ord)
		if err != nil {
			fmt.Println(err)
			return
		}
		n, _ := dist.Allgather(y)
		fmt.Println(ord, rounded(n))
		y.Free()
	}
	// Output:
	// None [5.09901951]
	// +Inf [5]
	// 0 [2]
}
