package disttest

import (
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
)

// The shape operations on every layout, process grids included: slices of
// several axes with steps, negative steps and empty selections (Slice,
// SetSlice), Transpose of any number of axes, and Broadcast with operands
// of other layouts.

func gridshapeNumericOps[T backend.Numeric]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }

	// Slices of every axis of 2-D and 3-D arrays (those of one axis:
	// numericOps), and SetSlice of the first.
	for i, sv := range gridSliceVariants() {
		add(op[T]{fn: "Slice", variant: sv.name, family: "slice", applies: dims(2, 3), run: func(in *input[T]) error {
			idx, sh := sv.idx(in.shape)
			want, _ := refSelect(in.gx, in.shape, idx)
			d, err := dist.Slice(in.x, sv.r(len(in.shape))...)
			return result(in, d, err, sh, want, 0)
		}})
		if i > 0 {
			continue
		}
		add(op[T]{fn: "SetSlice", variant: sv.name, family: "slice", applies: dims(2, 3), run: func(in *input[T]) error {
			// From an array of the selection's shape in the input's
			// kind of layout, with salt 2.
			idx, sh := sv.idx(in.shape)
			v, gv, err := makeArray[T](in, in.c, sh, 2)
			if err != nil {
				return err
			}
			defer v.Free()
			want := slices.Clone(in.gx)
			pos, _ := refSelect(all(len(want)), in.shape, idx)
			for i, p := range pos {
				want[p] = gv[i]
			}
			return mutate(in, func(d *dist.Array[T]) error { return opErr(dist.SetSlice(d, sv.r(len(in.shape)), v)) }, want)
		}})
	}

	// Transpose of 1-D and 3-D arrays (2-D: numericOps), reversed or
	// with axes.
	tr := func(variant string, axes []int, applies func([]int) bool) op[T] {
		return op[T]{fn: "Transpose", variant: variant, family: "shape", applies: applies, run: func(in *input[T]) error {
			perm := axes
			if perm == nil {
				for a := len(in.shape) - 1; a >= 0; a-- {
					perm = append(perm, a)
				}
			}
			want, sh := refTranspose(in.gx, in.shape, perm)
			d, err := dist.Transpose(in.x, axes...)
			return result(in, d, err, sh, want, 0)
		}}
	}
	add(tr("reversed", nil, dims(1, 3)), tr("axes=1,2,0", []int{1, 2, 0}, dims(3)))

	// Broadcast of x (2-D, 3-D) and an operand of another shape and
	// layout, with salt 2: a row vector split along axis 0 (the default
	// layout), and a column in x's kind of layout.
	bc := func(variant string, shape func(s []int) []int, opts func(in *input[T], s []int) []dist.Option) op[T] {
		return op[T]{fn: "Broadcast", variant: variant, family: "elementwise", applies: dims(2, 3), run: func(in *input[T]) error {
			bs := shape(in.shape)
			b, gb, err := makeArray[T](optsOf(func(s []int) []dist.Option { return opts(in, s) }), in.c, bs, 2)
			if err != nil {
				return err
			}
			defer b.Free()
			want := make([]T, len(in.gx))
			for i, v := range in.gx {
				want[i] = v - gb[broadcastIndex(i, in.shape, bs)]
			}
			return into(in, func(d *dist.Array[T]) error { return dist.Broadcast(backend.Sub, d, in.x, b) }, want, 0)
		}}
	}
	last := func(s []int) []int { return s[len(s)-1:] }
	column := func(s []int) []int {
		c := make([]int, len(s))
		for a := range c {
			c[a] = 1
		}
		c[0] = s[0]
		return c
	}
	rows := func(in *input[T], s []int) []dist.Option {
		o := []dist.Option{dist.SplitAxis(0)}
		if in.bk.B != nil {
			o = append(o, dist.OnBackend(in.bk.B))
		}
		return o
	}
	same := func(in *input[T], s []int) []dist.Option { return in.opts(s) }
	add(bc("row split", last, rows), bc("column", column, same))
	return ops
}

func gridshapeElementOps[T backend.Element]() []op[T] { return nil }

func gridshapeFloatOps[T backend.Float]() []op[T] { return nil }

func gridshapeComplexOps[T backend.Complex]() []op[T] { return nil }

// optsOf makes a function of a shape the options of makeArray.
type optsOf func(shape []int) []dist.Option

func (f optsOf) opts(shape []int) []dist.Option { return f(shape) }

// gridSliceVariant is a slice of every axis: its ranges for nd axes, and
// the indices it selects along each axis of shape with the selection's
// shape.
type gridSliceVariant struct {
	name string
	r    func(nd int) []dist.Range
	idx  func(shape []int) ([][]int, []int)
}

func gridSliceVariants() []gridSliceVariant {
	every := func(name string, r dist.Range) gridSliceVariant {
		return gridSliceVariant{name: name, r: func(nd int) []dist.Range {
			rs := make([]dist.Range, nd)
			for a := range rs {
				rs[a] = r
			}
			return rs
		}, idx: func(s []int) ([][]int, []int) {
			idx, sh := make([][]int, len(s)), make([]int, len(s))
			for a, n := range s {
				idx[a] = pySlice(n, r)
				sh[a] = len(idx[a])
			}
			return idx, sh
		}}
	}
	return []gridSliceVariant{
		every("every axis ::-2", dist.Range{Start: math.MaxInt, Stop: math.MinInt, Step: -2}),
		every("every axis 1:-1", dist.Range{Start: 1, Stop: -1, Step: 1}),
	}
}

// pySlice returns the indices of an axis of length n that r selects, by
// Python's rules (math.MaxInt and math.MinInt as the omitted bounds).
func pySlice(n int, r dist.Range) []int {
	step := r.Step
	if step == 0 {
		step = 1
	}
	adjust := func(i int) int {
		if i < 0 {
			i += n
			if i < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		}
		if i >= n {
			if step < 0 {
				return n - 1
			}
			return n
		}
		return i
	}
	out := []int{}
	for i := adjust(r.Start); (step > 0 && i < adjust(r.Stop)) || (step < 0 && i > adjust(r.Stop)); i += step {
		out = append(out, i)
	}
	return out
}

// refTranspose returns g (of shape) with its axes permuted by perm, and
// the new shape.
func refTranspose[T any](g []T, shape, perm []int) ([]T, []int) {
	sh := make([]int, len(shape))
	for i, a := range perm {
		if a < 0 {
			a += len(shape)
		}
		sh[i] = shape[a]
	}
	out := make([]T, len(g))
	idx := make([]int, len(sh))
	src := make([]int, len(sh))
	for k := range out {
		r := k
		for i := len(sh) - 1; i >= 0; i-- {
			idx[i] = r % sh[i]
			r /= sh[i]
		}
		for i, a := range perm {
			if a < 0 {
				a += len(shape)
			}
			src[a] = idx[i]
		}
		out[k] = g[flat(src, shape)]
	}
	return out, sh
}

// broadcastIndex returns the flat index in bshape of the element that
// NumPy's broadcasting pairs with flat index i of shape.
func broadcastIndex(i int, shape, bshape []int) int {
	idx := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		idx[a] = i % shape[a]
		i /= shape[a]
	}
	k := len(shape) - len(bshape)
	j := 0
	for a, n := range bshape {
		v := idx[k+a]
		if n == 1 {
			v = 0
		}
		j = j*n + v
	}
	return j
}
