package disttest

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"path/filepath"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/fft"
)

// The operations of the matrix, by the set of element types they take.

func floatSuite[T backend.Float]() typed {
	return &suite[T]{ops: slices.Concat(numericOps[T](), elementOps[T](), floatOps[T](), inexactOps[T](),
		extNumeric[T](), extElement[T](), extFloat[T]())}
}

func intSuite[T backend.Element]() typed {
	return &suite[T]{ops: slices.Concat(numericOps[T](), elementOps[T](), extNumeric[T](), extElement[T]())}
}

func complexSuite[T backend.Complex]() typed {
	own := slices.Concat(complexOps[T](), extComplex[T]())
	return &suite[T]{ops: slices.Concat(own, numericOps[T](), inexactOps[T](), extNumeric[T]()), own: len(own)}
}

// The operations kept in files of their own (ops_*.go), by set of element
// types.

func extNumeric[T backend.Numeric]() []op[T] {
	return slices.Concat(ewNumericOps[T](), orderNumericOps[T](), indexNumericOps[T](), gridshapeNumericOps[T](), rfftNumericOps[T](), linalgNumericOps[T](), gapNumericOps[T]())
}

func extElement[T backend.Element]() []op[T] {
	return slices.Concat(ewElementOps[T](), orderElementOps[T](), indexElementOps[T](), gridshapeElementOps[T](), rfftElementOps[T](), linalgElementOps[T](), gapElementOps[T]())
}

func extFloat[T backend.Float]() []op[T] {
	return slices.Concat(ewFloatOps[T](), orderFloatOps[T](), indexFloatOps[T](), gridshapeFloatOps[T](), rfftFloatOps[T](), linalgFloatOps[T](), gapFloatOps[T]())
}

func extComplex[T backend.Complex]() []op[T] {
	return slices.Concat(ewComplexOps[T](), orderComplexOps[T](), indexComplexOps[T](), gridshapeComplexOps[T](), rfftComplexOps[T](), linalgComplexOps[T](), gapComplexOps[T]())
}

// dims returns a predicate: the shape has one of these numbers of axes.
func dims(n ...int) func([]int) bool {
	return func(s []int) bool { return slices.Contains(n, len(s)) }
}

func nonEmpty(s []int) bool { return prod(s) > 0 }

// axisVariants returns the axes of the axis operations: each axis of a 3-D
// shape and -1, each a variant that applies to the shapes that have it.
func axisVariants() []int { return []int{0, 1, 2, -1} }

func hasAxis(axis int) func([]int) bool {
	return func(s []int) bool { return axis < len(s) }
}

// newLike is a new zero array of x's layout: made from y, which is never
// freed, so that a freed x is met by the operation rather than ZerosLike.
func newLike[T backend.Numeric](in *input[T]) (*dist.Array[T], error) {
	return dist.ZerosLike(in.y)
}

// copyOf returns a new copy of a, through the operation's own path for
// freed cells: dist.Copy into a new array.
func copyOf[T backend.Numeric](in *input[T], a *dist.Array[T]) (*dist.Array[T], error) {
	d, err := newLike(in)
	if err != nil {
		return nil, err
	}
	if err := call(func() error { dist.Copy(d, a); return nil }); err != nil {
		d.Free()
		return nil, err
	}
	return d, nil
}

// into runs f into a zero array of x's layout (the batch's scratch array:
// an allocation is a collective) and compares it with want.
func into[T backend.Numeric](in *input[T], f func(d *dist.Array[T]) error, want []T, tol float64) error {
	if in.scratch == nil {
		d, err := newLike(in)
		if err != nil {
			return fmt.Errorf("ZerosLike: %v", err)
		}
		in.scratch = d
	}
	d := in.scratch
	dist.Fill(d, 0)
	if err := call(func() error { return f(d) }); err != nil {
		return opErr(err)
	}
	return checkArr(in.rank, d, in.shape, want, tol)
}

// result compares an array result with want and frees it.
func result[U backend.Numeric](in interface{ rankOf() int }, got *dist.Array[U], err error, shape []int, want []U, tol float64) error {
	if err != nil {
		return opErr(err)
	}
	defer got.Free()
	return checkArr(in.rankOf(), got, shape, want, tol)
}

func (in *input[T]) rankOf() int { return in.rank }

// scalar compares a value result with want.
func scalar[U backend.Numeric](got U, err error, want U, tol float64) error {
	if err != nil {
		return opErr(err)
	}
	return checkVal(got, want, tol)
}

// emptyErr: an operation whose reference is undefined on an empty input must
// return an error wrapping dist.ErrEmpty.
func emptyErr(err error) error {
	switch {
	case err == nil:
		return errors.New("returned a value for an empty array; want an error wrapping dist.ErrEmpty")
	case errors.Is(err, dist.ErrEmpty):
		return nil
	}
	return opErr(err)
}

// Refusals.

// ghostOnly: the stencils and Exchange need ghost layers.
func ghostOnly(lk string, shape []int, p int) string {
	switch lk {
	case "ghost", "ghostp", "ghostgrid":
		return ""
	}
	return "without ghost layers|Ghosts option"
}

func numericOps[T backend.Numeric]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	tolDiv := 0.0
	if isComplex(backend.DTypeOf[T]()) {
		tolDiv = Tolerance(backend.DTypeOf[T]())
	}

	// Elementwise and scalar operations.
	bin := func(name string, f func(d, x, y *dist.Array[T]), r func(a, b T) T, tol float64) op[T] {
		return op[T]{fn: name, family: "elementwise", run: func(in *input[T]) error {
			return into(in, func(d *dist.Array[T]) error { f(d, in.x, in.y); return nil }, refMap2(in.gx, in.gy, r), tol)
		}}
	}
	add(bin("Add", dist.Add[T], func(a, b T) T { return a + b }, 0),
		bin("Sub", dist.Sub[T], func(a, b T) T { return a - b }, 0),
		bin("Mul", dist.Mul[T], func(a, b T) T { return a * b }, 0),
		bin("Div", dist.Div[T], func(a, b T) T { return a / b }, tolDiv))
	sc := func(name string, f func(d, x *dist.Array[T], s T), s T, r func(a T) T, tol float64) op[T] {
		return op[T]{fn: name, family: "elementwise", run: func(in *input[T]) error {
			return into(in, func(d *dist.Array[T]) error { f(d, in.x, s); return nil }, refMap(in.gx, r), tol)
		}}
	}
	three, two := T(3), T(2)
	add(sc("AddScalar", dist.AddScalar[T], three, func(a T) T { return a + three }, 0),
		sc("SubScalar", dist.SubScalar[T], three, func(a T) T { return a - three }, 0),
		sc("MulScalar", dist.MulScalar[T], three, func(a T) T { return a * three }, 0),
		sc("DivScalar", dist.DivScalar[T], two, func(a T) T { return a / two }, tolDiv))
	add(op[T]{fn: "Copy", family: "elementwise", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { dist.Copy(d, in.x); return nil }, in.gx, 0)
	}}, op[T]{fn: "Array.Copy", family: "elementwise", run: func(in *input[T]) error {
		d, err := in.x.Copy()
		return result(in, d, err, in.shape, in.gx, 0)
	}}, op[T]{fn: "Fill", family: "elementwise", run: func(in *input[T]) error {
		return mutate(in, func(d *dist.Array[T]) error { dist.Fill(d, three); return nil }, refMap(in.gx, func(T) T { return three }))
	}}, op[T]{fn: "Scale", family: "elementwise", run: func(in *input[T]) error {
		return mutate(in, func(d *dist.Array[T]) error { dist.Scale(three, d); return nil }, refMap(in.gx, func(a T) T { return three * a }))
	}}, op[T]{fn: "Axpy", family: "elementwise", run: func(in *input[T]) error {
		d, err := copyOf(in, in.y)
		if err != nil {
			return opErr(err)
		}
		defer d.Free()
		if err := call(func() error { dist.Axpy(two, in.x, d); return nil }); err != nil {
			return err
		}
		return checkArr(in.rank, d, in.shape, refMap2(in.gx, in.gy, func(a, b T) T { return two*a + b }), 0)
	}}, op[T]{fn: "Axpby", family: "elementwise", run: func(in *input[T]) error {
		d, err := copyOf(in, in.y)
		if err != nil {
			return opErr(err)
		}
		defer d.Free()
		if err := call(func() error { dist.Axpby(two, in.x, three, d); return nil }); err != nil {
			return err
		}
		return checkArr(in.rank, d, in.shape, refMap2(in.gx, in.gy, func(a, b T) T { return two*a + three*b }), 0)
	}})

	// Astype.
	add(op[T]{fn: "Astype", variant: "complex128", family: "astype", run: func(in *input[T]) error {
		d, err := dist.Astype[complex128](in.x)
		return result(in, d, err, in.shape, refMap(in.gx, toC[T]), 0)
	}})

	// Full reductions.
	add(op[T]{fn: "Sum", family: "reduction", run: func(in *input[T]) error {
		s, err := dist.Sum(in.x)
		return scalar(s, err, refSum(in.gx), 0)
	}}, op[T]{fn: "Dot", family: "reduction", run: func(in *input[T]) error {
		s, err := dist.Dot(in.x, in.y)
		return scalar(s, err, refSum(refMap2(in.gx, in.gy, func(a, b T) T { return a * b })), 0)
	}})

	// Axis reductions.
	for _, ax := range axisVariants() {
		v := fmt.Sprintf("axis=%d", ax)
		add(op[T]{fn: "SumAxis", variant: v, family: "axis", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.SumAxis(in.x, ax)
			want, sh := refAxis(in.gx, in.shape, normAxis(ax, len(in.shape)), refSum[T])
			return result(in, d, err, sh, want, 0)
		}}, op[T]{fn: "ProdAxis", variant: v, family: "axis", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.ProdAxis(in.x, ax)
			want, sh := refAxis(in.gx, in.shape, normAxis(ax, len(in.shape)), refProd[T])
			return result(in, d, err, sh, want, in.tol)
		}}, op[T]{fn: "DotAxis", variant: v, family: "axis", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.DotAxis(in.x, in.y, ax)
			want, sh := refAxis(refMap2(in.gx, in.gy, func(a, b T) T { return a * b }), in.shape, normAxis(ax, len(in.shape)), refSum[T])
			return result(in, d, err, sh, want, 0)
		}}, op[T]{fn: "Cumsum", variant: v, family: "scan", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.Cumsum(in.x, ax)
			want := refScan(in.gx, in.shape, normAxis(ax, len(in.shape)), func(a, b T) T { return a + b })
			return result(in, d, err, in.shape, want, 0)
		}}, op[T]{fn: "Cumprod", variant: v, family: "scan", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.Cumprod(in.x, ax)
			want := refScan(in.gx, in.shape, normAxis(ax, len(in.shape)), func(a, b T) T { return a * b })
			return result(in, d, err, in.shape, want, in.tol)
		}})
	}

	// Masks.
	add(op[T]{fn: "Where", family: "mask", run: func(in *input[T]) error {
		want := make([]T, len(in.gx))
		for i := range want {
			want[i] = in.gy[i]
			if in.gm[i] != 0 {
				want[i] = in.gx[i]
			}
		}
		return into(in, func(d *dist.Array[T]) error { return dist.Where(d, in.mask, in.x, in.y) }, want, 0)
	}}, op[T]{fn: "Compact", family: "mask", run: func(in *input[T]) error {
		want := []T{}
		for i, v := range in.gx {
			if in.gm[i] != 0 {
				want = append(want, v)
			}
		}
		d, err := dist.Compact(in.x, in.mask)
		return result(in, d, err, []int{len(want)}, want, 0)
	}})

	// Get and Set.
	idxVariants := []struct {
		name string
		f    func(shape []int) (idx, pos []int)
	}{
		{"first", func(s []int) ([]int, []int) { return make([]int, len(s)), make([]int, len(s)) }},
		{"last", func(s []int) ([]int, []int) {
			i := make([]int, len(s))
			for a := range s {
				i[a] = s[a] - 1
			}
			return i, i
		}},
		{"negative", func(s []int) ([]int, []int) {
			i, p := make([]int, len(s)), make([]int, len(s))
			for a := range s {
				i[a], p[a] = -1, s[a]-1
			}
			return i, p
		}},
	}
	for _, iv := range idxVariants {
		add(op[T]{fn: "Get", variant: iv.name, family: "getset", applies: nonEmpty, run: func(in *input[T]) error {
			idx, pos := iv.f(in.shape)
			v, err := dist.Get(in.x, idx...)
			return scalar(v, err, in.gx[flat(pos, in.shape)], 0)
		}}, op[T]{fn: "Set", variant: iv.name, family: "getset", applies: nonEmpty, run: func(in *input[T]) error {
			idx, pos := iv.f(in.shape)
			want := slices.Clone(in.gx)
			want[flat(pos, in.shape)] = three
			return mutate(in, func(d *dist.Array[T]) error { return opErr(dist.Set(d, three, idx...)) }, want)
		}})
	}

	// Slices.
	sliceVariants := []struct {
		name string
		r    func(nd int) []dist.Range
		idx  func(shape []int) [][]int
	}{
		{"1::2", func(nd int) []dist.Range { return []dist.Range{{Start: 1, Stop: math.MaxInt, Step: 2}} }, func(s []int) [][]int {
			idx := make([][]int, len(s))
			for a := range s {
				idx[a] = all(s[a])
			}
			idx[0] = nil
			for i := 1; i < s[0]; i += 2 {
				idx[0] = append(idx[0], i)
			}
			return idx
		}},
		{"::-1", func(nd int) []dist.Range { return []dist.Range{{Start: math.MaxInt, Stop: math.MinInt, Step: -1}} }, func(s []int) [][]int {
			idx := make([][]int, len(s))
			for a := range s {
				idx[a] = all(s[a])
			}
			slices.Reverse(idx[0])
			return idx
		}},
		{"last axis -2:", func(nd int) []dist.Range {
			r := make([]dist.Range, nd)
			for a := range r {
				r[a] = dist.AllIndices()
			}
			r[nd-1] = dist.Range{Start: -2, Stop: math.MaxInt, Step: 1}
			return r
		}, func(s []int) [][]int {
			idx := make([][]int, len(s))
			for a := range s {
				idx[a] = all(s[a])
			}
			n := s[len(s)-1]
			idx[len(s)-1] = all(n)[max(n-2, 0):]
			return idx
		}},
	}
	for _, sv := range sliceVariants {
		add(op[T]{fn: "Slice", variant: sv.name, family: "slice", run: func(in *input[T]) error {
			want, sh := refSelect(in.gx, in.shape, sv.idx(in.shape))
			d, err := dist.Slice(in.x, sv.r(len(in.shape))...)
			return result(in, d, err, sh, want, 0)
		}}, op[T]{fn: "SetSliceScalar", variant: sv.name, family: "slice", run: func(in *input[T]) error {
			want := slices.Clone(in.gx)
			pos, _ := refSelect(all(len(want)), in.shape, sv.idx(in.shape))
			for _, p := range pos {
				want[p] = three
			}
			return mutate(in, func(d *dist.Array[T]) error { dist.SetSliceScalar(d, sv.r(len(in.shape)), three); return nil }, want)
		}})
	}

	// Shape.
	add(op[T]{fn: "Reshape", variant: "-1", family: "shape", run: func(in *input[T]) error {
		d, err := dist.Reshape(in.x, -1)
		return result(in, d, err, []int{len(in.gx)}, in.gx, 0)
	}}, op[T]{fn: "Reshape", variant: "reversed", family: "shape", run: func(in *input[T]) error {
		sh := slices.Clone(in.shape)
		slices.Reverse(sh)
		d, err := dist.Reshape(in.x, sh...)
		return result(in, d, err, sh, in.gx, 0)
	}}, op[T]{fn: "Transpose", family: "shape", applies: dims(2), run: func(in *input[T]) error {
		want := make([]T, len(in.gx))
		n0, n1 := in.shape[0], in.shape[1]
		for i := 0; i < n0; i++ {
			for j := 0; j < n1; j++ {
				want[j*n0+i] = in.gx[i*n1+j]
			}
		}
		d, err := dist.Transpose(in.x)
		return result(in, d, err, []int{n1, n0}, want, 0)
	}})
	for _, ax := range axisVariants() {
		add(op[T]{fn: "Concatenate", variant: fmt.Sprintf("axis=%d", ax), family: "shape", applies: hasAxis(ax), run: func(in *input[T]) error {
			a := normAxis(ax, len(in.shape))
			want, sh := refConcat(in.gx, in.gy, in.shape, in.shape, a)
			d, err := dist.Concatenate(ax, in.x, in.y)
			return result(in, d, err, sh, want, 0)
		}})
	}

	// Moves.
	add(op[T]{fn: "Redistribute", variant: "rows", family: "move", run: func(in *input[T]) error {
		d, err := dist.Redistribute(in.x, dist.NewLayout(in.shape, 0, in.p))
		return result(in, d, err, in.shape, in.gx, 0)
	}}, op[T]{fn: "Redistribute", variant: "replicated", family: "move", run: func(in *input[T]) error {
		d, err := dist.Redistribute(in.x, dist.NewLayout(in.shape, dist.Replicated, in.p))
		return result(in, d, err, in.shape, in.gx, 0)
	}}, op[T]{fn: "Redistribute", variant: "grid", family: "move", applies: dims(2, 3), run: func(in *input[T]) error {
		d, err := dist.Redistribute(in.x, dist.NewGridLayout(in.shape, GridDims(len(in.shape), in.p)))
		return result(in, d, err, in.shape, in.gx, 0)
	}})
	// RedistributeInPlace frees its input: each cell gives it a copy of x
	// (x itself where x is the freed one), and checks that it is freed.
	inPlace := func(in *input[T], l dist.Layout) error {
		x := in.x
		if !in.freed {
			c, _, err := makeArray[T](in, in.c, in.shape, 0)
			if err != nil {
				return fmt.Errorf("making the input to move: %v", err)
			}
			x = c
		}
		d, err := dist.RedistributeInPlace(x, l)
		if err == nil && !x.Freed() {
			d.Free()
			return errors.New("RedistributeInPlace left its input unfreed")
		}
		return result(in, d, err, in.shape, in.gx, 0)
	}
	add(op[T]{fn: "RedistributeInPlace", variant: "rows", family: "move", run: func(in *input[T]) error {
		return inPlace(in, dist.NewLayout(in.shape, 0, in.p))
	}}, op[T]{fn: "RedistributeInPlace", variant: "last axis", family: "move", run: func(in *input[T]) error {
		return inPlace(in, dist.NewLayout(in.shape, len(in.shape)-1, in.p))
	}}, op[T]{fn: "RedistributeInPlace", variant: "replicated", family: "move", run: func(in *input[T]) error {
		return inPlace(in, dist.NewLayout(in.shape, dist.Replicated, in.p))
	}}, op[T]{fn: "RedistributeInPlace", variant: "grid", family: "move", applies: dims(2, 3), run: func(in *input[T]) error {
		return inPlace(in, dist.NewGridLayout(in.shape, GridDims(len(in.shape), in.p)))
	}}, op[T]{fn: "Resplit", variant: "last axis", family: "move", run: func(in *input[T]) error {
		d, err := dist.Resplit(in.x, len(in.shape)-1)
		return result(in, d, err, in.shape, in.gx, 0)
	}}, op[T]{fn: "Gather", family: "move", run: func(in *input[T]) error {
		g, err := dist.Gather(in.x, 0)
		if err != nil {
			return opErr(err)
		}
		if in.rank != 0 {
			if g != nil {
				return fmt.Errorf("rank %d got %d elements, want nil", in.rank, len(g))
			}
			return nil
		}
		return checkSlice(g, in.gx)
	}}, op[T]{fn: "Allgather", family: "move", run: func(in *input[T]) error {
		g, err := dist.Allgather(in.x)
		if err != nil {
			return opErr(err)
		}
		return checkSlice(g, in.gx)
	}}, op[T]{fn: "Scatter", family: "move", noArray: true, run: func(in *input[T]) error {
		var data []T
		if in.rank == 0 {
			data = in.gx
		}
		d, err := dist.Scatter(in.c, 0, data, in.shape, in.opts(in.shape)...)
		return result(in, d, err, in.shape, in.gx, 0)
	}})

	// Matrix products.
	add(op[T]{fn: "MatMul", family: "matmul", applies: dims(2), refuse: matmulRefuse, run: func(in *input[T]) error {
		m, k := in.shape[0], in.shape[1]
		b, gb, err := makeArray[T](in, in.c, []int{k, 2}, 2)
		if err != nil {
			return fmt.Errorf("making b: %v", err)
		}
		defer b.Free()
		d, err := dist.MatMul(in.x, b)
		return result(in, d, err, []int{m, 2}, refMatMul(in.gx, gb, m, k, 2), 0)
	}}, op[T]{fn: "MatMulInto", family: "matmul", applies: dims(2), refuse: matmulRefuse, run: func(in *input[T]) error {
		// Into a zeroed array of the layout MatMul gives.
		m, k := in.shape[0], in.shape[1]
		b, gb, err := makeArray[T](in, in.c, []int{k, 2}, 2)
		if err != nil {
			return fmt.Errorf("making b: %v", err)
		}
		defer b.Free()
		d, err := dist.MatMul(in.x, b)
		if err != nil {
			return opErr(err)
		}
		dist.Fill(d, 0)
		err = dist.MatMulInto(d, in.x, b)
		return result(in, d, err, []int{m, 2}, refMatMul(in.gx, gb, m, k, 2), 0)
	}}, op[T]{fn: "MatVec", family: "matmul", applies: dims(2), refuse: matvecRefuse, run: func(in *input[T]) error {
		m, k := in.shape[0], in.shape[1]
		v, gv, err := makeArray[T](in, in.c, []int{k}, 2)
		if err != nil {
			return fmt.Errorf("making the vector: %v", err)
		}
		defer v.Free()
		d, err := dist.MatVec(in.x, v)
		return result(in, d, err, []int{m}, refMatMul(in.gx, gv, m, k, 1), 0)
	}})

	// Files.
	add(op[T]{fn: "Save+Load", family: "npy", run: func(in *input[T]) error {
		in.h.files++
		path := filepath.Join(in.h.cfg.Dir, fmt.Sprintf("a%d.npy", in.h.files))
		if err := dist.Save(in.x, path); err != nil {
			return opErr(err)
		}
		in.saved = path
		d, err := dist.Load[T](in.c, path, in.opts(in.shape)...)
		return result(in, d, err, in.shape, in.gx, 0)
	}})

	// Ghost layers.
	add(op[T]{fn: "Exchange", family: "stencil", refuse: ghostOnly, run: func(in *input[T]) error {
		if err := call(func() error { return opErr(in.x.Exchange()) }); err != nil {
			return err
		}
		return checkGhosts(in)
	}})
	return ops
}

// mutate runs f on a copy of x and compares the copy with want; on a freed
// x, f runs on x itself.
func mutate[T backend.Numeric](in *input[T], f func(d *dist.Array[T]) error, want []T) error {
	if in.freed {
		return call(func() error { return f(in.x) })
	}
	d, err := copyOf(in, in.x)
	if err != nil {
		return fmt.Errorf("copying x: %v", err)
	}
	defer d.Free()
	if err := call(func() error { return f(d) }); err != nil {
		return err
	}
	return checkArr(in.rank, d, in.shape, want, 0)
}

func matmulRefuse(lk string, shape []int, p int) string {
	if lk == "axis1" {
		return "split on axis 1|a must be split on axis 0 or replicated"
	}
	return ""
}

func matvecRefuse(lk string, shape []int, p int) string {
	switch lk {
	case "axis1":
		return "split on axis 1|split on axis 0 or replicated"
	case "grid", "gridu", "ghostgrid":
		return "process grid|split on axis 0 or replicated"
	}
	return ""
}

// isGrid reports whether the kind of layout is a process grid.
func isGrid(lk string) bool { return lk == "grid" || lk == "gridu" || lk == "ghostgrid" }

func checkSlice[T backend.Numeric](got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d elements, want %d", len(got), len(want))
	}
	for i := range got {
		if !eq(got[i], want[i], 0) {
			return fmt.Errorf("element %d: got %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}

// checkGhosts compares the ghosted storage of this rank after Exchange with
// the global array: ghost indices outside it are zero, or wrap around where
// periodic.
func checkGhosts[T backend.Numeric](in *input[T]) error {
	x := in.x
	w := x.Ghosts()
	gsh := x.GhostedShape()
	start, bshape := x.Layout().Block(in.rank)
	if prod(bshape) == 0 {
		return nil // an empty block's ghosts are not written
	}
	h, err := backend.ToHost(x.Ghosted())
	if err != nil {
		return err
	}
	data := h.Data()
	nd := len(in.shape)
	// The axes with ghosts: every axis on a grid, axis 0 otherwise.
	ghosted := make([]bool, nd)
	for a := range ghosted {
		ghosted[a] = gsh[a] != bshape[a]
	}
	periodic := x.IsPeriodic()
	idx := make([]int, nd)
	g := make([]int, nd)
	for k := range data {
		out := false
		for a := range idx {
			g[a] = start[a] + idx[a]
			if ghosted[a] {
				g[a] -= w
			}
			if g[a] < 0 || g[a] >= in.shape[a] {
				if periodic {
					g[a] = (g[a]%in.shape[a] + in.shape[a]) % in.shape[a]
				} else {
					out = true
				}
			}
		}
		var want T
		if !out {
			want = in.gx[flat(g, in.shape)]
		}
		if !eq(data[k], want, 0) {
			return fmt.Errorf("ghosted element %v (global %v): got %v, want %v", slices.Clone(idx), g, data[k], want)
		}
		nextIndex(idx, gsh)
	}
	return nil
}

func elementOps[T backend.Element]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	dt := backend.DTypeOf[T]()
	lo, hi := T(2), T(5)
	add(op[T]{fn: "Abs", family: "elementwise", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.Abs(d, in.x) }, refMap(in.gx, func(a T) T {
			if a < 0 {
				return -a
			}
			return a
		}), 0)
	}}, op[T]{fn: "Clip", family: "elementwise", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.Clip(d, in.x, lo, hi) }, refMap(in.gx, func(a T) T { return min(max(a, lo), hi) }), 0)
	}}, op[T]{fn: "Map", family: "elementwise", run: func(in *input[T]) error {
		// In place, on a copy of x (into's scratch array).
		f := func(a T) T { return a/2 + 1 }
		return into(in, func(d *dist.Array[T]) error {
			dist.Copy(d, in.x)
			return dist.Map(d, f)
		}, refMap(in.gx, f), 0)
	}}, op[T]{fn: "MapIndex", family: "elementwise", run: func(in *input[T]) error {
		// v + the global index along axis 0: each rank's block must see
		// its own global indices.
		inner := prod(in.shape[1:])
		want := make([]T, len(in.gx))
		for i, v := range in.gx {
			want[i] = v + T(i/inner)
		}
		return into(in, func(d *dist.Array[T]) error {
			dist.Copy(d, in.x)
			return dist.MapIndex(d, func(idx []int, v T) T { return v + T(idx[0]) })
		}, want, 0)
	}})
	cmpOp := func(name string, f func(x, y *dist.Array[T]) (*dist.Array[uint8], error), r func(a, b T) bool) op[T] {
		return op[T]{fn: name, family: "mask", run: func(in *input[T]) error {
			d, err := f(in.x, in.y)
			return result(in, d, err, in.shape, refMap2(in.gx, in.gy, func(a, b T) uint8 {
				if r(a, b) {
					return 1
				}
				return 0
			}), 0)
		}}
	}
	add(cmpOp("Equal", dist.Equal[T], func(a, b T) bool { return a == b }),
		cmpOp("Less", dist.Less[T], func(a, b T) bool { return a < b }),
		cmpOp("GreaterEqual", dist.GreaterEqual[T], func(a, b T) bool { return a >= b }),
		cmpOp("GreaterScalar", func(x, _ *dist.Array[T]) (*dist.Array[uint8], error) { return dist.GreaterScalar(x, lo) }, func(a, _ T) bool { return a > lo }))

	add(op[T]{fn: "Astype", variant: "float64", family: "astype", run: func(in *input[T]) error {
		d, err := dist.Astype[float64](in.x)
		return result(in, d, err, in.shape, refMap(in.gx, func(a T) float64 { return real(toC(a)) }), 0)
	}}, op[T]{fn: "Astype", variant: "int32", family: "astype", run: func(in *input[T]) error {
		d, err := dist.Astype[int32](in.x)
		return result(in, d, err, in.shape, refMap(in.gx, func(a T) int32 { return fromC[int32](toC(a)) }), 0)
	}})

	// Full reductions.
	ext := func(name string, f func(*dist.Array[T]) (T, error), r func([]T) (T, int)) op[T] {
		return op[T]{fn: name, family: "reduction", run: func(in *input[T]) error {
			v, err := f(in.x)
			if len(in.gx) == 0 {
				return emptyErr(err)
			}
			want, _ := r(in.gx)
			return scalar(v, err, want, 0)
		}}
	}
	arg := func(name string, f func(*dist.Array[T]) (int, error), r func([]T) (T, int)) op[T] {
		return op[T]{fn: name, family: "reduction", run: func(in *input[T]) error {
			v, err := f(in.x)
			if len(in.gx) == 0 {
				return emptyErr(err)
			}
			_, want := r(in.gx)
			return scalar(int64(v), err, int64(want), 0)
		}}
	}
	add(ext("Min", dist.Min[T], refMin[T]), ext("Max", dist.Max[T], refMax[T]),
		arg("Argmin", dist.Argmin[T], refMin[T]), arg("Argmax", dist.Argmax[T], refMax[T]))
	add(op[T]{fn: "Prod", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.Prod(in.x)
		return scalar(v, err, refProd(in.gx), in.tol)
	}}, op[T]{fn: "Mean", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.Mean(in.x)
		if len(in.gx) == 0 {
			return emptyErr(err)
		}
		return scalar(v, err, refMean(in.gx), 0)
	}}, op[T]{fn: "Var", variant: "ddof=1", family: "reduction", applies: func(s []int) bool { return prod(s) > 1 }, run: func(in *input[T]) error {
		v, err := dist.Var(in.x, 1)
		return scalar(v, err, refVar(in.gx, 1), 1e-12)
	}}, op[T]{fn: "Std", variant: "ddof=0", family: "reduction", applies: nonEmpty, run: func(in *input[T]) error {
		v, err := dist.Std(in.x, 0)
		return scalar(v, err, math.Sqrt(refVar(in.gx, 0)), 1e-12)
	}}, op[T]{fn: "All", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.All(in.x)
		return boolVal(v, err, true)
	}}, op[T]{fn: "Any", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.Any(in.x)
		return boolVal(v, err, len(in.gx) > 0)
	}})

	// Axis reductions and statistics.
	for _, ax := range axisVariants() {
		v := fmt.Sprintf("axis=%d", ax)
		red := func(name string, f func(*dist.Array[T], int) (*dist.Array[T], error), r func([]T) (T, int)) op[T] {
			return op[T]{fn: name, variant: v, family: "axis", applies: func(s []int) bool { return ax < len(s) && s[normAxis(ax, len(s))] > 0 }, run: func(in *input[T]) error {
				d, err := f(in.x, ax)
				want, sh := refAxis(in.gx, in.shape, normAxis(ax, len(in.shape)), func(v []T) T { m, _ := r(v); return m })
				return result(in, d, err, sh, want, 0)
			}}
		}
		argr := func(name string, f func(*dist.Array[T], int) (*dist.Array[int64], error), r func([]T) (T, int)) op[T] {
			return op[T]{fn: name, variant: v, family: "axis", applies: func(s []int) bool { return ax < len(s) && s[normAxis(ax, len(s))] > 0 }, run: func(in *input[T]) error {
				d, err := f(in.x, ax)
				want, sh := refAxis(in.gx, in.shape, normAxis(ax, len(in.shape)), func(v []T) int64 { _, i := r(v); return int64(i) })
				return result(in, d, err, sh, want, 0)
			}}
		}
		stat := func(name string, f func(*dist.Array[T], int) (*dist.Array[float64], error), r func([]T) float64) op[T] {
			return op[T]{fn: name, variant: v, family: "axis", applies: func(s []int) bool { return ax < len(s) && s[normAxis(ax, len(s))] > 1 }, run: func(in *input[T]) error {
				d, err := f(in.x, ax)
				want, sh := refAxis(in.gx, in.shape, normAxis(ax, len(in.shape)), r)
				return result(in, d, err, sh, want, 1e-12)
			}}
		}
		add(red("MinAxis", dist.MinAxis[T], refMin[T]), red("MaxAxis", dist.MaxAxis[T], refMax[T]),
			argr("ArgminAxis", dist.ArgminAxis[T], refMin[T]), argr("ArgmaxAxis", dist.ArgmaxAxis[T], refMax[T]),
			stat("MeanAxis", dist.MeanAxis[T], refMean[T]),
			stat("VarAxis", func(x *dist.Array[T], a int) (*dist.Array[float64], error) { return dist.VarAxis(x, a, 1) }, func(v []T) float64 { return refVar(v, 1) }),
			stat("StdAxis", func(x *dist.Array[T], a int) (*dist.Array[float64], error) { return dist.StdAxis(x, a, 0) }, func(v []T) float64 { return math.Sqrt(refVar(v, 0)) }))
	}

	// Sorting.
	add(op[T]{fn: "Sort", family: "sort", applies: dims(1), run: func(in *input[T]) error {
		want := slices.Clone(in.gx)
		slices.SortStableFunc(want, npOrder[T])
		d, err := dist.Sort(in.x)
		return result(in, d, err, in.shape, want, 0)
	}}, op[T]{fn: "SortWithIndex", family: "sort", applies: dims(1), run: func(in *input[T]) error {
		perm := all(len(in.gx))
		slices.SortStableFunc(perm, func(a, b int) int { return npOrder(in.gx[a], in.gx[b]) })
		want := refMap(perm, func(i int) T { return in.gx[i] })
		s, p, err := dist.SortWithIndex(in.x)
		if err != nil {
			return opErr(err)
		}
		defer p.Free()
		if err := result(in, s, nil, in.shape, want, 0); err != nil {
			return err
		}
		// Ties may come in any order: sorted[i] == x[perm[i]] and perm
		// is a permutation.
		gp, err := dist.Allgather(p)
		if err != nil {
			return fmt.Errorf("gathering perm: %v", err)
		}
		seen := make([]bool, len(gp))
		for i, j := range gp {
			if j < 0 || int(j) >= len(seen) || seen[j] || in.gx[j] != want[i] {
				return fmt.Errorf("perm %v is not a sorting permutation of %v", gp, in.gx)
			}
			seen[j] = true
		}
		return nil
	}})
	_ = dt
	return ops
}

func boolVal(got bool, err error, want bool) error {
	if err != nil {
		return opErr(err)
	}
	if got != want {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}

func floatOps[T backend.Float]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	tol := Tolerance(backend.DTypeOf[T]())
	math1 := func(name string, f func(d, x *dist.Array[T]) error, r func(float64) float64, tol float64) op[T] {
		return op[T]{fn: name, family: "math", run: func(in *input[T]) error {
			return into(in, func(d *dist.Array[T]) error { return f(d, in.x) }, refMap(in.gx, func(a T) T { return T(r(float64(a))) }), tol)
		}}
	}
	add(math1("Sin", dist.Sin[T], math.Sin, tol), math1("Cos", dist.Cos[T], math.Cos, tol),
		math1("Tanh", dist.Tanh[T], math.Tanh, tol), math1("Floor", dist.Floor[T], math.Floor, 0))
	add(op[T]{fn: "SumRepro", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.SumRepro(in.x)
		return scalar(v, err, real(toC(refSum(in.gx))), 0)
	}}, op[T]{fn: "SumExact", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.SumExact(in.x)
		return scalar(v, err, real(toC(refSum(in.gx))), 0)
	}}, op[T]{fn: "DotRepro", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.DotRepro(in.x, in.y)
		return scalar(v, err, real(toC(refSum(refMap2(in.gx, in.gy, func(a, b T) T { return a * b })))), 0)
	}}, op[T]{fn: "NormRepro", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.NormRepro(in.x)
		return scalar(v, err, refNorm(in.gx), 1e-15)
	}}, op[T]{fn: "NormExact", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.NormExact(in.x)
		return scalar(v, err, refNorm(in.gx), 1e-15)
	}})
	for _, ax := range axisVariants() {
		add(op[T]{fn: "NormAxis", variant: fmt.Sprintf("axis=%d", ax), family: "axis", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.NormAxis(in.x, ax)
			want, sh := refAxis(in.gx, in.shape, normAxis(ax, len(in.shape)), func(v []T) T { return T(refNorm(v)) })
			return result(in, d, err, sh, want, tol)
		}})
	}
	// Stencils.
	sten := func(name string, f func(d, s *dist.Array[T]), laplace bool) op[T] {
		return op[T]{fn: name, family: "stencil", applies: dims(2), refuse: ghostOnly, run: func(in *input[T]) error {
			return into(in, func(d *dist.Array[T]) error {
				if err := in.x.Exchange(); err != nil {
					return err
				}
				f(d, in.x)
				return nil
			}, refStencil(in.gx, in.shape, in.lk.Name == "ghostp", laplace), 0)
		}}
	}
	add(sten("Laplace5", dist.Laplace5[T], true), sten("Jacobi5", dist.Jacobi5[T], false))
	return ops
}

func inexactOps[T backend.Inexact]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	tol := Tolerance(backend.DTypeOf[T]())
	math1 := func(name string, f func(d, x *dist.Array[T]) error, r func(complex128) complex128) op[T] {
		return op[T]{fn: name, family: "math", run: func(in *input[T]) error {
			return into(in, func(d *dist.Array[T]) error { return f(d, in.x) }, refMap(in.gx, func(a T) T {
				if isComplex(backend.DTypeOf[T]()) {
					return fromC[T](r(toC(a)))
				}
				return fromC[T](complex(realFn(name)(real(toC(a))), 0))
			}), tol)
		}}
	}
	add(math1("Exp", dist.Exp[T], cmplx.Exp), math1("Log", dist.Log[T], cmplx.Log), math1("Sqrt", dist.Sqrt[T], cmplx.Sqrt))
	add(op[T]{fn: "PowScalar", variant: "2", family: "math", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.PowScalar(d, in.x, 2) }, refMap(in.gx, func(a T) T { return a * a }), tol)
	}}, op[T]{fn: "Norm", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.Norm(in.x)
		return scalar(v, err, refNorm(in.gx), 1e-15)
	}})
	return ops
}

// realFn is the real function of a math operation.
func realFn(name string) func(float64) float64 {
	switch name {
	case "Exp":
		return math.Exp
	case "Log":
		return math.Log
	}
	return math.Sqrt
}

func complexOps[T backend.Complex]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	tol := Tolerance(backend.DTypeOf[T]())
	add(op[T]{fn: "Conj", family: "elementwise", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.Conj(d, in.x) }, refMap(in.gx, func(a T) T { return fromC[T](cmplx.Conj(toC(a))) }), 0)
	}}, op[T]{fn: "ProdComplex", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.ProdComplex(in.x)
		return scalar(v, err, refProd(in.gx), tol)
	}}, op[T]{fn: "MeanComplex", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.MeanComplex(in.x)
		if len(in.gx) == 0 {
			return emptyErr(err)
		}
		return scalar(v, err, refSum(in.gx)/fromC[T](complex(float64(len(in.gx)), 0)), tol)
	}}, op[T]{fn: "Vdot", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.Vdot(in.x, in.y)
		return scalar(v, err, refSum(refMap2(in.gx, in.gy, func(a, b T) T { return fromC[T](cmplx.Conj(toC(a))) * b })), 0)
	}}, op[T]{fn: "Astype", variant: "float64 DiscardImag", family: "astype", run: func(in *input[T]) error {
		d, err := dist.Astype[float64](in.x, dist.DiscardImag())
		return result(in, d, err, in.shape, refMap(in.gx, func(a T) float64 { return real(toC(a)) }), 0)
	}}, op[T]{fn: "Astype without DiscardImag", variant: "complex to float64", family: "astype", refuse: func(string, []int, int) string { return "DiscardImag" }, run: func(in *input[T]) error {
		d, err := dist.Astype[float64](in.x)
		return result(in, d, err, in.shape, refMap(in.gx, func(a T) float64 { return real(toC(a)) }), 0)
	}})
	if backend.DTypeOf[T]() == backend.Complex128 {
		ops = append(ops, fftOps[T]()...)
	}
	return ops
}

// fftOps are package fft's transforms; the suite of complex128 adds them.
func fftOps[T backend.Complex]() []op[T] {
	var ops []op[T]
	as := func(in *input[T]) (*dist.Array[complex128], []complex128) {
		return any(in.x).(*dist.Array[complex128]), any(in.gx).([]complex128)
	}
	for _, ax := range []int{0, 1, 2} {
		for _, inv := range []bool{false, true} {
			name := "fft.FFT"
			if inv {
				name = "fft.IFFT"
			}
			ops = append(ops, op[T]{fn: name, variant: fmt.Sprintf("axis=%d", ax), family: "fft", applies: hasAxis(ax), refuse: fftRefuse(ax), run: func(in *input[T]) error {
				x, g := as(in)
				f := fft.FFT
				if inv {
					f = fft.IFFT
				}
				d, err := f(x, ax)
				return result(in, d, err, in.shape, refDFT(g, in.shape, ax, inv), 1e-11)
			}})
		}
	}
	for _, inv := range []bool{false, true} {
		name, f := "fft.FFT2", fft.FFT2
		if inv {
			name, f = "fft.IFFT2", fft.IFFT2
		}
		ops = append(ops, op[T]{fn: name, family: "fft", applies: func(s []int) bool { return len(s) >= 2 }, run: func(in *input[T]) error {
			x, g := as(in)
			d, err := f(x)
			n := len(in.shape)
			want := refDFT(refDFT(g, in.shape, n-2, inv), in.shape, n-1, inv)
			return result(in, d, err, in.shape, want, 1e-11)
		}})
	}
	ops = append(ops, op[T]{fn: "fft.FFTN", family: "fft", run: func(in *input[T]) error {
		x, g := as(in)
		d, err := fft.FFTN(x, nil)
		want := g
		for a := range in.shape {
			want = refDFT(want, in.shape, a, false)
		}
		return result(in, d, err, in.shape, want, 1e-11)
	}}, op[T]{fn: "fft.IFFTN", family: "fft", run: func(in *input[T]) error {
		x, g := as(in)
		d, err := fft.IFFTN(x, nil)
		want := g
		for a := range in.shape {
			want = refDFT(want, in.shape, a, true)
		}
		return result(in, d, err, in.shape, want, 1e-11)
	}})
	return ops
}

// fftRefuse: FFT along an axis needs the axis local to every block.
// splitAxisOf is the split axis of the kinds of layout split on one axis.
var splitAxisOf = map[string]int{"rows": 0, "uneven": 0, "ghost": 0, "ghostp": 0, "axis1": 1, "axis2": 2}

// The axis is local where the layout's process grid (P along the split
// axis, GridDims on a grid) has one rank along it.
func fftRefuse(ax int) func(lk string, shape []int, p int) string {
	return func(lk string, shape []int, p int) string {
		local := true
		if a, ok := splitAxisOf[lk]; ok {
			local = a != ax || p == 1
		} else if isGrid(lk) {
			local = GridDims(len(shape), p)[ax] == 1
		}
		if local {
			return ""
		}
		return "split over the ranks|Redistribute"
	}
}
