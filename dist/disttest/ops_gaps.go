package disttest

import (
	"fmt"
	"math"
	"math/cmplx"
	"path/filepath"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/rng"
)

// The exported operations that the matrix did not name before: the
// comparisons besides Equal, Less and GreaterEqual, Pow, the complex parts
// and their axis reductions, Histogram and Quantiles, DotExact, RollAxes,
// SortInto and SortWithOptions, Diff with array ends, the constructors
// (Zeros, Full, Arange, Linspace, FromLocal, Uniform, Normal,
// UniformInts), the stencils besides Laplace5 and Jacobi5 (Stencil9,
// Stencil7, ApplyStencil, Laplace5Dot, FillBoundary), the halo blocks
// (HaloOf, Halo.Swap and CopyTo), MatMul with options, LoadInto and Load
// with Convert.
//
// Each function returns the operations of its set of element types; the
// suites in ops.go concatenate them with the others. The references are
// plain Go loops over the global input.

func gapNumericOps[T backend.Numeric]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	three := T(3)

	// Constructors: every rank's block against the serial array.
	add(op[T]{fn: "Zeros", family: "constructor", noArray: true, run: func(in *input[T]) error {
		d, err := dist.Zeros[T](in.c, in.shape, in.opts(in.shape)...)
		return result(in, d, err, in.shape, make([]T, len(in.gx)), 0)
	}}, op[T]{fn: "Full", variant: "3", family: "constructor", noArray: true, run: func(in *input[T]) error {
		d, err := dist.Full(in.c, in.shape, three, in.opts(in.shape)...)
		return result(in, d, err, in.shape, refMap(in.gx, func(T) T { return three }), 0)
	}}, op[T]{fn: "FromLocal", variant: "x's layout and block", family: "constructor", noArray: true, run: func(in *input[T]) error {
		// The array shares x's block: it is not freed.
		var d *dist.Array[T]
		if err := call(func() error { d = dist.FromLocal(in.c, in.x.Layout(), in.x.Local()); return nil }); err != nil {
			return err
		}
		return checkArr(in.rank, d, in.shape, in.gx, 0)
	}})

	// Diff with array ends: y before and after x along the axis.
	for _, ax := range []int{0, -1} {
		add(op[T]{fn: "Diff", variant: fmt.Sprintf("n=1, axis=%d, PrependArray(y), AppendArray(y)", ax), family: "index", applies: hasAxis(ax), run: func(in *input[T]) error {
			a := normAxis(ax, len(in.shape))
			g, sh := refConcat(in.gy, in.gx, in.shape, in.shape, a)
			g, sh = refConcat(g, in.gy, sh, in.shape, a)
			want, wsh := refDiff(g, sh, a, 1, nil, nil)
			d, err := dist.Diff(in.x, 1, ax, dist.PrependArray(in.y), dist.AppendArray(in.y))
			return result(in, d, err, wsh, want, 0)
		}})
	}

	// RollAxes: two axes at once.
	add(op[T]{fn: "RollAxes", variant: "shifts=(1, -2), axes=(0, -1)", family: "index", applies: func(s []int) bool { return len(s) >= 2 }, run: func(in *input[T]) error {
		nd := len(in.shape)
		want := refRoll(refRoll(in.gx, in.shape, 0, 1), in.shape, nd-1, -2)
		d, err := dist.RollAxes(in.x, []int{1, -2}, []int{0, -1})
		return result(in, d, err, in.shape, want, 0)
	}})

	// MatMul with options: b (k x 2) in the layout of x's kind, as the
	// MatMul cells make it.
	mm := func(fn, variant string, o dist.MatMulOptions, into bool) op[T] {
		refuse := matmulRefuse
		if o.Method != dist.MatMulAuto {
			refuse = func(lk string, shape []int, p int) string {
				if isGrid(lk) {
					return "process grid|MatMulAuto"
				}
				return matmulRefuse(lk, shape, p)
			}
		}
		return op[T]{fn: fn, variant: variant, family: "matmul", applies: dims(2), refuse: refuse, run: func(in *input[T]) error {
			m, k := in.shape[0], in.shape[1]
			b, gb, err := makeArray[T](in, in.c, []int{k, 2}, 2)
			if err != nil {
				return fmt.Errorf("making b: %v", err)
			}
			defer b.Free()
			want := refMatMul(in.gx, gb, m, k, 2)
			if !into {
				d, err := dist.MatMulWithOptions(in.x, b, o)
				return result(in, d, err, []int{m, 2}, want, 0)
			}
			// Into a zeroed array of the layout MatMul gives.
			d, err := dist.MatMulWithOptions(in.x, b, o)
			if err != nil {
				return opErr(err)
			}
			dist.Fill(d, 0)
			err = dist.MatMulIntoWithOptions(d, in.x, b, o)
			return result(in, d, err, []int{m, 2}, want, 0)
		}}
	}
	add(mm("MatMulWithOptions", "Ring", dist.MatMulOptions{Method: dist.MatMulRing}, false),
		mm("MatMulWithOptions", "Allgather", dist.MatMulOptions{Method: dist.MatMulAllgather}, false),
		mm("MatMulWithOptions", "PanelWidth=1", dist.MatMulOptions{PanelWidth: 1}, false),
		mm("MatMulIntoWithOptions", "Ring", dist.MatMulOptions{Method: dist.MatMulRing}, true))

	// Files: LoadInto an array of x's layout, and Load with Convert.
	// The file of x that the Save+Load cell wrote, where it did (saving
	// costs more than the cells' other work).
	save := func(in *input[T]) (string, error) {
		if in.saved != "" && !in.freed {
			return in.saved, nil
		}
		in.h.files++
		path := filepath.Join(in.h.cfg.Dir, fmt.Sprintf("a%d.npy", in.h.files))
		return path, dist.Save(in.x, path)
	}
	add(op[T]{fn: "LoadInto", variant: "after Save", family: "npy", run: func(in *input[T]) error {
		path, err := save(in)
		if err != nil {
			return opErr(err)
		}
		d, err := newLike(in)
		if err != nil {
			return fmt.Errorf("ZerosLike: %v", err)
		}
		defer d.Free()
		if err := dist.LoadInto(d, path); err != nil {
			return opErr(err)
		}
		return checkArr(in.rank, d, in.shape, in.gx, 0)
	}}, op[T]{fn: "Load", variant: "Convert, to complex128", family: "npy", run: func(in *input[T]) error {
		path, err := save(in)
		if err != nil {
			return opErr(err)
		}
		d, err := dist.Load[complex128](in.c, path, append(in.opts(in.shape), dist.Convert())...)
		return result(in, d, err, in.shape, refMap(in.gx, toC[T]), 0)
	}})
	return ops
}

func gapElementOps[T backend.Element]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	f64 := func(v T) float64 { return real(toC(v)) }

	// The comparisons.
	cmp2 := func(name string, f func(x, y *dist.Array[T]) (*dist.Array[uint8], error), r func(a, b T) bool) op[T] {
		return op[T]{fn: name, family: "mask", run: func(in *input[T]) error {
			d, err := f(in.x, in.y)
			return result(in, d, err, in.shape, refMap2(in.gx, in.gy, func(a, b T) uint8 { return mask01(r(a, b)) }), 0)
		}}
	}
	add(cmp2("LessEqual", dist.LessEqual[T], func(a, b T) bool { return a <= b }),
		cmp2("Greater", dist.Greater[T], func(a, b T) bool { return a > b }),
		cmp2("NotEqual", dist.NotEqual[T], func(a, b T) bool { return a != b }))
	s := T(2) // in the data of every type
	cmpS := func(name string, f func(x *dist.Array[T], s T) (*dist.Array[uint8], error), r func(a T) bool) op[T] {
		return op[T]{fn: name, variant: "2", family: "mask", run: func(in *input[T]) error {
			d, err := f(in.x, s)
			return result(in, d, err, in.shape, refMap(in.gx, func(a T) uint8 { return mask01(r(a)) }), 0)
		}}
	}
	add(cmpS("LessScalar", dist.LessScalar[T], func(a T) bool { return a < s }),
		cmpS("LessEqualScalar", dist.LessEqualScalar[T], func(a T) bool { return a <= s }),
		cmpS("GreaterEqualScalar", dist.GreaterEqualScalar[T], func(a T) bool { return a >= s }),
		cmpS("EqualScalar", dist.EqualScalar[T], func(a T) bool { return a == s }),
		cmpS("NotEqualScalar", dist.NotEqualScalar[T], func(a T) bool { return a != s }))

	// Arange: 1, 3, 5, ... (n values), in the layout of x's kind.
	add(op[T]{fn: "Arange", variant: "1, 1+2n, 2", family: "constructor", noArray: true, applies: dims(1), run: func(in *input[T]) error {
		n := in.shape[0]
		one, two := T(1), T(2)
		d, err := dist.Arange(in.c, one, one+two*T(n), two, in.opts(in.shape)...)
		return result(in, d, err, in.shape, refMap(all(n), func(i int) T { return one + two*T(i) }), 0)
	}})

	// Histograms.
	checkHist := func(counts []int64, edges []float64, err error, wantC []int64, wantE []float64) error {
		if err != nil {
			return opErr(err)
		}
		if !slices.Equal(counts, wantC) {
			return fmt.Errorf("counts %v, want %v", counts, wantC)
		}
		if len(edges) != len(wantE) {
			return fmt.Errorf("edges %v, want %v", edges, wantE)
		}
		for i := range edges {
			if !eq(edges[i], wantE[i], 1e-15) {
				return fmt.Errorf("edges %v, want %v", edges, wantE)
			}
		}
		return nil
	}
	add(op[T]{fn: "Histogram", variant: "bins=4, [-3, 4]", family: "reduction", run: func(in *input[T]) error {
		counts, edges, err := dist.Histogram(in.x, 4, -3, 4)
		wc, we := refHistogram(refMap(in.gx, f64), 4, -3, 4)
		return checkHist(counts, edges, err, wc, we)
	}}, op[T]{fn: "HistogramAuto", variant: "bins=3", family: "reduction", run: func(in *input[T]) error {
		counts, edges, err := dist.HistogramAuto(in.x, 3)
		g := refMap(in.gx, f64)
		lo, hi := 0.0, 1.0
		if len(g) > 0 {
			lo, hi = slices.Min(g), slices.Max(g)
		}
		wc, we := refHistogram(g, 3, lo, hi)
		return checkHist(counts, edges, err, wc, we)
	}})

	// Quantiles.
	qs := []float64{0, 0.25, 0.6, 1}
	add(op[T]{fn: "Quantiles", variant: "0, 0.25, 0.6, 1", family: "order", run: func(in *input[T]) error {
		v, err := dist.Quantiles(in.x, qs, dist.QuantileLinear)
		if len(in.gx) == 0 {
			return emptyErr(err)
		}
		if err != nil {
			return opErr(err)
		}
		if len(v) != len(qs) {
			return fmt.Errorf("%d quantiles, want %d", len(v), len(qs))
		}
		for i, q := range qs {
			if w := refQuantile(in.gx, q); !eq(v[i], w, 1e-12) {
				return fmt.Errorf("quantile %v: got %v, want %v", q, v[i], w)
			}
		}
		return nil
	}})

	// Sorting: into an array of the layout Sort gives, and with options.
	sorted := func(g []T) []T {
		w := slices.Clone(g)
		slices.SortStableFunc(w, npOrder[T])
		return w
	}
	add(op[T]{fn: "SortInto", family: "sort", applies: dims(1), run: func(in *input[T]) error {
		o := []dist.Option{dist.SplitAxis(0)}
		if in.lk.Name == "replicated" {
			o = []dist.Option{dist.SplitAxis(dist.Replicated)}
		}
		if in.bk.B != nil {
			o = append(o, dist.OnBackend(in.bk.B))
		}
		d, err := dist.Zeros[T](in.c, in.shape, o...)
		if err != nil {
			return fmt.Errorf("making dst: %v", err)
		}
		defer d.Free()
		if _, err := dist.SortInto(d, in.x); err != nil {
			return opErr(err)
		}
		return checkArr(in.rank, d, in.shape, sorted(in.gx), 0)
	}}, op[T]{fn: "SortWithOptions", variant: "Oversampling=4", family: "sort", applies: dims(1), run: func(in *input[T]) error {
		r, err := dist.SortWithOptions(in.x, dist.SortOptions{Oversampling: 4})
		if err == nil && r.Index != nil {
			r.Index.Free()
			r.Sorted.Free()
			return fmt.Errorf("an Index without WithIndex")
		}
		return result(in, r.Sorted, err, in.shape, sorted(in.gx), 0)
	}})

	add(op[T]{fn: "Unique", family: "order", run: func(in *input[T]) error {
		vals, _, _ := refUnique(in.gx)
		d, err := dist.Unique(in.x)
		return result(in, d, err, []int{len(vals)}, vals, 0)
	}})
	// Halo blocks (width 1) of the layouts split along one axis.
	add(op[T]{fn: "HaloOf", variant: "w=1, Exchange", family: "stencil", refuse: haloRefuse, run: func(in *input[T]) error {
		h, err := dist.HaloOf(in.x, 1)
		if err != nil {
			return opErr(err)
		}
		defer h.Free()
		if err := h.Exchange(); err != nil {
			return opErr(err)
		}
		return checkHalo(in, h)
	}}, op[T]{fn: "Halo.Swap", variant: "then CopyTo", family: "stencil", refuse: haloRefuse, run: func(in *input[T]) error {
		hx, err := dist.HaloOf(in.x, 1)
		if err != nil {
			return opErr(err)
		}
		defer hx.Free()
		hy, err := dist.HaloOf(in.y, 1)
		if err != nil {
			return opErr(err)
		}
		defer hy.Free()
		hx.Swap(hy)
		// hx holds y's block, hy x's.
		if err := into(in, func(d *dist.Array[T]) error { hx.CopyTo(d); return nil }, in.gy, 0); err != nil {
			return err
		}
		return into(in, func(d *dist.Array[T]) error { hy.CopyTo(d); return nil }, in.gx, 0)
	}})
	if r := uniformIntsRun[T](); r != nil {
		add(op[T]{fn: "UniformInts", variant: "seed=7, draw=1, [1, 9)", family: "constructor", noArray: true, run: r})
	}
	return ops
}

// uniformIntsRun returns the run of the UniformInts cell of T, nil for a
// type it does not take.
func uniformIntsRun[T backend.Element]() func(in *input[T]) error {
	switch any(*new(T)).(type) {
	case int8:
		return uniformInts[T, int8]
	case int16:
		return uniformInts[T, int16]
	case int32:
		return uniformInts[T, int32]
	case int64:
		return uniformInts[T, int64]
	case uint8:
		return uniformInts[T, uint8]
	case uint16:
		return uniformInts[T, uint16]
	case uint32:
		return uniformInts[T, uint32]
	case uint64:
		return uniformInts[T, uint64]
	}
	return nil
}

// uniformInts: every rank's block of UniformInts against the whole array
// that rng.FillUniformInts fills serially.
func uniformInts[T backend.Element, U int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](in *input[T]) error {
	want := make([]U, len(in.gx))
	rng.FillUniformInts(want, 7, 0, 1, 1, 9)
	d, err := dist.UniformInts[U](in.c, in.shape, 7, 1, 1, 9, in.opts(in.shape)...)
	return result(in, d, err, in.shape, want, 0)
}

// refHistogram is numpy.histogram of g with bins bins over [lo, hi]
// ([lo-0.5, hi+0.5] where lo == hi): the counts and the edges.
func refHistogram(g []float64, bins int, lo, hi float64) ([]int64, []float64) {
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	edges := make([]float64, bins+1)
	for i := range edges {
		edges[i] = lo + float64(i)*(hi-lo)/float64(bins)
	}
	edges[bins] = hi
	counts := make([]int64, bins)
	for _, e := range g {
		if e < lo || e > hi || e != e {
			continue
		}
		b := 0
		for b+1 < bins && edges[b+1] <= e {
			b++
		}
		counts[b]++
	}
	return counts, edges
}

func gapFloatOps[T backend.Float]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	tol := Tolerance(backend.DTypeOf[T]())

	add(op[T]{fn: "DotExact", family: "reduction", run: func(in *input[T]) error {
		v, err := dist.DotExact(in.x, in.y)
		want := 0.0
		for i := range in.gx {
			want += float64(in.gx[i]) * float64(in.gy[i])
		}
		return scalar(v, err, want, 0)
	}}, op[T]{fn: "Pow", family: "math", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.Pow(d, in.x, in.y) },
			refMap2(in.gx, in.gy, func(a, b T) T { return T(math.Pow(float64(a), float64(b))) }), tol)
	}})

	// Random arrays: every rank's block against the whole array that rng
	// fills serially.
	rnd := func(fn string, f func(c mpi.Comm, shape []int, seed, draw uint64, opts ...dist.Option) (*dist.Array[T], error), fill func(dst []T, seed, first, draw uint64)) op[T] {
		return op[T]{fn: fn, variant: "seed=7, draw=1", family: "constructor", noArray: true, run: func(in *input[T]) error {
			want := make([]T, len(in.gx))
			fill(want, 7, 0, 1)
			d, err := f(in.c, in.shape, 7, 1, in.opts(in.shape)...)
			return result(in, d, err, in.shape, want, 0)
		}}
	}
	add(rnd("Uniform", dist.Uniform[T], rng.FillUniform[T]), rnd("Normal", dist.Normal[T], rng.FillNormal[T]))

	// Linspace: n values from -1 to 2, in the layout of x's kind.
	add(op[T]{fn: "Linspace", variant: "-1, 2, n", family: "constructor", noArray: true, applies: dims(1), run: func(in *input[T]) error {
		n := in.shape[0]
		want := refMap(all(n), func(i int) T {
			if i == n-1 && n > 1 {
				return 2
			}
			return T(-1 + float64(i)*3/float64(n-1))
		})
		d, err := dist.Linspace[T](in.c, -1, 2, n, in.opts(in.shape)...)
		return result(in, d, err, in.shape, want, 0)
	}})

	// Stencils, with src's ghosts exchanged first where it has them, so
	// that on the layouts without ghost layers the refusal is the
	// stencil's own.
	exchange := func(x *dist.Array[T]) error {
		if x.Ghosts() == 0 {
			return nil
		}
		return x.Exchange()
	}
	w9 := [3][3]T{{1, 2, 3}, {4, -5, 6}, {7, 8, 9}}
	add(op[T]{fn: "Stencil9", family: "stencil", applies: dims(2), refuse: ghostsOwn, run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error {
			if err := exchange(in.x); err != nil {
				return err
			}
			return dist.Stencil9(d, in.x, w9)
		}, refStencil9(in.gx, in.shape, in.lk.Name == "ghostp", w9), 0)
	}})
	w7 := [7]T{-6, 1, 2, 3, 4, 5, 7}
	add(op[T]{fn: "Stencil7", family: "stencil", applies: dims(3), refuse: ghostsOwn, run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error {
			if err := exchange(in.x); err != nil {
				return err
			}
			return dist.Stencil7(d, in.x, w7)
		}, refStencil7(in.gx, in.shape, in.lk.Name == "ghostp", w7), 0)
	}})
	add(op[T]{fn: "ApplyStencil", variant: "backend.Laplace5, halo=1", family: "stencil", applies: dims(2), refuse: ghostsOwn, run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error {
			if err := exchange(in.x); err != nil {
				return err
			}
			return dist.ApplyStencil(d, in.x, 1, func(dv, sv *backend.Array[T], rows, cols int) error {
				backend.Laplace5(dv, sv, rows, cols)
				return nil
			})
		}, refStencil(in.gx, in.shape, in.lk.Name == "ghostp", true), 0)
	}})
	add(op[T]{fn: "Laplace5Dot", family: "stencil", applies: dims(2), refuse: ghostsOwn, run: func(in *input[T]) error {
		want := refStencil(in.gx, in.shape, in.lk.Name == "ghostp", true)
		var part T
		if err := into(in, func(d *dist.Array[T]) error {
			if err := exchange(in.x); err != nil {
				return err
			}
			part = dist.Laplace5Dot(d, in.x)
			return nil
		}, want, 0); err != nil {
			return err
		}
		// The ranks' parts summed: Dot(src, dst).
		got, err := mpi.AllreduceValue(in.c, float64(part), mpi.Sum)
		if err != nil {
			return fmt.Errorf("summing the parts: %v", err)
		}
		dot := 0.0
		for i := range want {
			dot += float64(in.gx[i]) * float64(want[i])
		}
		return checkVal(got, dot, tol)
	}})
	add(op[T]{fn: "FillBoundary", variant: "7, 9, then Jacobi5", family: "stencil", applies: dims(2), refuse: ghostsOwn, run: func(in *input[T]) error {
		src, err := copyOf(in, in.x)
		if err != nil {
			return opErr(err)
		}
		defer src.Free()
		return into(in, func(d *dist.Array[T]) error {
			if err := exchange(src); err != nil {
				return err
			}
			dist.FillBoundary(src, 7, 9)
			dist.Jacobi5(d, src)
			return nil
		}, refStencilB(in.gx, in.shape, in.lk.Name == "ghostp", 7, 9), 0)
	}})
	return ops
}

// ghostsOwn: the stencils' own refusal of an array without ghost layers
// (on a process grid, or of width 0 where they need 1).
func ghostsOwn(lk string, shape []int, p int) string {
	switch lk {
	case "ghost", "ghostp", "ghostgrid":
		return ""
	}
	return "ghost layers|Ghosts option"
}

// refStencil9 is Stencil9 on a 2-D array: the first and last column left
// (zero in a new array); rows outside the array are zero, or wrap around
// where periodic.
func refStencil9[T backend.Float](g []T, shape []int, periodic bool, w [3][3]T) []T {
	n0, n1 := shape[0], shape[1]
	out := make([]T, len(g))
	at := func(i, j int) T {
		if i < 0 || i >= n0 {
			if !periodic {
				return 0
			}
			i = (i + n0) % n0
		}
		return g[i*n1+j]
	}
	for i := 0; i < n0; i++ {
		for j := 1; j < n1-1; j++ {
			var s T
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					s += w[a][b] * at(i+a-1, j+b-1)
				}
			}
			out[i*n1+j] = s
		}
	}
	return out
}

// refStencil7 is Stencil7 on a 3-D array: the elements whose index along
// axis 1 or 2 is the first or the last left (zero in a new array); planes
// outside the array are zero, or wrap around where periodic.
func refStencil7[T backend.Float](g []T, shape []int, periodic bool, w [7]T) []T {
	n0, n1, n2 := shape[0], shape[1], shape[2]
	out := make([]T, len(g))
	at := func(i, j, k int) T {
		if i < 0 || i >= n0 {
			if !periodic {
				return 0
			}
			i = (i + n0) % n0
		}
		return g[(i*n1+j)*n2+k]
	}
	for i := 0; i < n0; i++ {
		for j := 1; j < n1-1; j++ {
			for k := 1; k < n2-1; k++ {
				out[(i*n1+j)*n2+k] = w[0]*at(i, j, k) + w[1]*at(i-1, j, k) + w[2]*at(i+1, j, k) +
					w[3]*at(i, j-1, k) + w[4]*at(i, j+1, k) + w[5]*at(i, j, k-1) + w[6]*at(i, j, k+1)
			}
		}
	}
	return out
}

// refStencilB is Jacobi5 on a 2-D array whose rows before the first are
// low and after the last high (FillBoundary's), or wrap around where
// periodic.
func refStencilB[T backend.Float](g []T, shape []int, periodic bool, low, high T) []T {
	n0, n1 := shape[0], shape[1]
	out := make([]T, len(g))
	at := func(i, j int) T {
		switch {
		case periodic:
			i = (i + n0) % n0
		case i < 0:
			return low
		case i >= n0:
			return high
		}
		return g[i*n1+j]
	}
	for i := 0; i < n0; i++ {
		for j := 1; j < n1-1; j++ {
			out[i*n1+j] = 0.25 * (at(i-1, j) + at(i+1, j) + at(i, j-1) + at(i, j+1))
		}
	}
	return out
}

func gapComplexOps[T backend.Complex]() []op[T] {
	var ops []op[T]
	add := func(o ...op[T]) { ops = append(ops, o...) }
	tol := Tolerance(backend.DTypeOf[T]())

	add(op[T]{fn: "Pow", family: "math", run: func(in *input[T]) error {
		return into(in, func(d *dist.Array[T]) error { return dist.Pow(d, in.x, in.y) },
			refMap2(in.gx, in.gy, func(a, b T) T { return fromC[T](cmplx.Pow(toC(a), toC(b))) }), tol)
	}})

	// The parts, as arrays of the part type.
	part := func(name string, f128 func(*dist.Array[complex128]) (*dist.Array[float64], error),
		f64 func(*dist.Array[complex64]) (*dist.Array[float32], error), r func(complex128) float64, tol float64) op[T] {
		return op[T]{fn: name, family: "elementwise", run: func(in *input[T]) error {
			switch x := any(in.x).(type) {
			case *dist.Array[complex128]:
				d, err := f128(x)
				return result(in, d, err, in.shape, refMap(in.gx, func(a T) float64 { return r(toC(a)) }), tol)
			case *dist.Array[complex64]:
				d, err := f64(x)
				return result(in, d, err, in.shape, refMap(in.gx, func(a T) float32 { return float32(r(toC(a))) }), tol)
			}
			panic("disttest: unknown complex type")
		}}
	}
	add(part("Real", dist.Real[float64, complex128], dist.Real[float32, complex64], func(z complex128) float64 { return real(z) }, 0),
		part("Imag", dist.Imag[float64, complex128], dist.Imag[float32, complex64], func(z complex128) float64 { return imag(z) }, 0),
		part("AbsComplex", dist.AbsComplex[float64, complex128], dist.AbsComplex[float32, complex64], cmplx.Abs, tol),
		part("Angle", dist.Angle[float64, complex128], dist.Angle[float32, complex64], cmplx.Phase, tol))

	for _, ax := range []int{0, -1} { // the first and last axes: cheap cells
		v := fmt.Sprintf("axis=%d", ax)
		add(op[T]{fn: "MeanAxisComplex", variant: v, family: "axis", applies: hasAxis(ax), run: func(in *input[T]) error {
			d, err := dist.MeanAxisComplex(in.x, ax)
			want, sh := refAxis(in.gx, in.shape, normAxis(ax, len(in.shape)), func(l []T) T {
				if len(l) == 0 {
					return fromC[T](complex(math.NaN(), math.NaN()))
				}
				return fromC[T](refSum(refMap(l, toC[T])) / complex(float64(len(l)), 0))
			})
			return result(in, d, err, sh, want, tol)
		}}, op[T]{fn: "NormAxisComplex", variant: v, family: "axis", applies: hasAxis(ax), run: func(in *input[T]) error {
			norm := func(l []T) float64 {
				s := 0.0
				for _, e := range l {
					z := toC(e)
					s += real(z)*real(z) + imag(z)*imag(z)
				}
				return math.Sqrt(s)
			}
			a := normAxis(ax, len(in.shape))
			switch x := any(in.x).(type) {
			case *dist.Array[complex128]:
				d, err := dist.NormAxisComplex[float64](x, ax)
				want, sh := refAxis(in.gx, in.shape, a, norm)
				return result(in, d, err, sh, want, tol)
			case *dist.Array[complex64]:
				d, err := dist.NormAxisComplex[float32](x, ax)
				want, sh := refAxis(in.gx, in.shape, a, func(l []T) float32 { return float32(norm(l)) })
				return result(in, d, err, sh, want, tol)
			}
			panic("disttest: unknown complex type")
		}})
	}
	return ops
}

// haloRefuse: a Halo takes the layouts split along one axis.
func haloRefuse(lk string, shape []int, p int) string {
	switch {
	case lk == "replicated":
		return "replicated|every rank already holds every element"
	case isGrid(lk):
		return "process grid|one split axis only"
	}
	return ""
}

// checkHalo compares h's local storage after Exchange with the global
// array: the block, and the ghost indices of the split axis, zero outside
// the array (a Halo does not wrap around).
func checkHalo[T backend.Element](in *input[T], h *dist.Halo[T]) error {
	l := h.Layout()
	ax, w := l.Axis(), h.Width()
	start, bshape := l.Block(in.rank)
	if prod(bshape) == 0 {
		return nil // an empty block's ghosts are not written
	}
	hs := h.LocalShape()
	wsh := slices.Clone(bshape)
	wsh[ax] += 2 * w
	if !slices.Equal(hs, wsh) {
		return fmt.Errorf("local shape %v, want %v", hs, wsh)
	}
	host, err := backend.ToHost(h.Local())
	if err != nil {
		return err
	}
	data := host.Data()
	idx := make([]int, len(hs))
	g := make([]int, len(hs))
	for k := range data {
		out := false
		for a := range idx {
			g[a] = start[a] + idx[a]
			if a == ax {
				g[a] -= w
			}
			out = out || g[a] < 0 || g[a] >= in.shape[a]
		}
		var want T
		if !out {
			want = in.gx[flat(g, in.shape)]
		}
		if !eq(data[k], want, 0) {
			return fmt.Errorf("halo element %v (global %v): got %v, want %v", slices.Clone(idx), g, data[k], want)
		}
		nextIndex(idx, hs)
	}
	return nil
}
