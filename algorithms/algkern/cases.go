package algkern

import (
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// The parity cases of the kernels: what kerneltest and `xpmpi kernels
// --parity` run on the host and on a device, comparing every array bit
// for bit.

// arrayArg returns an array of element type dt on b holding vs (converted
// as kernels.NewArray converts), as a kernel argument.
func arrayArg(b backend.Backend, dt backend.DType, vs []float64) (kernels.Arg, error) {
	switch dt {
	case backend.Float32:
		a, err := kernels.NewArray[float32](b, vs)
		return kernels.Array(a), err
	case backend.Float64:
		a, err := kernels.NewArray[float64](b, vs)
		return kernels.Array(a), err
	case backend.Int32:
		a, err := kernels.NewArray[int32](b, vs)
		return kernels.Array(a), err
	case backend.Int64:
		a, err := kernels.NewArray[int64](b, vs)
		return kernels.Array(a), err
	case backend.Uint32:
		a, err := kernels.NewArray[uint32](b, vs)
		return kernels.Array(a), err
	case backend.Uint64:
		a, err := kernels.NewArray[uint64](b, vs)
		return kernels.Array(a), err
	case backend.Uint8:
		a, err := kernels.NewArray[uint8](b, vs)
		return kernels.Array(a), err
	}
	panic("algkern: no parity arrays of " + dt.String())
}

// args collects kernel arguments and the first error of making them.
type args struct {
	b   backend.Backend
	out []kernels.Arg
	err error
}

func (a *args) add(x kernels.Arg) { a.out = append(a.out, x) }

func (a *args) array(dt backend.DType, vs []float64) {
	if a.err != nil {
		return
	}
	x, err := arrayArg(a.b, dt, vs)
	if err != nil {
		a.err = err
		return
	}
	a.add(x)
}

// coords returns n coordinates on the axis [lower, upper] (either order)
// for parity cases: points inside and outside the box, on cell
// boundaries of 2^levels cells (exact for dyadic bounds), on the bounds,
// NaN, and infinities.
func coords(n int, lower, upper float64, levels int, salt int) []float64 {
	xs := make([]float64, n)
	span := upper - lower
	cells := math.Ldexp(1, levels)
	for i := range xs {
		f := math.Mod(float64(i+salt)*0.6180339887498949, 1)
		switch (i + salt) % 13 {
		case 0:
			xs[i] = math.NaN()
		case 1:
			xs[i] = math.Inf(1)
		case 2:
			xs[i] = math.Inf(-1)
		case 3: // on a cell boundary
			xs[i] = lower + span*math.Floor(f*cells)/cells
		case 4:
			xs[i] = upper
		case 5:
			xs[i] = lower
		case 6: // just inside the upper bound
			xs[i] = math.Nextafter(upper, lower)
		default: // in [lower - span/4, upper + span/4)
			xs[i] = lower - span/4 + 1.5*span*f
		}
	}
	return xs
}

// mortonCases are the parity cases of the Morton kernel of dims axes.
func mortonCases(dims int) []kernels.ParityCase {
	maxLevels := 32
	if dims == 3 {
		maxLevels = 21
	}
	mk := func(name string, n, levels int, lower, upper [3]float64) kernels.ParityCase {
		return kernels.ParityCase{Name: name, Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
			a := &args{b: b}
			a.add(kernels.Int(n))
			a.add(kernels.Scalar(int32(levels)))
			for ax := range dims {
				a.add(kernels.Float(lower[ax]))
				a.add(kernels.Float(upper[ax]))
			}
			for ax := range dims {
				a.array(dt, coords(n, lower[ax], upper[ax], levels, 5*ax))
			}
			a.array(backend.Uint64, make([]float64, n))
			return a.out, kernels.Config{N: n}, a.err
		}}
	}
	return []kernels.ParityCase{
		mk("1001 points: boundaries, outside, NaN and infinities", 1001, 10, [3]float64{-1, 0.5, -8}, [3]float64{2, 3, 8}),
		mk("257 points, reversed second axis, most levels", 257, maxLevels, [3]float64{0, 1, -0.5}, [3]float64{1, -1, 0.25}),
		mk("levels 0", 33, 0, [3]float64{0, 0, 0}, [3]float64{1, 1, 1}),
		mk("one point", 1, 3, [3]float64{0, 0, 0}, [3]float64{1, 1, 1}),
		mk("empty", 0, 4, [3]float64{0, 0, 0}, [3]float64{1, 1, 1}),
	}
}
