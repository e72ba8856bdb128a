package algkern

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// Float is the set of coordinate types of MortonKeys2 and MortonKeys3.
type Float interface {
	float32 | float64
}

// mortonSource is the CUDA source of morton_keys2 and
// morton_keys3: one thread per point (a grid-stride loop), the
// coordinate converted to double and its cell computed by
// xpmpi/cell.cuh's xpmpi_cell_index (algorithms.CellIndex), the key by
// xpmpi/morton.cuh (algorithms.Morton2, Morton3).
const mortonSource = `#include "xpmpi/cell.cuh"
#include "xpmpi/morton.cuh"

extern "C" __global__ void morton_keys2(long long n, int levels, double lx, double ux, double ly, double uy,
	const T *x, const T *y, unsigned long long *__restrict__ keys)
{
	double scale = xpmpi_cell_scale(levels);
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		keys[i] = xpmpi_morton2(xpmpi_cell_index((double)x[i], lx, ux, scale),
			xpmpi_cell_index((double)y[i], ly, uy, scale));
	}
}

extern "C" __global__ void morton_keys3(long long n, int levels, double lx, double ux, double ly, double uy,
	double lz, double uz, const T *x, const T *y, const T *z, unsigned long long *__restrict__ keys)
{
	double scale = xpmpi_cell_scale(levels);
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
		keys[i] = xpmpi_morton3(xpmpi_cell_index((double)x[i], lx, ux, scale),
			xpmpi_cell_index((double)y[i], ly, uy, scale),
			xpmpi_cell_index((double)z[i], lz, uz, scale));
	}
}
`

// floatTypes are the variants of the coordinate kernels.
var floatTypes = []backend.DType{backend.Float32, backend.Float64}

// The Morton key kernels, registered in kernels.Default.
var (
	mortonKeys2Kernel = kernels.MustNew(kernels.Spec{
		Name:   "morton_keys2",
		Doc:    "2-D Morton keys of points in a box (algkern.MortonKeys2, algorithms.MortonKeys2)",
		CUDA:   mortonSource,
		Host:   mortonKeys2Host,
		Types:  floatTypes,
		Parity: mortonCases(2),
	})
	mortonKeys3Kernel = kernels.MustNew(kernels.Spec{
		Name:   "morton_keys3",
		Doc:    "3-D Morton keys of points in a box (algkern.MortonKeys3, algorithms.MortonKeys3)",
		CUDA:   mortonSource,
		Host:   mortonKeys3Host,
		Types:  floatTypes,
		Parity: mortonCases(3),
	})
)

// chunk is the number of float32 coordinates the host implementations
// convert to float64 at a time.
const chunk = 1024

// toFloat64 returns s as float64 values: s itself for float64, else
// converted into buf (of at least len(s) elements).
func toFloat64[F Float](s []F, buf []float64) []float64 {
	if d, ok := any(s).([]float64); ok {
		return d
	}
	buf = buf[:len(s)]
	for i, v := range s {
		buf[i] = float64(v)
	}
	return buf
}

// mortonKeysHost is the host implementation of both Morton kernels for
// coordinates of type F: algorithms.MortonKeys2 or MortonKeys3 on the
// coordinates converted to float64, a chunk at a time.
func mortonKeysHost[F Float](c *kernels.HostCall, dims int) error {
	n, levels := kernels.IntAt(c, 0), int(kernels.ScalarAt[int32](c, 1))
	var lower, upper [3]float64
	for a := range dims {
		lower[a], upper[a] = kernels.ScalarAt[float64](c, 2+2*a), kernels.ScalarAt[float64](c, 3+2*a)
	}
	first := 2 + 2*dims
	keys := kernels.Out[uint64](c, first+dims)[:n]
	var coords [3][]F
	for a := range dims {
		coords[a] = kernels.In[F](c, first+a)[:n]
	}
	var bufs [3][]float64
	for a := range bufs {
		bufs[a] = make([]float64, min(n, chunk))
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		var x [3][]float64
		for a := range dims {
			x[a] = toFloat64(coords[a][lo:hi], bufs[a])
		}
		if dims == 2 {
			algorithms.MortonKeys2(keys[lo:hi], x[0], x[1], [2]float64(lower[:2]), [2]float64(upper[:2]), levels)
		} else {
			algorithms.MortonKeys3(keys[lo:hi], x[0], x[1], x[2], lower, upper, levels)
		}
	}
	return nil
}

func mortonKeys2Host(c *kernels.HostCall) error {
	if c.DType() == backend.Float32 {
		return mortonKeysHost[float32](c, 2)
	}
	return mortonKeysHost[float64](c, 2)
}

func mortonKeys3Host(c *kernels.HostCall) error {
	if c.DType() == backend.Float32 {
		return mortonKeysHost[float32](c, 3)
	}
	return mortonKeysHost[float64](c, 3)
}

// checkBox panics unless levels is in [0, maxLevels] and every axis has
// finite, distinct bounds (algorithms' rule).
func checkBox(fn string, lower, upper []float64, levels, maxLevels int) {
	if levels < 0 || levels > maxLevels {
		panic(fmt.Sprintf("algkern: %s levels %d outside [0, %d]", fn, levels, maxLevels))
	}
	for a := range lower {
		l, u := lower[a], upper[a]
		if math.IsNaN(l) || math.IsInf(l, 0) || math.IsNaN(u) || math.IsInf(u, 0) || l == u {
			panic(fmt.Sprintf("algkern: %s bounds [%v, %v] of axis %d must be finite and distinct", fn, l, u, a))
		}
	}
}

// MortonKeys2 sets dst[i] to the 2-D Morton key of the point
// (xs[i], ys[i]) in the box [lower, upper] divided into 2^levels cells per
// axis, as algorithms.MortonKeys2 does for float64 coordinates (float32
// ones are converted to float64 first): the same bits on the host and on
// every device, with the cell rule of algorithms.CellIndex (points on a
// boundary go to the upper cell, points outside the box to the nearest
// edge cell, NaN to cell 0, lower > upper reverses an axis).
//
// It runs where its arrays are, through the kernel morton_keys2 of
// kernels.Default: on the host, algorithms.MortonKeys2; on a CUDA device,
// one thread per point (xpmpi/cell.cuh and xpmpi/morton.cuh); on a device
// that runs no CUDA code, the host implementation as package kernels
// falls back (recorded). It is not collective. It panics if the arrays
// differ in length, if levels is outside [0, algorithms.MaxLevels2], or if
// a bound pair is equal or not finite; an array on another device than
// the others, or a failed launch, is an error.
func MortonKeys2[F Float](dst *backend.Array[uint64], xs, ys *backend.Array[F], lower, upper [2]float64, levels int) error {
	n := dst.Len()
	if xs.Len() != n || ys.Len() != n {
		panic(fmt.Sprintf("algkern: MortonKeys2 lengths differ: dst %d, xs %d, ys %d", n, xs.Len(), ys.Len()))
	}
	checkBox("MortonKeys2", lower[:], upper[:], levels, algorithms.MaxLevels2)
	if n == 0 {
		return nil
	}
	return mortonKeys2Kernel.Launch(kernels.Config{N: n}, kernels.Int(n), kernels.Scalar(int32(levels)),
		kernels.Float(lower[0]), kernels.Float(upper[0]), kernels.Float(lower[1]), kernels.Float(upper[1]),
		kernels.Array(xs), kernels.Array(ys), kernels.Array(dst))
}

// MortonKeys3 sets dst[i] to the 3-D Morton key of the point
// (xs[i], ys[i], zs[i]) in the box [lower, upper] divided into 2^levels
// cells per axis, as algorithms.MortonKeys3 does for float64 coordinates:
// see MortonKeys2, of which it is the 3-D version (kernel
// morton_keys3). It is not collective. It panics if the arrays differ
// in length, if levels is outside [0, algorithms.MaxLevels3], or if a
// bound pair is equal or not finite.
func MortonKeys3[F Float](dst *backend.Array[uint64], xs, ys, zs *backend.Array[F], lower, upper [3]float64, levels int) error {
	n := dst.Len()
	if xs.Len() != n || ys.Len() != n || zs.Len() != n {
		panic(fmt.Sprintf("algkern: MortonKeys3 lengths differ: dst %d, xs %d, ys %d, zs %d", n, xs.Len(), ys.Len(), zs.Len()))
	}
	checkBox("MortonKeys3", lower[:], upper[:], levels, algorithms.MaxLevels3)
	if n == 0 {
		return nil
	}
	return mortonKeys3Kernel.Launch(kernels.Config{N: n}, kernels.Int(n), kernels.Scalar(int32(levels)),
		kernels.Float(lower[0]), kernels.Float(upper[0]), kernels.Float(lower[1]), kernels.Float(upper[1]),
		kernels.Float(lower[2]), kernels.Float(upper[2]),
		kernels.Array(xs), kernels.Array(ys), kernels.Array(zs), kernels.Array(dst))
}
