package fuse

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// pick returns the one of fs whose type is F: the instantiation of a
// kernel for the type parameter of its caller.
func pick[F any](fs ...any) F {
	for _, f := range fs {
		if g, ok := f.(F); ok {
			return g
		}
	}
	var f F
	panic(fmt.Sprintf("fuse: internal error: no kernel of type %T", f))
}

func bin[T, D any](k func(d []D, a, b []T), d, a, b int32) step {
	return func(w *worker, n int) { k(vec[D](w, d, n), vec[T](w, a, n), vec[T](w, b, n)) }
}

func binS[T any](k func(d, a []T, s T), d, a, s int32) step {
	return func(w *worker, n int) { k(vec[T](w, d, n), vec[T](w, a, n), scal[T](w, s)) }
}

func un[S, D any](k func(d []D, a []S), d, a int32) step {
	return func(w *worker, n int) { k(vec[D](w, d, n), vec[S](w, a, n)) }
}

// buildStep returns the step that computes node id. uni: the node is
// uniform, and the step runs once per Run on scalars (n = 1, every
// operand a scalar); otherwise it runs on chunks, and reads uniform
// operands as scalars where scalarOperand says so, as materialized chunks
// elsewhere.
func buildStep(nodes []inode, id int32, uni bool) step {
	n := &nodes[id]
	switch n.op {
	case opCast:
		return castStep(n.dt, nodes[n.args[0]].dt, id, n.args[0])
	case opAnd:
		return bin(andK, id, n.args[0], n.args[1])
	case opOr:
		return bin(orK, id, n.args[0], n.args[1])
	case opNot:
		return un(notK, id, n.args[0])
	}
	dt := n.dt
	switch n.op {
	case opLt, opLe, opGt, opGe, opEq, opNe:
		dt = nodes[n.args[0]].dt
	}
	switch backend.DType(dt) {
	case backend.Float32:
		return elemStep[float32](nodes, id, uni)
	case backend.Float64:
		return elemStep[float64](nodes, id, uni)
	case backend.Int32:
		return elemStep[int32](nodes, id, uni)
	case backend.Int64:
		return elemStep[int64](nodes, id, uni)
	case backend.Uint32:
		return elemStep[uint32](nodes, id, uni)
	default:
		return elemStep[uint64](nodes, id, uni)
	}
}

func elemStep[T backend.Element](nodes []inode, id int32, uni bool) step {
	n := &nodes[id]
	a := n.args[0]
	var b int32
	if len(n.args) > 1 {
		b = n.args[1]
	}
	type f3 = func(d, a, b []T)
	type f2 = func(d, a []T)
	type fs = func(d, a []T, s T)
	// Arithmetic with one uniform operand reads it as a scalar.
	if !uni {
		sa, sb := nodes[a].uniform, len(n.args) > 1 && nodes[b].uniform
		switch n.op {
		case opAdd:
			if sa {
				return binS(addVS[T], id, b, a)
			} else if sb {
				return binS(addVS[T], id, a, b)
			}
		case opSub:
			if sa {
				return binS(subSV[T], id, b, a)
			} else if sb {
				return binS(subVS[T], id, a, b)
			}
		case opMul:
			if sa {
				return binS(mulVS[T], id, b, a)
			} else if sb {
				return binS(mulVS[T], id, a, b)
			}
		case opDiv:
			if sa {
				return binS(pick[fs](divSV[float64], divSV[float32]), id, b, a)
			} else if sb {
				return binS(pick[fs](divVS[float64], divVS[float32]), id, a, b)
			}
		case opChain:
			return chainStep[T](n, id)
		case opAxpy, opAxmy:
			s, x, y := n.args[0], n.args[1], n.args[2]
			if k, ok := any(axpyF64).(func(d []T, s T, x, y []T)); ok {
				// y - s*x as y + (-s)*x: the same bits.
				sc := axpyScalar[T](n)
				return func(w *worker, m int) { k(vec[T](w, id, m), sc(w), vec[T](w, x, m), vec[T](w, y, m)) }
			}
			k := axpyK[T]
			if n.op == opAxmy {
				k = axmyK[T]
			}
			return func(w *worker, m int) { k(vec[T](w, id, m), scal[T](w, s), vec[T](w, x, m), vec[T](w, y, m)) }
		}
	}
	switch n.op {
	case opAdd:
		return bin(addVV[T], id, a, b)
	case opSub:
		return bin(subVV[T], id, a, b)
	case opMul:
		return bin(mulVV[T], id, a, b)
	case opDiv:
		return bin(pick[f3](divVV[float64], divVV[float32]), id, a, b)
	case opMin:
		return bin(minVV[T], id, a, b)
	case opMax:
		return bin(maxVV[T], id, a, b)
	case opPow:
		return bin(pick[f3](powVV[float64], powVV[float32]), id, a, b)
	case opLt:
		return bin(ltK[T], id, a, b)
	case opLe:
		return bin(leK[T], id, a, b)
	case opGt:
		return bin(gtK[T], id, a, b)
	case opGe:
		return bin(geK[T], id, a, b)
	case opEq:
		return bin(eqK[T], id, a, b)
	case opNe:
		return bin(neK[T], id, a, b)
	case opWhere:
		c, x, y := n.args[0], n.args[1], n.args[2]
		return func(w *worker, m int) { whereK(vec[T](w, id, m), vec[bool](w, c, m), vec[T](w, x, m), vec[T](w, y, m)) }
	case opNeg:
		return un(negK[T], id, a)
	case opAbs:
		return un(pick[f2](absFK[float64], absFK[float32], absIK[int32], absIK[int64], absIK[uint32], absIK[uint64]), id, a)
	case opSqrt:
		return un(pick[f2](sqrtK[float64], sqrtK[float32]), id, a)
	case opExp:
		return un(pick[f2](expK[float64], expK[float32]), id, a)
	case opLog:
		return un(pick[f2](logK[float64], logK[float32]), id, a)
	}
	panic(fmt.Sprintf("fuse: internal error: no step for %v of %v", n.op, n.dt))
}

func castStep(to, from dtype, d, a int32) step {
	switch backend.DType(to) {
	case backend.Float32:
		return castFrom[float32](from, d, a)
	case backend.Float64:
		return castFrom[float64](from, d, a)
	case backend.Int32:
		return castFrom[int32](from, d, a)
	case backend.Int64:
		return castFrom[int64](from, d, a)
	case backend.Uint32:
		return castFrom[uint32](from, d, a)
	default:
		return castFrom[uint64](from, d, a)
	}
}

func castFrom[D backend.Element](from dtype, d, a int32) step {
	if from == boolType {
		return un(castBoolK[D], d, a)
	}
	switch backend.DType(from) {
	case backend.Float32:
		return un(castK[D, float32], d, a)
	case backend.Float64:
		return un(castK[D, float64], d, a)
	case backend.Int32:
		return un(castK[D, int32], d, a)
	case backend.Int64:
		return un(castK[D, int64], d, a)
	case backend.Uint32:
		return un(castK[D, uint32], d, a)
	default:
		return un(castK[D, uint64], d, a)
	}
}

// toBits returns v's bits as backend.Scalar holds them.
func toBits[T backend.Element](v T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = v
	return u
}

func fromBits[T backend.Element](u uint64) T { return *(*T)(unsafe.Pointer(&u)) }

// reduceStep returns the step that stores reduction ri's partial result of
// the current chunk.
func reduceStep(r *reduce, ri, nred int) step {
	switch backend.DType(r.dt) {
	case backend.Float32:
		return reduceStepT[float32](r, ri, nred)
	case backend.Float64:
		return reduceStepT[float64](r, ri, nred)
	case backend.Int32:
		return reduceStepT[int32](r, ri, nred)
	case backend.Int64:
		return reduceStepT[int64](r, ri, nred)
	case backend.Uint32:
		return reduceStepT[uint32](r, ri, nred)
	default:
		return reduceStepT[uint64](r, ri, nred)
	}
}

func reduceStepT[T backend.Element](r *reduce, ri, nred int) step {
	a := r.args[0]
	var b int32
	if len(r.args) > 1 {
		b = r.args[1]
	}
	part := func(w *worker) *uint64 { return &w.rs.part[w.chunk*nred+ri] }
	float := backend.DType(r.dt).IsFloat()
	switch r.op {
	case opSum:
		if float {
			k := pick[func([]T) float64](sumFK[float64], sumFK[float32])
			return func(w *worker, n int) { *part(w) = math.Float64bits(k(vec[T](w, a, n))) }
		}
		k := pick[func([]T) uint64](sumIK[int32], sumIK[int64], sumIK[uint32], sumIK[uint64])
		return func(w *worker, n int) { *part(w) = k(vec[T](w, a, n)) }
	case opDot:
		if float {
			k := pick[func(a, b []T) float64](dotF64, dotFK[float32])
			return func(w *worker, n int) { *part(w) = math.Float64bits(k(vec[T](w, a, n), vec[T](w, b, n))) }
		}
		k := pick[func(a, b []T) uint64](dotIK[int32], dotIK[int64], dotIK[uint32], dotIK[uint64])
		return func(w *worker, n int) { *part(w) = k(vec[T](w, a, n), vec[T](w, b, n)) }
	case opRMax:
		return func(w *worker, n int) { *part(w) = toBits(maxK(vec[T](w, a, n))) }
	default:
		return func(w *worker, n int) { *part(w) = toBits(minK(vec[T](w, a, n))) }
	}
}

// storeStep returns the step that writes output oi's chunk, unless the
// output's values were computed in place (direct).
func storeStep(oi int, val int32, uniform bool, size int) step {
	return func(w *worker, n int) {
		rs := w.rs
		if rs.direct[oi] {
			return
		}
		dst := unsafe.Add(rs.outBase[oi], w.lo*size)
		if uniform {
			fillBits(dst, size, n, rs.sc[val])
			return
		}
		copy(unsafe.Slice((*byte)(dst), n*size), unsafe.Slice((*byte)(w.ptr[val]), n*size))
	}
}

// combine returns reduction ri's result from the partial results of nc
// chunks: float sums added pairwise (see pairwise), integer sums wrapping,
// maxima and minima in chunk order.
func combine(r *reduce, part []uint64, nc, ri, nred int) uint64 {
	if nc == 0 {
		return identity(r.op, r.dt)
	}
	switch r.op {
	case opSum, opDot:
		if backend.DType(r.dt).IsFloat() {
			return math.Float64bits(pairwise(part, 0, nc, ri, nred))
		}
		var s uint64
		for c := 0; c < nc; c++ {
			s += part[c*nred+ri]
		}
		return s
	}
	switch backend.DType(r.dt) {
	case backend.Float32:
		return fold[float32](r.op, part, nc, ri, nred)
	case backend.Float64:
		return fold[float64](r.op, part, nc, ri, nred)
	case backend.Int32:
		return fold[int32](r.op, part, nc, ri, nred)
	case backend.Int64:
		return fold[int64](r.op, part, nc, ri, nred)
	case backend.Uint32:
		return fold[uint32](r.op, part, nc, ri, nred)
	default:
		return fold[uint64](r.op, part, nc, ri, nred)
	}
}

func fold[T backend.Element](o op, part []uint64, nc, ri, nred int) uint64 {
	m := fromBits[T](part[ri])
	for c := 1; c < nc; c++ {
		v := fromBits[T](part[c*nred+ri])
		if v != v || (o == opRMax && v > m) || (o == opRMin && v < m) {
			m = v
		}
	}
	return toBits(m)
}

// pairwise returns the sum of the partial results of chunks [lo, hi):
// up to 4 added in order to 0, more split in two halves at lo+(hi-lo)/2,
// each half summed so, and the two sums added.
func pairwise(part []uint64, lo, hi, ri, nred int) float64 {
	if hi-lo <= 4 {
		s := 0.0
		for c := lo; c < hi; c++ {
			s += math.Float64frombits(part[c*nred+ri])
		}
		return s
	}
	m := lo + (hi-lo)/2
	return pairwise(part, lo, m, ri, nred) + pairwise(part, m, hi, ri, nred)
}

// axpyPairStep returns the step of two independent axpy nodes (y + s*x or
// y - s*x) a and b in one loop; where ri >= 0 the step also stores the
// partial result of reduction ri, the dot of b's values with themselves.
// y - s*x is computed as y + (-s)*x, which has the same bits.
func axpyPairStep(nodes []inode, a, b int32, ri, nred int) step {
	switch backend.DType(nodes[a].dt) {
	case backend.Float32:
		return axpyPairStepT[float32](nodes, a, b, ri, nred)
	case backend.Float64:
		return axpyPairStepT[float64](nodes, a, b, ri, nred)
	case backend.Int32:
		return axpyPairStepT[int32](nodes, a, b, ri, nred)
	case backend.Int64:
		return axpyPairStepT[int64](nodes, a, b, ri, nred)
	case backend.Uint32:
		return axpyPairStepT[uint32](nodes, a, b, ri, nred)
	default:
		return axpyPairStepT[uint64](nodes, a, b, ri, nred)
	}
}

// axpyScalar returns a function that reads the scalar of axpy node id,
// negated for y - s*x.
func axpyScalar[T backend.Element](n *inode) func(w *worker) T {
	s := n.args[0]
	if n.op == opAxmy {
		return func(w *worker) T { return -scal[T](w, s) }
	}
	return func(w *worker) T { return scal[T](w, s) }
}

func axpyPairStepT[T backend.Element](nodes []inode, a, b int32, ri, nred int) step {
	na, nb := &nodes[a], &nodes[b]
	sa, sb := axpyScalar[T](na), axpyScalar[T](nb)
	xa, ya, xb, yb := na.args[1], na.args[2], nb.args[1], nb.args[2]
	if ri >= 0 {
		k := pick[func(d1 []T, s1 T, x1, y1, d2 []T, s2 T, x2, y2 []T) float64](axpy2DotF64, axpy2DotK[float32])
		return func(w *worker, n int) {
			w.rs.part[w.chunk*nred+ri] = math.Float64bits(k(vec[T](w, a, n), sa(w), vec[T](w, xa, n), vec[T](w, ya, n),
				vec[T](w, b, n), sb(w), vec[T](w, xb, n), vec[T](w, yb, n)))
		}
	}
	return func(w *worker, n int) {
		axpy2K(vec[T](w, a, n), sa(w), vec[T](w, xa, n), vec[T](w, ya, n), vec[T](w, b, n), sb(w), vec[T](w, xb, n), vec[T](w, yb, n))
	}
}

// axpyDotStep returns the step of axpy node a that also stores the partial
// result of reduction ri, the dot of a's values with themselves.
func axpyDotStep(nodes []inode, a int32, ri, nred int) step {
	if backend.DType(nodes[a].dt) == backend.Float32 {
		return axpyDotStepT[float32](nodes, a, ri, nred)
	}
	return axpyDotStepT[float64](nodes, a, ri, nred)
}

func axpyDotStepT[T backend.Float](nodes []inode, a int32, ri, nred int) step {
	n := &nodes[a]
	s := axpyScalar[T](n)
	x, y := n.args[1], n.args[2]
	k := pick[func(d []T, s T, x, y []T) float64](axpyDotF64, axpyDotK[float32])
	return func(w *worker, m int) {
		w.rs.part[w.chunk*nred+ri] = math.Float64bits(k(vec[T](w, a, m), s(w), vec[T](w, x, m), vec[T](w, y, m)))
	}
}

// chainStep returns the step of a chain node.
func chainStep[T backend.Element](n *inode, id int32) step {
	args := n.args
	sc := int32(-1)
	if n.scaled {
		sc, args = args[0], args[1:]
	}
	x, ys := args[0], args[1:]
	g := make([]T, len(ys))
	for j := range g {
		g[j] = 1
		if n.negs[j] {
			g[j] = 0
			g[j]-- // -1, wrapping for unsigned types
		}
	}
	scale := func(w *worker) T {
		if sc < 0 {
			return 1
		}
		return scal[T](w, sc)
	}
	switch len(ys) {
	case 2:
		return func(w *worker, m int) {
			chain2K(vec[T](w, id, m), scale(w), vec[T](w, x, m), g[0], vec[T](w, ys[0], m), g[1], vec[T](w, ys[1], m))
		}
	case 3:
		return func(w *worker, m int) {
			chain3K(vec[T](w, id, m), scale(w), vec[T](w, x, m), g[0], vec[T](w, ys[0], m), g[1], vec[T](w, ys[1], m), g[2], vec[T](w, ys[2], m))
		}
	}
	k4 := chain4K[T]
	if f, ok := any(chain4F64).(func(d []T, s T, x []T, g1 T, y1 []T, g2 T, y2 []T, g3 T, y3 []T, g4 T, y4 []T)); ok {
		k4 = f
	}
	return func(w *worker, m int) {
		k4(vec[T](w, id, m), scale(w), vec[T](w, x, m), g[0], vec[T](w, ys[0], m), g[1], vec[T](w, ys[1], m),
			g[2], vec[T](w, ys[2], m), g[3], vec[T](w, ys[3], m))
	}
}
