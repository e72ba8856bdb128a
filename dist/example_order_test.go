package dist_test

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// The distinct values of an array, as NumPy's unique: sorted, the NaNs
// collapsed to one at the end, with their counts and the inverse index
// (which has the input's shape and layout).
func ExampleUnique() {
	world := mpi.World()
	data := []float64{3, 1, math.NaN(), 2, 3, 1, math.NaN(), 3}
	x, _ := dist.FromFunc(world, []int{2, 4}, func(idx []int) float64 { return data[idx[0]*4+idx[1]] })
	u, _ := dist.Unique(x)
	vals, _ := dist.Allgather(u)
	fmt.Println(vals)
	r, _ := dist.UniqueWithOptions(x, dist.UniqueOptions{Counts: true, Inverse: true})
	counts, _ := dist.Allgather(r.Counts)
	inverse, _ := dist.Allgather(r.Inverse)
	fmt.Println(counts)
	fmt.Println(r.Inverse.Shape(), inverse)
	// Output:
	// [1 2 3 NaN]
	// [2 1 3 2]
	// [2 4] [2 0 3 1 2 0 3 2]
}

// The indices that sort each row (axis -1, NumPy's default) and each
// column (axis 0) of a matrix split into row blocks; NaNs sort last.
func ExampleArgsort() {
	world := mpi.World()
	data := []float64{3, 1, 2, math.NaN(), 0, 5}
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) float64 { return data[idx[0]*3+idx[1]] })
	rows, _ := dist.Argsort(x, -1)
	cols, _ := dist.Argsort(x, 0)
	r, _ := dist.Allgather(rows)
	c, _ := dist.Allgather(cols)
	fmt.Println(r)
	fmt.Println(c)
	// Output:
	// [1 2 0 1 2 0]
	// [0 1 0 1 0 1]
}

// Where values would go in a sorted distributed array, as NumPy's
// searchsorted: before equal elements (SideLeft) or after them
// (SideRight).
func ExampleSearchsorted() {
	world := mpi.World()
	sorted := []int32{1, 2, 2, 2, 5, 8}
	a, _ := dist.FromFunc(world, []int{len(sorted)}, func(idx []int) int32 { return sorted[idx[0]] })
	vals := []int32{0, 2, 6, 9}
	v, _ := dist.FromFunc(world, []int{len(vals)}, func(idx []int) int32 { return vals[idx[0]] })
	left, _ := dist.Searchsorted(a, v, dist.SideLeft)
	right, _ := dist.Searchsorted(a, v, dist.SideRight)
	l, _ := dist.Allgather(left)
	r, _ := dist.Allgather(right)
	fmt.Println(l, r)
	// Output:
	// [0 1 5 6] [0 4 5 6]
}

// The median of all elements, and along an axis.
func ExampleMedian() {
	world := mpi.World()
	x, _ := dist.FromFunc(world, []int{2, 3}, func(idx []int) int64 { return int64(idx[0]*10 + idx[1]*idx[1]) })
	m, _ := dist.Median(x) // of 0 1 4 10 11 14
	cols, _ := dist.MedianAxis(x, 0)
	c, _ := dist.Allgather(cols)
	fmt.Println(m, c)
	// Output:
	// 7 [5 6 9]
}

// Percentiles and quantiles with NumPy's default linear interpolation and
// the other cheap methods.
func ExamplePercentile() {
	world := mpi.World()
	x, _ := dist.Arange(world, 1.0, 11.0, 1.0) // 1 ... 10
	p, _ := dist.Percentile(x, 25, dist.QuantileLinear)
	lower, _ := dist.Quantile(x, 0.25, dist.QuantileLower)
	qs, _ := dist.Quantiles(x, []float64{0, 0.5, 1}, "")
	_, err := dist.Quantile(x, 0.5, "hazen")
	fmt.Println(p, lower, qs)
	fmt.Println(err)
	// Output:
	// 3.25 3 [1 5.5 10]
	// dist: Quantile with method "hazen": not supported; use linear (NumPy's default), lower, higher, nearest or midpoint
}

// Quantiles along an axis of a matrix on a process grid: the matrix is
// redistributed so that every rank holds whole columns, not gathered.
func ExampleQuantileAxis() {
	world := mpi.World()
	x, _ := dist.FromFunc(world, []int{4, 2}, func(idx []int) float64 { return float64(idx[0] * (idx[1] + 1)) }, dist.ProcessGrid(0, 0))
	q, _ := dist.QuantileAxis(x, 0.5, 0, dist.QuantileLinear)
	p, _ := dist.PercentileAxis(x, 100, -2, "")
	a, _ := dist.Allgather(q)
	b, _ := dist.Allgather(p)
	fmt.Println(a, b)
	// Output:
	// [1.5 3] [3 6]
}

// The NaN-ignoring forms, as NumPy's nanmedian and nanpercentile.
func ExampleNanMedian() {
	world := mpi.World()
	data := []float64{4, math.NaN(), 1, 3, math.NaN()}
	x, _ := dist.FromFunc(world, []int{len(data)}, func(idx []int) float64 { return data[idx[0]] })
	m, _ := dist.Median(x)
	nm, _ := dist.NanMedian(x)
	np, _ := dist.NanPercentile(x, 50, "")
	fmt.Println(m, nm, np)
	// Output:
	// NaN 3 3
}
