package fuse

import (
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// Spans.
//
// The CPU evaluator runs a kernel chunk by chunk: for each chunk it points
// every node at the chunk's values (an array's elements, or a temporary's
// buffer) and calls each step. For a kernel whose only computation reads
// and writes arrays (x += a*p and r -= a*Ap with r.r, p = r + b*p, p.Ap),
// that bookkeeping is a measurable part of a chunk's time at sizes that
// fit in the last-level cache. Such a kernel has a span: the same
// per-chunk function, called in one loop over a run of chunks with the
// arrays' addresses taken once. It computes the same values in the same
// order, so the bits do not change (the tests compare both paths); Run
// takes it where every node it reads or writes is an array of the call
// (Vars, and outputs computed in place) and no output needs a store.

// A span evaluates a kernel's one computation over chunks [c0, c1),
// reading and writing the arrays whose addresses are in w.rs.base.
type span func(w *worker, c0, c1 int)

// spanOf is a span with the nodes it reads and writes, every one of which
// must be in an array for the span to run.
type spanOf struct {
	run span
	ids []int32
}

// noSpans turns spans off, for the tests that compare the two paths.
var noSpans = false

// at returns elements [lo, lo+m) of the array at base.
func at[T any](base unsafe.Pointer, lo, m int) []T {
	var z T
	return unsafe.Slice((*T)(unsafe.Add(base, lo*int(unsafe.Sizeof(z)))), m)
}

// chunkAt returns the start and the length of chunk c of n elements.
func chunkAt(c, n int) (lo, m int) {
	lo = c * ChunkLen
	return lo, min(ChunkLen, n-lo)
}

// axpyPairSpan is the span of axpyPairStep.
func axpyPairSpan(nodes []inode, a, b int32, ri, nred int) *spanOf {
	switch backend.DType(nodes[a].dt) {
	case backend.Float32:
		return axpyPairSpanT[float32](nodes, a, b, ri, nred)
	case backend.Float64:
		return axpyPairSpanT[float64](nodes, a, b, ri, nred)
	}
	return nil
}

func axpyPairSpanT[T backend.Float](nodes []inode, a, b int32, ri, nred int) *spanOf {
	na, nb := &nodes[a], &nodes[b]
	sa, sb := axpyScalar[T](na), axpyScalar[T](nb)
	xa, ya, xb, yb := na.args[1], na.args[2], nb.args[1], nb.args[2]
	ids := []int32{a, xa, ya, b, xb, yb}
	if ri >= 0 {
		k := pick[func(d1 []T, s1 T, x1, y1, d2 []T, s2 T, x2, y2 []T) float64](axpy2DotF64, axpy2DotK[float32])
		return &spanOf{ids: ids, run: func(w *worker, c0, c1 int) {
			rs := w.rs
			s1, s2 := sa(w), sb(w)
			da, pxa, pya := rs.base[a], rs.base[xa], rs.base[ya]
			db, pxb, pyb := rs.base[b], rs.base[xb], rs.base[yb]
			for c := c0; c < c1; c++ {
				lo, m := chunkAt(c, rs.n)
				rs.part[c*nred+ri] = math.Float64bits(k(at[T](da, lo, m), s1, at[T](pxa, lo, m), at[T](pya, lo, m),
					at[T](db, lo, m), s2, at[T](pxb, lo, m), at[T](pyb, lo, m)))
			}
		}}
	}
	return &spanOf{ids: ids, run: func(w *worker, c0, c1 int) {
		rs := w.rs
		s1, s2 := sa(w), sb(w)
		da, pxa, pya := rs.base[a], rs.base[xa], rs.base[ya]
		db, pxb, pyb := rs.base[b], rs.base[xb], rs.base[yb]
		for c := c0; c < c1; c++ {
			lo, m := chunkAt(c, rs.n)
			axpy2K(at[T](da, lo, m), s1, at[T](pxa, lo, m), at[T](pya, lo, m),
				at[T](db, lo, m), s2, at[T](pxb, lo, m), at[T](pyb, lo, m))
		}
	}}
}

// axpyDotSpan is the span of axpyDotStep.
func axpyDotSpan(nodes []inode, a int32, ri, nred int) *spanOf {
	if backend.DType(nodes[a].dt) == backend.Float32 {
		return axpyDotSpanT[float32](nodes, a, ri, nred)
	}
	return axpyDotSpanT[float64](nodes, a, ri, nred)
}

func axpyDotSpanT[T backend.Float](nodes []inode, a int32, ri, nred int) *spanOf {
	n := &nodes[a]
	s := axpyScalar[T](n)
	x, y := n.args[1], n.args[2]
	k := pick[func(d []T, s T, x, y []T) float64](axpyDotF64, axpyDotK[float32])
	return &spanOf{ids: []int32{a, x, y}, run: func(w *worker, c0, c1 int) {
		rs := w.rs
		sv := s(w)
		d, px, py := rs.base[a], rs.base[x], rs.base[y]
		for c := c0; c < c1; c++ {
			lo, m := chunkAt(c, rs.n)
			rs.part[c*nred+ri] = math.Float64bits(k(at[T](d, lo, m), sv, at[T](px, lo, m), at[T](py, lo, m)))
		}
	}}
}

// nodeSpan is the span of buildStep(nodes, id, false), where it has one:
// an axpy node (y + s*x or y - s*x) of floats.
func nodeSpan(nodes []inode, id int32) *spanOf {
	n := &nodes[id]
	if n.op != opAxpy && n.op != opAxmy {
		return nil
	}
	switch backend.DType(n.dt) {
	case backend.Float32:
		return axpySpanT[float32](nodes, id)
	case backend.Float64:
		return axpySpanT[float64](nodes, id)
	}
	return nil
}

func axpySpanT[T backend.Float](nodes []inode, id int32) *spanOf {
	n := &nodes[id]
	s, x, y := n.args[0], n.args[1], n.args[2]
	ids := []int32{id, x, y}
	if k, ok := any(axpyF64).(func(d []T, s T, x, y []T)); ok {
		// As buildStep: y - s*x as y + (-s)*x, the same bits.
		sc := axpyScalar[T](n)
		return &spanOf{ids: ids, run: func(w *worker, c0, c1 int) {
			rs := w.rs
			sv := sc(w)
			d, px, py := rs.base[id], rs.base[x], rs.base[y]
			for c := c0; c < c1; c++ {
				lo, m := chunkAt(c, rs.n)
				k(at[T](d, lo, m), sv, at[T](px, lo, m), at[T](py, lo, m))
			}
		}}
	}
	k := axpyK[T]
	if n.op == opAxmy {
		k = axmyK[T]
	}
	return &spanOf{ids: ids, run: func(w *worker, c0, c1 int) {
		rs := w.rs
		sv := scal[T](w, s)
		d, px, py := rs.base[id], rs.base[x], rs.base[y]
		for c := c0; c < c1; c++ {
			lo, m := chunkAt(c, rs.n)
			k(at[T](d, lo, m), sv, at[T](px, lo, m), at[T](py, lo, m))
		}
	}}
}

// reduceSpan is the span of reduceStep for the dot product of floats.
func reduceSpan(r *reduce, ri, nred int) *spanOf {
	if r.op != opDot {
		return nil
	}
	switch backend.DType(r.dt) {
	case backend.Float32:
		return dotSpanT[float32](r, ri, nred)
	case backend.Float64:
		return dotSpanT[float64](r, ri, nred)
	}
	return nil
}

func dotSpanT[T backend.Float](r *reduce, ri, nred int) *spanOf {
	a, b := r.args[0], r.args[1]
	k := pick[func(a, b []T) float64](dotF64, dotFK[float32])
	return &spanOf{ids: []int32{a, b}, run: func(w *worker, c0, c1 int) {
		rs := w.rs
		pa, pb := rs.base[a], rs.base[b]
		for c := c0; c < c1; c++ {
			lo, m := chunkAt(c, rs.n)
			rs.part[c*nred+ri] = math.Float64bits(k(at[T](pa, lo, m), at[T](pb, lo, m)))
		}
	}}
}
