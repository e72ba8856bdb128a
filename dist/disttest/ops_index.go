package disttest

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
)

// The indexing of issue 32 (Take, mask assignment, Roll, Flip, Tile, Repeat, Pad, Diff).
//
// Each function returns the operations of its set of element types; the
// suites in ops.go concatenate them with the others.

func indexNumericOps[T backend.Numeric]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }

	// Take: indices of the input's kind of layout (a process grid for the
	// 2-D indices of the grid kinds), negative ones among them.
	take := func(variant string, ax int, ishape func(n int) []int) op[T] {
		return op[T]{fn: "Take", variant: variant, family: "index", applies: hasAxis(ax), run: func(in *input[T]) error {
			a := normAxis(ax, len(in.shape))
			ish := ishape(in.shape[a])
			ind, gi, err := indexArray(in, ish, in.shape[a])
			if err != nil {
				return fmt.Errorf("making the indices: %v", err)
			}
			defer ind.Free()
			want, sh := refTake(in.gx, in.shape, a, gi, ish)
			d, err := dist.Take(in.x, ind, ax)
			return result(in, d, err, sh, want, 0)
		}}
	}
	add(take("axis=0, 2-D indices", 0, func(n int) []int { return []int{2, min(n, 1) * 3} }),
		take("axis=-1", -1, func(n int) []int { return []int{min(n, 1) * 5} }),
		op[T]{fn: "TakeFlat", family: "index", run: func(in *input[T]) error {
			n := len(in.gx)
			ish := []int{min(n, 1) * 4}
			ind, gi, err := indexArray(in, ish, n)
			if err != nil {
				return fmt.Errorf("making the indices: %v", err)
			}
			defer ind.Free()
			want := make([]T, len(gi))
			for j, v := range gi {
				want[j] = in.gx[wrapIndex(v, n)]
			}
			d, err := dist.TakeFlat(in.x, ind)
			return result(in, d, err, ish, want, 0)
		}})

	// Mask assignment, on a copy of x.
	three := T(3)
	add(op[T]{fn: "FillWhere", family: "index", run: func(in *input[T]) error {
		want := slices.Clone(in.gx)
		for i := range want {
			if in.gm[i] != 0 {
				want[i] = three
			}
		}
		return mutate(in, func(d *dist.Array[T]) error { return opErr(dist.FillWhere(d, in.mask, three)) }, want)
	}})
	assign := func(fn string, nvals func(sel int) int, f func(x *dist.Array[T], m *dist.Array[uint8], v *dist.Array[T]) error) op[T] {
		return op[T]{fn: fn, family: "index", run: func(in *input[T]) error {
			sel := 0
			for _, m := range in.gm {
				if m != 0 {
					sel++
				}
			}
			nv := nvals(sel)
			v, gv, err := makeArray[T](in, in.c, []int{nv}, 2)
			if err != nil {
				return fmt.Errorf("making the values: %v", err)
			}
			defer v.Free()
			want := slices.Clone(in.gx)
			k := 0
			for i := range want {
				if in.gm[i] != 0 {
					want[i] = gv[k%nv]
					k++
				}
			}
			return mutate(in, func(d *dist.Array[T]) error { return opErr(f(d, in.mask, v)) }, want)
		}}
	}
	add(assign("AssignWhere", func(sel int) int { return max(sel, 1) }, dist.AssignWhere[T]),
		assign("Place", func(int) int { return 2 }, dist.Place[T]))

	// Roll and Flip.
	roll := func(variant string, ax, shift int) op[T] {
		return op[T]{fn: "Roll", variant: variant, family: "index", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.Roll(in.x, shift, ax)
			return result(in, d, err, in.shape, refRoll(in.gx, in.shape, normAxis(ax, len(in.shape)), shift), 0)
		}}
	}
	add(roll("axis=0, shift=2", 0, 2), roll("axis=-1, shift=-4", -1, -4),
		op[T]{fn: "RollFlat", variant: "shift=5", family: "index", run: func(in *input[T]) error {
			n := len(in.gx)
			want := make([]T, n)
			for i := range in.gx {
				want[(i+5)%n] = in.gx[i]
			}
			d, err := dist.RollFlat(in.x, 5)
			return result(in, d, err, in.shape, want, 0)
		}},
		op[T]{fn: "Flip", variant: "all axes", family: "index", run: func(in *input[T]) error {
			want := slices.Clone(in.gx)
			slices.Reverse(want) // every axis reversed: the flat order reversed
			d, err := dist.Flip(in.x)
			return result(in, d, err, in.shape, want, 0)
		}},
		op[T]{fn: "Flip", variant: "axis=-1", family: "index", run: func(in *input[T]) error {
			want := slices.Clone(in.gx)
			n := in.shape[len(in.shape)-1]
			for i := 0; i+n <= len(want) && n > 0; i += n {
				slices.Reverse(want[i : i+n])
			}
			d, err := dist.Flip(in.x, -1)
			return result(in, d, err, in.shape, want, 0)
		}})

	// Tile and Repeat.
	tile := func(variant string, reps ...int) op[T] {
		return op[T]{fn: "Tile", variant: variant, family: "index", run: func(in *input[T]) error {
			want, sh := refTile(in.gx, in.shape, reps)
			d, err := dist.Tile(in.x, reps...)
			return result(in, d, err, sh, want, 0)
		}}
	}
	add(tile("reps=2", 2), tile("reps=(2,1,1,2)", 2, 1, 1, 2))
	repeat := func(variant string, ax int, reps func(n int) []int) op[T] {
		return op[T]{fn: "Repeat", variant: variant, family: "index", applies: hasAxis(ax), run: func(in *input[T]) error {
			a := normAxis(ax, len(in.shape))
			r := reps(in.shape[a])
			want, sh := refRepeat(in.gx, in.shape, a, r)
			d, err := dist.Repeat(in.x, r, ax)
			return result(in, d, err, sh, want, 0)
		}}
	}
	add(repeat("axis=0, repeats=2", 0, func(int) []int { return []int{2} }),
		repeat("axis=-1, per element", -1, func(n int) []int {
			r := make([]int, n)
			for i := range r {
				r[i] = i % 3 // 0, 1, 2, 0, ...
			}
			return r
		}),
		op[T]{fn: "RepeatFlat", variant: "repeats=2", family: "index", run: func(in *input[T]) error {
			want, sh := refRepeat(in.gx, []int{len(in.gx)}, 0, []int{2})
			d, err := dist.RepeatFlat(in.x, []int{2})
			return result(in, d, err, sh, want, 0)
		}})

	// Pad.
	for _, mode := range []string{"constant", "edge", "reflect", "symmetric", "wrap"} {
		// NumPy refuses to pad an empty axis but by "constant" (as dist
		// does, tested in package dist): no cell.
		var applies func([]int) bool
		if mode != "constant" {
			applies = func(s []int) bool { return !slices.Contains(s, 0) }
		}
		add(op[T]{fn: "Pad", variant: mode, family: "index", applies: applies, run: func(in *input[T]) error {
			w := [][2]int{{1, 2}}
			want, sh := refPad(in.gx, in.shape, w[0], mode, 0)
			d, err := dist.Pad(in.x, w, mode)
			return result(in, d, err, sh, want, 0)
		}})
	}
	add(op[T]{fn: "PadConstant", variant: "3", family: "index", run: func(in *input[T]) error {
		w := [2]int{2, 0}
		want, sh := refPad(in.gx, in.shape, w, "constant", three)
		d, err := dist.PadConstant(in.x, [][2]int{w}, three)
		return result(in, d, err, sh, want, 0)
	}})

	// Diff.
	diff := func(variant string, n, ax int, pre, app *T) op[T] {
		return op[T]{fn: "Diff", variant: variant, family: "index", applies: hasAxis(ax), run: func(in *input[T]) error {
			a := normAxis(ax, len(in.shape))
			want, sh := refDiff(in.gx, in.shape, a, n, pre, app)
			var o []dist.DiffOption[T]
			if pre != nil {
				o = append(o, dist.Prepend(*pre))
			}
			if app != nil {
				o = append(o, dist.Append(*app))
			}
			d, err := dist.Diff(in.x, n, ax, o...)
			return result(in, d, err, sh, want, 0)
		}}
	}
	one := T(1)
	add(diff("n=1, axis=0", 1, 0, nil, nil), diff("n=2, axis=-1", 2, -1, nil, nil),
		diff("n=2, axis=0, prepend, append", 2, 0, &three, &one))
	return ops
}

func indexElementOps[T backend.Element]() []op[T] { return nil }

func indexFloatOps[T backend.Float]() []op[T] { return nil }

func indexComplexOps[T backend.Complex]() []op[T] { return nil }

// indexArray returns an int64 array of shape in the input's kind of
// layout whose elements index an axis of n (negative ones among them), and
// its global contents.
func indexArray[T backend.Numeric](in *input[T], shape []int, n int) (*dist.Array[int64], []int64, error) {
	g := make([]int64, prod(shape))
	for i := range g {
		if n > 0 {
			g[i] = int64((i*5+2)%(2*n) - n) // in [-n, n)
		}
	}
	a, err := dist.FromFunc(in.c, shape, func(idx []int) int64 { return g[flat(idx, shape)] }, in.opts(shape)...)
	return a, g, err
}

func wrapIndex(v int64, n int) int {
	if v < 0 {
		return int(v) + n
	}
	return int(v)
}

// refTake is NumPy's take along axis.
func refTake[T any](g []T, shape []int, axis int, ind []int64, ishape []int) ([]T, []int) {
	outer, n, inner := geom(shape, axis)
	sh := append(append(slices.Clone(shape[:axis]), ishape...), shape[axis+1:]...)
	out := make([]T, 0, prod(sh))
	for o := 0; o < outer; o++ {
		for _, v := range ind {
			k := wrapIndex(v, n)
			for i := 0; i < inner; i++ {
				out = append(out, g[(o*n+k)*inner+i])
			}
		}
	}
	return out, sh
}

// refRoll rolls along axis by shift.
func refRoll[T any](g []T, shape []int, axis, shift int) []T {
	outer, n, inner := geom(shape, axis)
	out := make([]T, len(g))
	for o := 0; o < outer; o++ {
		for k := 0; k < n; k++ {
			to := k + shift
			for to < 0 {
				to += n
			}
			to %= n
			for i := 0; i < inner; i++ {
				out[(o*n+to)*inner+i] = g[(o*n+k)*inner+i]
			}
		}
	}
	return out
}

// refTile is NumPy's tile.
func refTile[T any](g []T, shape, reps []int) ([]T, []int) {
	d := max(len(shape), len(reps))
	src := append(make([]int, d-len(shape)), shape...)
	r := append(make([]int, d-len(reps)), reps...)
	for a := range src {
		if a < d-len(shape) {
			src[a] = 1
		}
		if a < d-len(reps) {
			r[a] = 1
		}
	}
	sh := make([]int, d)
	for a := range sh {
		sh[a] = src[a] * r[a]
	}
	out := make([]T, prod(sh))
	idx := make([]int, d)
	s := make([]int, d)
	for k := range out {
		rem := k
		for a := d - 1; a >= 0; a-- {
			idx[a] = rem % sh[a]
			rem /= sh[a]
			s[a] = idx[a] % src[a]
		}
		out[k] = g[flat(s, src)]
	}
	return out, sh
}

// refRepeat is NumPy's repeat along axis (reps: one count, or one per
// index).
func refRepeat[T any](g []T, shape []int, axis int, reps []int) ([]T, []int) {
	outer, n, inner := geom(shape, axis)
	var out []T
	m := 0
	for o := 0; o < outer; o++ {
		m = 0
		for k := 0; k < n; k++ {
			c := reps[0]
			if len(reps) > 1 {
				c = reps[k]
			}
			for ; c > 0; c-- {
				m++
				out = append(out, g[(o*n+k)*inner:(o*n+k+1)*inner]...)
			}
		}
	}
	sh := slices.Clone(shape)
	if outer == 0 || inner == 0 {
		m = 0
		for k := 0; k < n; k++ {
			if len(reps) > 1 {
				m += reps[k]
			} else {
				m += reps[0]
			}
		}
	}
	sh[axis] = m
	if out == nil {
		out = []T{}
	}
	return out, sh
}

// refPad pads every axis by w in mode, folding reflections one at a time.
func refPad[T any](g []T, shape []int, w [2]int, mode string, v T) ([]T, []int) {
	d := len(shape)
	sh := make([]int, d)
	for a := range sh {
		sh[a] = shape[a] + w[0] + w[1]
	}
	out := make([]T, prod(sh))
	idx := make([]int, d)
	for k := range out {
		rem := k
		for a := d - 1; a >= 0; a-- {
			idx[a] = rem % sh[a]
			rem /= sh[a]
		}
		border := false
		for a := range idx {
			n := shape[a]
			i := idx[a] - w[0]
			if i >= 0 && i < n {
				idx[a] = i
				continue
			}
			switch {
			case mode == "constant" || n == 0: // NumPy refuses the others on an empty axis
				border = true
			case mode == "edge":
				i = min(max(i, 0), n-1)
			case mode == "wrap":
				for i < 0 {
					i += n
				}
				for i >= n {
					i -= n
				}
			case mode == "reflect":
				for n > 1 && (i < 0 || i >= n) {
					if i < 0 {
						i = -i
					}
					if i >= n {
						i = 2*(n-1) - i
					}
				}
				if n == 1 {
					i = 0
				}
			case mode == "symmetric":
				for i < 0 || i >= n {
					if i < 0 {
						i = -i - 1
					}
					if i >= n {
						i = 2*n - 1 - i
					}
				}
			}
			idx[a] = i
		}
		if border {
			out[k] = v
		} else {
			out[k] = g[flat(idx, shape)]
		}
	}
	return out, sh
}

// refDiff is NumPy's diff along axis, with scalar ends.
func refDiff[T backend.Numeric](g []T, shape []int, axis, n int, pre, app *T) ([]T, []int) {
	outer, m, inner := geom(shape, axis)
	// Join the ends.
	ext := m
	if pre != nil {
		ext++
	}
	if app != nil {
		ext++
	}
	cur := make([]T, 0, outer*ext*inner)
	for o := 0; o < outer; o++ {
		if pre != nil {
			for i := 0; i < inner; i++ {
				cur = append(cur, *pre)
			}
		}
		cur = append(cur, g[o*m*inner:(o+1)*m*inner]...)
		if app != nil {
			for i := 0; i < inner; i++ {
				cur = append(cur, *app)
			}
		}
	}
	length := ext
	for k := 0; k < n && length > 0; k++ {
		next := make([]T, 0, outer*(length-1)*inner)
		for o := 0; o < outer; o++ {
			for j := 0; j < length-1; j++ {
				for i := 0; i < inner; i++ {
					next = append(next, cur[(o*length+j+1)*inner+i]-cur[(o*length+j)*inner+i])
				}
			}
		}
		cur, length = next, length-1
	}
	sh := slices.Clone(shape)
	sh[axis] = max(ext-n, 0)
	if prod(sh) == 0 {
		cur = []T{}
	}
	return cur, sh
}
