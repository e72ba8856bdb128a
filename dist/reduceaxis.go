package dist

import (
	"fmt"
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// axisLayout returns the layout of the result of reducing a along axis: the
// shape without that axis ([1] for a 1-D array), replicated if a is or if
// axis is the split axis, and otherwise split like a on the same blocks.
func axisLayout(l Layout, axis int) Layout {
	if axis < 0 || axis >= len(l.shape) {
		panic(fmt.Sprintf("dist: reduction along axis %d of shape %v", axis, l.shape))
	}
	shape := slices.Delete(slices.Clone(l.shape), axis, axis+1)
	if len(shape) == 0 {
		shape = []int{1}
	}
	if l.axis == Replicated || l.axis == axis {
		return NewLayout(shape, Replicated, l.ranks)
	}
	split := l.axis
	if axis < split {
		split--
	}
	return NewLayoutCounts(shape, split, l.counts)
}

// view3 returns the local block of a as [pre, n, post] around axis.
func view3(shape []int, axis int) (pre, n, post int) {
	return prod(shape[:axis]), shape[axis], prod(shape[axis+1:])
}

// combined reports whether reducing along axis combines the ranks' blocks.
func combined(l Layout, axis int) bool { return l.axis == axis }

// SumAxis returns the sums along axis: an array with that axis removed.
// Reducing along the split axis gives a replicated result.
func SumAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	return sumAxis(x, axis, false)
}

// NormAxis returns the 2-norms along axis.
func NormAxis[T backend.Float](x *Array[T], axis int) (*Array[T], error) {
	return sumAxis(x, axis, true)
}

// DotAxis returns the sums of x*y along axis.
func DotAxis[T backend.Element](x, y *Array[T], axis int) (*Array[T], error) {
	sameLayout("DotAxis", x, y)
	xy, err := ZerosLike(x)
	if err != nil {
		return nil, err
	}
	defer xy.Free()
	Mul(xy, x, y)
	return sumAxis(xy, axis, false)
}

func sumAxis[T backend.Element](x *Array[T], axis int, norm bool) (*Array[T], error) {
	if err := check("SumAxis", x, mpi.Arg{Name: "axis", Value: int64(axis)}, mpi.Arg{Name: "norm", Value: b2i(norm)}); err != nil {
		return nil, err
	}
	ol := axisLayout(x.layout, axis)
	out, err := New[T](x.comm, ol, x.local.Backend())
	if err != nil {
		return nil, err
	}
	host, err := x.localHost()
	if err != nil {
		return nil, err
	}
	pre, n, post := view3(x.LocalShape(), axis)
	m := pre * post
	res := make([]T, m)
	if backend.DTypeOf[T]().IsFloat() {
		acc := make([]float64, m)
		for i := 0; i < pre; i++ {
			for k := 0; k < n; k++ {
				row := host[(i*n+k)*post : (i*n+k+1)*post]
				a := acc[i*post : (i+1)*post]
				for j, v := range row {
					if norm {
						a[j] += float64(v) * float64(v)
					} else {
						a[j] += float64(v)
					}
				}
			}
		}
		if combined(x.layout, axis) {
			if err := mpi.AllreduceInPlace(x.comm, acc, mpi.Sum); err != nil {
				return nil, err
			}
		}
		for i, v := range acc {
			if norm {
				v = math.Sqrt(v)
			}
			res[i] = T(v)
		}
	} else {
		for i := 0; i < pre; i++ {
			for k := 0; k < n; k++ {
				row := host[(i*n+k)*post : (i*n+k+1)*post]
				a := res[i*post : (i+1)*post]
				for j, v := range row {
					a[j] += v
				}
			}
		}
		if combined(x.layout, axis) {
			if err := mpi.AllreduceInPlace(x.comm, res, mpi.Sum); err != nil {
				return nil, err
			}
		}
	}
	if len(res) == 0 {
		return out, nil
	}
	return out, backend.CopyFromHostSlice(out.local, res)
}

// MinAxis returns the minima along axis (NaN where a NaN is among them).
// It panics if the axis is empty.
func MinAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	v, _, err := extremeAxis(x, axis, false)
	return v, err
}

// MaxAxis returns the maxima along axis (NaN where a NaN is among them).
// It panics if the axis is empty.
func MaxAxis[T backend.Element](x *Array[T], axis int) (*Array[T], error) {
	v, _, err := extremeAxis(x, axis, true)
	return v, err
}

// ArgminAxis returns, for each position of the other axes, the global index
// along axis of the first smallest element. It panics if the axis is empty.
func ArgminAxis[T backend.Element](x *Array[T], axis int) (*Array[int64], error) {
	_, i, err := extremeAxis(x, axis, false)
	return i, err
}

// ArgmaxAxis returns, for each position of the other axes, the global index
// along axis of the first largest element. It panics if the axis is empty.
func ArgmaxAxis[T backend.Element](x *Array[T], axis int) (*Array[int64], error) {
	_, i, err := extremeAxis(x, axis, true)
	return i, err
}

func extremeAxis[T backend.Element](x *Array[T], axis int, max bool) (*Array[T], *Array[int64], error) {
	if err := check("ExtremeAxis", x, mpi.Arg{Name: "axis", Value: int64(axis)}, mpi.Arg{Name: "max", Value: b2i(max)}); err != nil {
		return nil, nil, err
	}
	ol := axisLayout(x.layout, axis)
	if x.layout.shape[axis] == 0 {
		panic(fmt.Sprintf("dist: minimum or maximum along empty axis %d of shape %v", axis, x.layout.shape))
	}
	host, err := x.localHost()
	if err != nil {
		return nil, nil, err
	}
	pre, n, post := view3(x.LocalShape(), axis)
	offset := 0
	if x.layout.axis == axis {
		offset, _ = x.Range()
	}
	m := pre * post
	vals, idxs := make([]T, m), make([]int64, m)
	for i := range idxs {
		idxs[i] = -1
	}
	for i := 0; i < pre; i++ {
		for k := 0; k < n; k++ {
			row := host[(i*n+k)*post : (i*n+k+1)*post]
			bv, bi := vals[i*post:(i+1)*post], idxs[i*post:(i+1)*post]
			g := int64(offset + k)
			for j, v := range row {
				if better(v, g, bv[j], bi[j], max) {
					bv[j], bi[j] = v, g
				}
			}
		}
	}
	if combined(x.layout, axis) {
		p := x.comm.Size()
		allv, alli := make([]T, p*m), make([]int64, p*m)
		if err := mpi.Allgather(x.comm, vals, allv); err != nil {
			return nil, nil, err
		}
		if err := mpi.Allgather(x.comm, idxs, alli); err != nil {
			return nil, nil, err
		}
		for j := range vals {
			vals[j], idxs[j] = allv[j], alli[j]
			for r := 1; r < p; r++ {
				if better(allv[r*m+j], alli[r*m+j], vals[j], idxs[j], max) {
					vals[j], idxs[j] = allv[r*m+j], alli[r*m+j]
				}
			}
		}
	}
	vout, err := New[T](x.comm, ol, x.local.Backend())
	if err != nil {
		return nil, nil, err
	}
	iout, err := New[int64](x.comm, ol, x.local.Backend())
	if err != nil {
		return nil, nil, err
	}
	if m > 0 {
		if err := backend.CopyFromHostSlice(vout.local, vals); err != nil {
			return nil, nil, err
		}
		if err := backend.CopyFromHostSlice(iout.local, idxs); err != nil {
			return nil, nil, err
		}
	}
	return vout, iout, nil
}
