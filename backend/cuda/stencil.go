package cuda

import (
	_ "embed"
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CUDA backend applies dist's weighted stencils (Stencil9, Stencil7)
// and its fused Laplacian and dot (Laplace5Dot) on its device, as a
// driver.WeightedStencils and a driver.StencilDots, with the kernels of
// stencil.cu, so that dist.Stencil9, dist.Stencil7 and dist.Laplace5Dot of
// CUDA arrays stay on the device. The results are the CPU backend's bit
// for bit: the weights are rounded to the grid's type, every product is
// rounded before it is added (no fused multiply-add), the stencils' terms
// are added in the order of the weights, and Laplace5Dot's sum takes the
// order driver.StencilDots documents (16 lanes per row combined in a
// fixed tree, the rest of the row in order, the rows' sums in row order).
var (
	_ driver.WeightedStencils = (*Backend)(nil)
	_ driver.StencilDots      = (*Backend)(nil)
)

// stencilSource is stencil.cu, which KernelSource appends after gemm.cu.
//
//go:embed stencil.cu
var stencilSource string

// lapdotRows is the number of rows of a block of Laplace5Dot
// (stencil.cu's XP_LAPDOT_ROWS), and lapdotLanes its threads per row
// (XP_LANES, the lanes of driver.StencilDots).
const (
	lapdotRows  = 16
	lapdotLanes = 16
)

// stencilEntries returns the names of the entries of stencil.cu.
func stencilEntries() []string {
	var out []string
	for _, dt := range []backend.DType{backend.Float32, backend.Float64} {
		for _, op := range []string{"stencil9", "stencil7", "lapdot"} {
			out = append(out, kernelName(op, dt))
		}
	}
	return append(out, "xp_rowsums_f64")
}

// Stencil9 applies the 9-point stencil with weights w (see
// driver.WeightedStencils) to a rows x cols row-major float32 or float64
// grid on the device, one thread per interior point: the CPU backend's
// bits. It panics as Jacobi5 does.
func (b *Backend) Stencil9(dst, src driver.Buffer, rows, cols int, w [9]float64) {
	d, s := b.checkGrid("Stencil9", dst, src, rows, cols)
	if rows < 3 || cols < 3 {
		return
	}
	args := (&Args{}).Int64(int64(rows)).Int64(int64(cols)).Buffer(d).Buffer(s)
	for _, v := range w {
		args.Float64(v)
	}
	b.launch("Stencil9", kernelName("stencil9", d.DT), jacobiGrid(rows, cols), Dim3{X: jacobiBX, Y: jacobiBY}, args)
}

// Stencil7 applies the 7-point 3-D stencil with weights w (see
// driver.WeightedStencils) to an n0 x n1 x n2 row-major float32 or
// float64 grid on the device, one thread per interior point: the CPU
// backend's bits. It panics as Jacobi5 does.
func (b *Backend) Stencil7(dst, src driver.Buffer, n0, n1, n2 int, w [7]float64) {
	if n2 < 0 {
		panic(fmt.Sprintf("cuda: Stencil7 of a %d x %d x %d grid", n0, n1, n2))
	}
	d, s := b.checkGrid("Stencil7", dst, src, n0, n1*n2)
	if n0 < 3 || n1 < 3 || n2 < 3 {
		return
	}
	args := (&Args{}).Int64(int64(n0)).Int64(int64(n1)).Int64(int64(n2)).Buffer(d).Buffer(s)
	for _, v := range w {
		args.Float64(v)
	}
	// The (n0-2)*(n1-2) interior lines of n2 elements, as Jacobi5's rows.
	grid := jacobiGrid((n0-2)*(n1-2)+2, n2)
	b.launch("Stencil7", kernelName("stencil7", d.DT), grid, Dim3{X: jacobiBX, Y: jacobiBY}, args)
}

// Laplace5Dot applies Laplace5 to a rows x cols row-major float32 or
// float64 grid on the device and returns the sum of src*dst over the rows
// 1 to rows-2, every column, with dst's values after the stencil, in
// float64, in the order of driver.StencilDots: the CPU backend's bits.
// A block of 16 x 16 threads takes 16 rows, the 16 threads of a row its
// 16 lanes; one thread adds the rows' sums in order. The sum comes back to
// the host (8 bytes), after the work queued before. It panics as Jacobi5
// does.
func (b *Backend) Laplace5Dot(dst, src driver.Buffer, rows, cols int) float64 {
	d, s := b.checkGrid("Laplace5Dot", dst, src, rows, cols)
	if rows < 3 {
		return 0
	}
	inner := rows - 2
	t := b.temp("Laplace5Dot", backend.Float64, inner+1)
	defer b.Free(t)
	sums, out := b.Slice(t, 0, inner), b.Slice(t, inner, inner+1)
	groups := (inner + lapdotRows - 1) / lapdotRows
	b.launch("Laplace5Dot", kernelName("lapdot", d.DT), Dim3{X: min(groups, 65535)}, Dim3{X: lapdotLanes, Y: lapdotRows},
		(&Args{}).Int64(int64(rows)).Int64(int64(cols)).Buffer(d).Buffer(s).Buffer(sums))
	b.launch("Laplace5Dot", "xp_rowsums_f64", Dim3{X: 1}, Dim3{X: 1}, (&Args{}).Int64(int64(inner)).Buffer(sums).Buffer(out))
	var r [1]uint64
	b.read("Laplace5Dot", r[:], out)
	return math.Float64frombits(r[0])
}
