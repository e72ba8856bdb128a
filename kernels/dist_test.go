package kernels_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/fakecudatest"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// heatKernel is one explicit step of the 2-D heat equation on a block of a
// dist array: un (the block, rows x cols) from u (the ghosted storage,
// gr and gc ghost indices on each side), global Dirichlet boundaries
// (the global edges keep their values), at any layout: the offsets say
// where the block lies.
var heatKernel = kernels.MustNew(kernels.Spec{
	Name: "heatstep",
	Doc:  "one explicit heat step of a dist block (tests of LaunchDist)",
	CUDA: `extern "C" __global__ void heatstep(T *un, const T *u, long long rows, long long cols,
	long long row0, long long col0, long long nrows, long long ncols, long long gr, long long gc, T r)
{
	long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= rows * cols) {
		return;
	}
	long long i = k / cols, j = k % cols, gi = row0 + i, gj = col0 + j;
	long long w = cols + 2 * gc;
	const T *c = u + (i + gr) * w + (j + gc);
	if (gi == 0 || gi == nrows - 1 || gj == 0 || gj == ncols - 1) {
		un[k] = c[0];
		return;
	}
	T lap = c[-w] + c[w] + c[-1] + c[1] - (T)4 * c[0];
	un[k] = c[0] + r * lap;
}`,
	Types:  []backend.DType{backend.Float32, backend.Float64},
	Parity: []kernels.ParityCase{{Name: "one ghosted block 6x5", Make: heatCase}},
	Host: func(c *kernels.HostCall) error {
		if c.DType() == backend.Float32 {
			heatHost[float32](c)
		} else {
			heatHost[float64](c)
		}
		return nil
	},
})

// heatCase is one block of 6 x 5 with a ghost row on each side, its
// global grid 8 x 5 (the block is rows 1-6).
func heatCase(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
	const rows, cols = 6, 5
	vs := make([]float64, (rows+2)*cols)
	for i := range vs {
		vs[i] = heatInit[float64](i/cols, i%cols, cols)
	}
	if dt == backend.Float32 {
		u, err := kernels.NewArray[float32](b, vs)
		if err != nil {
			return nil, kernels.Config{}, err
		}
		un, err := backend.NewOn[float32](b, rows*cols)
		return []kernels.Arg{kernels.Array(un), kernels.Array(u), kernels.Int(rows), kernels.Int(cols), kernels.Int(1), kernels.Int(0),
			kernels.Int(rows + 2), kernels.Int(cols), kernels.Int(1), kernels.Int(0), kernels.Scalar(float32(0.2))}, kernels.Config{Block: kernels.Dim3{X: 8}}, err
	}
	u, err := kernels.NewArray[float64](b, vs)
	if err != nil {
		return nil, kernels.Config{}, err
	}
	un, err := backend.NewOn[float64](b, rows*cols)
	return []kernels.Arg{kernels.Array(un), kernels.Array(u), kernels.Int(rows), kernels.Int(cols), kernels.Int(1), kernels.Int(0),
		kernels.Int(rows + 2), kernels.Int(cols), kernels.Int(1), kernels.Int(0), kernels.Scalar(0.2)}, kernels.Config{Block: kernels.Dim3{X: 8}}, err
}

func heatHost[T float32 | float64](c *kernels.HostCall) {
	un, u := kernels.Out[T](c, 0), kernels.In[T](c, 1)
	rows, cols := kernels.IntAt(c, 2), kernels.IntAt(c, 3)
	row0, col0, nrows, ncols := kernels.IntAt(c, 4), kernels.IntAt(c, 5), kernels.IntAt(c, 6), kernels.IntAt(c, 7)
	gr, gc := kernels.IntAt(c, 8), kernels.IntAt(c, 9)
	r := kernels.ScalarAt[T](c, 10)
	w := cols + 2*gc
	for i := range rows {
		for j := range cols {
			at := (i+gr)*w + j + gc
			gi, gj := row0+i, col0+j
			if gi == 0 || gi == nrows-1 || gj == 0 || gj == ncols-1 {
				un[i*cols+j] = u[at]
				continue
			}
			lap := u[at-w] + u[at+w] + u[at-1] + u[at+1] - T(4)*u[at]
			un[i*cols+j] = u[at] + T(r*lap) // the product rounded: CUDA's --fmad=false
		}
	}
}

// heatSerial is the same steps on the whole grid, in Go.
func heatSerial[T float32 | float64](u0 []T, rows, cols, steps int, r T) []T {
	u, un := append([]T(nil), u0...), make([]T, len(u0))
	for range steps {
		for i := range rows {
			for j := range cols {
				k := i*cols + j
				if i == 0 || i == rows-1 || j == 0 || j == cols-1 {
					un[k] = u[k]
					continue
				}
				lap := u[k-cols] + u[k+cols] + u[k-1] + u[k+1] - T(4)*u[k]
				un[k] = u[k] + T(r*lap)
			}
		}
		u, un = un, u
	}
	return u
}

// heatLayouts are the ghosted layouts of the tests: row blocks, uneven
// row blocks with an empty one, and a process grid.
func heatLayouts(c mpi.Comm, rows int) []heatLayout {
	p := c.Size()
	uneven := make([]int, p)
	uneven[p-1] = rows // everything on the last rank, the others empty
	if p > 1 {
		uneven[0], uneven[p-1] = 3, rows-3
	}
	return []heatLayout{
		{"rows", []dist.Option{dist.Ghosts(1)}},
		{"uneven", []dist.Option{dist.Ghosts(1), dist.BlockSizes(uneven)}},
		{"grid", []dist.Option{dist.Ghosts(1), dist.ProcessGrid(0, 0)}},
	}
}

// heatLayout is a named layout (a slice, not a map: every rank must take
// them in one order).
type heatLayout struct {
	name string
	opts []dist.Option
}

// runHeat runs steps of heatKernel by LaunchDist on a rows x cols array
// laid out by opts on b, and returns the gathered result on every rank.
func runHeat[T float32 | float64](t *testing.T, c mpi.Comm, b backend.Backend, rows, cols, steps int, r T, opts []dist.Option) []T {
	t.Helper()
	opts = append(append([]dist.Option(nil), opts...), dist.OnBackend(b))
	u, err := dist.FromFunc[T](c, []int{rows, cols}, func(idx []int) T { return heatInit[T](idx[0], idx[1], cols) }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	un, err := dist.ZerosLike(u)
	if err != nil {
		t.Fatal(err)
	}
	defer un.Free()
	for range steps {
		if err := u.Exchange(); err != nil {
			t.Fatal(err)
		}
		err := heatKernel.CallDist(kernels.Dist(un), kernels.DistGhosted(u),
			kernels.DistShape(un, 0), kernels.DistShape(un, 1), kernels.DistOffset(un, 0), kernels.DistOffset(un, 1),
			kernels.Int(rows), kernels.Int(cols), kernels.DistGhosts(u, 0), kernels.DistGhosts(u, 1), kernels.Scalar(r))
		if err != nil {
			t.Fatal(err)
		}
		u, un = un, u
	}
	all, err := dist.Gather(u, 0)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func heatInit[T float32 | float64](i, j, cols int) T {
	return T(math.Sin(0.3*float64(i)) + math.Cos(0.7*float64(j)) + float64((i*cols+j)%7)/8)
}

// TestLaunchDist runs a user stencil kernel over dist arrays at every
// rank count (1-4 with the mpi build) on the ghosted layouts (row blocks,
// uneven blocks with empty ones, a process grid) on the CPU and the fake
// device (a recorded host fallback on host-addressable memory), and
// compares with the serial steps bit for bit, for float32 and float64.
func TestLaunchDist(t *testing.T) {
	c := mpitest.World(t)
	const rows, cols, steps = 11, 7, 5
	for _, be := range []backend.Backend{backendCPU(t), fakedev.Default} {
		for _, l := range heatLayouts(c, rows) {
			name, opts := l.name, l.opts
			t.Run(fmt.Sprintf("%s/%s", be.Name(), name), func(t *testing.T) {
				want64 := heatSerial(heatInitGrid[float64](rows, cols), rows, cols, steps, 0.2)
				got64 := runHeat[float64](t, c, be, rows, cols, steps, 0.2, opts)
				want32 := heatSerial(heatInitGrid[float32](rows, cols), rows, cols, steps, 0.2)
				got32 := runHeat[float32](t, c, be, rows, cols, steps, 0.2, opts)
				if c.Rank() != 0 {
					return
				}
				if err := kerneltest.Compare(want64, got64, 0); err != nil {
					t.Errorf("float64: %v", err)
				}
				if err := kerneltest.Compare(want32, got32, 0); err != nil {
					t.Errorf("float32: %v", err)
				}
			})
		}
	}
}

func heatInitGrid[T float32 | float64](rows, cols int) []T {
	out := make([]T, rows*cols)
	for i := range rows {
		for j := range cols {
			out[i*cols+j] = heatInit[T](i, j, cols)
		}
	}
	return out
}

func backendCPU(t *testing.T) backend.Backend {
	b, err := backend.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// offsetKernel writes each element's global row-major index, from the
// block's shape and offsets: every layout kind, ghosts or not, replicated.
var offsetKernel = kernels.MustNew(kernels.Spec{
	Name: "globalindex",
	CUDA: `extern "C" __global__ void globalindex(long long *out, long long rows, long long cols, long long row0, long long col0, long long ncols)
{
	long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < rows * cols) {
		out[k] = (row0 + k / cols) * ncols + col0 + k % cols;
	}
}`,
	Host: func(c *kernels.HostCall) error {
		out := kernels.Out[int64](c, 0)
		rows, cols, row0, col0, ncols := kernels.IntAt(c, 1), kernels.IntAt(c, 2), kernels.IntAt(c, 3), kernels.IntAt(c, 4), kernels.IntAt(c, 5)
		for k := range rows * cols {
			out[k] = int64((row0+k/cols)*ncols + col0 + k%cols)
		}
		return nil
	},
})

// TestLaunchDistOffsets checks the block shapes and global offsets that
// LaunchDist passes on every layout kind (row blocks, columns, uneven with
// empty blocks, fewer rows than ranks, a process grid, ghosted,
// replicated) on the CPU and the fake device.
func TestLaunchDistOffsets(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	uneven := make([]int, p)
	uneven[p-1] = 5
	if p > 1 {
		uneven[0], uneven[p-1] = 2, 3
	}
	layouts := []struct {
		name  string
		shape []int
		opts  []dist.Option
	}{
		{"rows", []int{5, 3}, nil},
		{"columns", []int{3, 5}, []dist.Option{dist.SplitAxis(1)}},
		{"uneven", []int{5, 3}, []dist.Option{dist.BlockSizes(uneven)}},
		{"few rows", []int{1, 4}, nil},
		{"grid", []int{5, 6}, []dist.Option{dist.ProcessGrid(0, 0)}},
		{"ghosted", []int{6, 3}, []dist.Option{dist.Ghosts(2)}},
		{"grid ghost", []int{4, 5}, []dist.Option{dist.ProcessGrid(0, 0), dist.Ghosts(1)}},
		{"replicated", []int{2, 3}, []dist.Option{dist.SplitAxis(dist.Replicated)}},
	}
	for _, be := range []backend.Backend{backendCPU(t), fakedev.Default} {
		for _, l := range layouts {
			t.Run(be.Name()+"/"+l.name, func(t *testing.T) {
				a, err := dist.Zeros[int64](c, l.shape, append(l.opts, dist.OnBackend(be))...)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Free()
				if err := offsetKernel.CallDist(kernels.Dist(a), kernels.DistShape(a, 0), kernels.DistShape(a, -1),
					kernels.DistOffset(a, 0), kernels.DistOffset(a, 1), kernels.Int(l.shape[1])); err != nil {
					t.Fatal(err)
				}
				got, err := dist.Gather(a, 0)
				if err != nil {
					t.Fatal(err)
				}
				if c.Rank() == 0 {
					for i, v := range got {
						if v != int64(i) {
							t.Fatalf("element %d holds %d", i, v)
						}
					}
				}
			})
		}
	}
}

// TestLaunchDistErrors: the argument checks of Launch apply (a wrong
// element type names the argument), a freed dist array is an *ArgError
// wrapping dist.ErrFreed, an axis out of range and the ghosted storage of
// a grid array for a written parameter are refused, a dist argument in
// Launch is refused naming LaunchDist, and the fake device's fallback is
// recorded with package profiling.
func TestLaunchDistErrors(t *testing.T) {
	c := mpitest.World(t)
	a, err := dist.Zeros[int64](c, []int{4, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	f, err := dist.Zeros[float64](c, []int{4, 3})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Free()
	args := func(out kernels.Arg, axis int) []kernels.Arg {
		return []kernels.Arg{out, kernels.DistShape(a, 0), kernels.DistShape(a, axis), kernels.DistOffset(a, 0), kernels.DistOffset(a, 1), kernels.Int(3)}
	}
	var ae *kernels.ArgError
	err = offsetKernel.LaunchDist(kernels.Config{}, args(kernels.Dist(f), 1)...)
	if !errors.As(err, &ae) || ae.Index != 0 || !strings.Contains(err.Error(), "float64") {
		t.Errorf("a float64 block for long long *: %v", err)
	}
	err = offsetKernel.LaunchDist(kernels.Config{}, args(kernels.Dist(a), 2)...)
	if !errors.As(err, &ae) || ae.Index != 2 || !strings.Contains(err.Error(), "axis 2 of a 2-dimensional array") {
		t.Errorf("axis 2: %v", err)
	}
	err = offsetKernel.Launch(kernels.Config{}, args(kernels.Dist(a), 1)...)
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "needs LaunchDist") {
		t.Errorf("Launch with dist arguments: %v", err)
	}
	g, err := dist.Zeros[int64](c, []int{4, 3}, dist.ProcessGrid(0, 0), dist.Ghosts(1))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Free()
	err = offsetKernel.CallDist(append([]kernels.Arg{kernels.DistGhosted(g)}, args(kernels.Dist(a), 1)[1:]...)...)
	if !errors.As(err, &ae) || ae.Index != 0 || !strings.Contains(err.Error(), "process grid") {
		t.Errorf("the ghosted storage of a grid array, written: %v", err)
	}
	// The fallback on the fake device is recorded.
	d, err := dist.Zeros[int64](c, []int{4, 3}, dist.OnBackend(fakedev.Default))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free()
	err = profiling.AssertNoTransfers(func() error {
		return offsetKernel.CallDist(kernels.Dist(d), kernels.DistShape(d, 0), kernels.DistShape(d, 1), kernels.DistOffset(d, 0), kernels.DistOffset(d, 1), kernels.Int(3))
	})
	if d.LocalShape()[0] > 0 && (err == nil || !strings.Contains(err.Error(), "kernels.globalindex host fallback on fake:0")) {
		t.Errorf("the fallback on the fake device is not recorded: %v", err)
	}
	b, _ := dist.Zeros[int64](c, []int{4, 3})
	b.Free()
	err = offsetKernel.CallDist(kernels.Dist(b), kernels.DistShape(a, 0), kernels.DistShape(a, 1), kernels.DistOffset(a, 0), kernels.DistOffset(a, 1), kernels.Int(3))
	if !errors.As(err, &ae) || !errors.Is(err, dist.ErrFreed) {
		t.Errorf("a freed dist array: %v", err)
	}
}

// TestLaunchDistEmulated runs TestLaunchDist's stencil by LaunchDist on
// a CUDA device: the GPU where there is one, else the fake CUDA driver (one
// rank, in a child process; the default build without -short). The CUDA
// kernel runs on the blocks of CUDA arrays, compared with the serial
// steps bit for bit.
func TestLaunchDistEmulated(t *testing.T) {
	dev := kerneltest.Emulate(t, heatKernel)
	if dev == nil {
		return
	}
	c := mpitest.World(t)
	const rows, cols, steps = 11, 7, 5
	for _, l := range heatLayouts(c, rows) {
		if l.name == "grid" && fakecudatest.InChild() {
			continue // grid ghosts pack boxes with kernels the fake driver is not built with
		}
		got := runHeat[float64](t, c, dev, rows, cols, steps, 0.2, l.opts)
		want := heatSerial(heatInitGrid[float64](rows, cols), rows, cols, steps, 0.2)
		if c.Rank() == 0 {
			if err := kerneltest.Compare(want, got, 0); err != nil {
				t.Errorf("%s: %v", l.name, err)
			}
		}
	}
}
