package fuse

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
)

// dtype is the type of an expression's values: an element type of package
// backend, or bool (the result of a comparison).
type dtype int8

const boolType dtype = -1

func dtypeOf[T backend.Element]() dtype { return dtype(backend.DTypeOf[T]()) }

// typeErr returns the error of an expression of element type T, or nil:
// fused kernels have steps for float32, float64, int32, int64, uint32 and
// uint64 only, not yet for the 8- and 16-bit integers.
func typeErr[T backend.Element](what string) error {
	switch dt := backend.DTypeOf[T](); dt {
	case backend.Float32, backend.Float64, backend.Int32, backend.Int64, backend.Uint32, backend.Uint64:
		return nil
	default:
		return fmt.Errorf("fuse: %s of %v: fused kernels take float32, float64, int32, int64, uint32 and uint64 only", what, dt)
	}
}

func (d dtype) String() string {
	if d == boolType {
		return "bool"
	}
	return backend.DType(d).String()
}

// size returns the bytes of one value.
func (d dtype) size() int {
	if d == boolType {
		return 1
	}
	return backend.DType(d).Size()
}

func (d dtype) isFloat() bool { return d != boolType && backend.DType(d).IsFloat() }

func (d dtype) isNumber() bool { return d != boolType }

// op is the operation of a node.
type op int8

const (
	opVar op = iota
	opParam
	opConst
	opAdd
	opSub
	opMul
	opDiv
	opMin
	opMax
	opPow
	opLt
	opLe
	opGt
	opGe
	opEq
	opNe
	opAnd
	opOr
	opNot
	opWhere
	opNeg
	opAbs
	opSqrt
	opExp
	opLog
	opCast
	opOut
	opSum
	opDot
	opRMax
	opRMin
	// opAxpy and opAxmy are made by the compiler only: y + s*x and
	// y - s*x, args (s, x, y).
	opAxpy
	opAxmy
	opShift
	// opChain is made by the compiler only: ((s*x ± y1) ± y2) ± ..., args
	// (s, x, y1, ...) or (x, y1, ...).
	opChain
)

var opNames = [...]string{
	opVar: "Var", opParam: "Param", opConst: "Const", opAdd: "Add", opSub: "Sub",
	opMul: "Mul", opDiv: "Div", opMin: "Min", opMax: "Max", opPow: "Pow",
	opLt: "Lt", opLe: "Le", opGt: "Gt", opGe: "Ge", opEq: "Eq", opNe: "Ne",
	opAnd: "And", opOr: "Or", opNot: "Not", opWhere: "Where", opNeg: "Neg",
	opAbs: "Abs", opSqrt: "Sqrt", opExp: "Exp", opLog: "Log", opCast: "Cast",
	opOut: "Out", opSum: "Sum", opDot: "Dot", opRMax: "ReduceMax",
	opRMin: "ReduceMin", opAxpy: "axpy", opAxmy: "axmy",
	opShift: "Shift", opChain: "chain",
}

func (o op) String() string { return opNames[o] }

func (o op) isReduction() bool { return o == opSum || o == opDot || o == opRMax || o == opRMin }

// Expr is a node of a fused expression: a variable (an array), a parameter
// or constant (a scalar), an elementwise operation, an output or a
// reduction. Exprs are immutable values built by the functions of this
// package and may be shared between expressions and kernels; a node used
// twice is computed once. The functions never panic: a mistake (operands of
// different types, a float-only operation on integers) is kept in the node
// and returned by Compile.
type Expr struct {
	op    op
	dt    dtype
	name  string // Var, Param, Out and reductions
	args  []*Expr
	bits  uint64 // Const: the value's bits, as backend.Scalar holds them
	shift int    // Shift
	err   error
}

// Var is the array argument called name, of element type T: Run reads it
// from the Args. A Var always reads the array's values from before the
// call, even where the same array is also an output of the kernel.
func Var[T backend.Element](name string) *Expr {
	e := &Expr{op: opVar, dt: dtypeOf[T](), name: name, err: typeErr[T]("Var")}
	if name == "" {
		e.err = fmt.Errorf("fuse: Var with an empty name")
	}
	return e
}

// Param is the scalar argument called name, of type T: Run reads it from
// the Args as a T or a *T (read at each Run, so that a loop can change it
// without building a new Args).
func Param[T backend.Element](name string) *Expr {
	e := &Expr{op: opParam, dt: dtypeOf[T](), name: name, err: typeErr[T]("Param")}
	if name == "" {
		e.err = fmt.Errorf("fuse: Param with an empty name")
	}
	return e
}

// Shift is the array v (a Var) shifted by k: element i of Shift(v, k) is
// element i+k of v, and 0 where i+k is outside the array. It makes
// stencils on a flattened grid expressible: the 5-point Laplacian of a
// rows x cols grid p is 4p - Shift(p, -cols) - Shift(p, cols) -
// Shift(p, -1) - Shift(p, 1) at the interior points. An output may not
// be the array of a shifted Var (Run returns an error): its new values
// would be read by the chunks that follow.
func Shift(v *Expr, k int) *Expr {
	e := node(opShift, 0, v)
	e.shift = k
	if e.err != nil {
		return e
	}
	e.dt = v.dt
	if v.op != opVar {
		e.err = fmt.Errorf("fuse: Shift of a %v: only Vars (arrays) can be shifted", v.op)
	}
	return e
}

// Const is the constant v.
func Const[T backend.Element](v T) *Expr {
	return &Expr{op: opConst, dt: dtypeOf[T](), bits: backend.ScalarOf(v).Bits(), err: typeErr[T]("Const")}
}

// firstErr returns the first error of the operands, or nil.
func firstErr(args []*Expr) error {
	for _, a := range args {
		if a == nil {
			return fmt.Errorf("fuse: nil operand")
		}
		if a.err != nil {
			return a.err
		}
	}
	return nil
}

// node builds an operation node of type dt, after checking that the
// operands have no error and are not reductions.
func node(o op, dt dtype, args ...*Expr) *Expr {
	e := &Expr{op: o, dt: dt, args: args}
	if err := firstErr(args); err != nil {
		e.err = err
		return e
	}
	for _, a := range args {
		if a.op.isReduction() {
			e.err = fmt.Errorf("fuse: %v of the reduction %q: a reduction's value is known only after the pass; use it in another kernel", o, a.name)
			return e
		}
	}
	return e
}

// binary builds a node of two operands of the same type.
func binary(o op, a, b *Expr, floatOnly bool) *Expr {
	e := node(o, 0, a, b)
	if e.err != nil {
		return e
	}
	e.dt = a.dt
	switch {
	case a.dt != b.dt:
		e.err = fmt.Errorf("fuse: %v of %v and %v: convert one operand with Cast", o, a.dt, b.dt)
	case a.dt == boolType:
		e.err = fmt.Errorf("fuse: %v of bools: use Where, And, Or", o)
	case floatOnly && !a.dt.isFloat():
		e.err = fmt.Errorf("fuse: %v of %v: floats only (convert with Cast)", o, a.dt)
	}
	return e
}

// Add is a + b.
func Add(a, b *Expr) *Expr { return binary(opAdd, a, b, false) }

// Sub is a - b.
func Sub(a, b *Expr) *Expr { return binary(opSub, a, b, false) }

// Mul is a * b.
func Mul(a, b *Expr) *Expr { return binary(opMul, a, b, false) }

// Div is a / b, for floats only.
func Div(a, b *Expr) *Expr { return binary(opDiv, a, b, true) }

// Min is the smaller of a and b, as Go's min: a NaN operand gives NaN,
// and -0 is smaller than +0.
func Min(a, b *Expr) *Expr { return binary(opMin, a, b, false) }

// Max is the larger of a and b, as Go's max: a NaN operand gives NaN, and
// +0 is larger than -0.
func Max(a, b *Expr) *Expr { return binary(opMax, a, b, false) }

// Pow is a to the power b, as math.Pow (computed in float64 for float32),
// for floats only.
func Pow(a, b *Expr) *Expr { return binary(opPow, a, b, true) }

func compare(o op, a, b *Expr) *Expr {
	e := binary(o, a, b, false)
	e.dt = boolType
	return e
}

// Lt is a < b, a bool.
func Lt(a, b *Expr) *Expr { return compare(opLt, a, b) }

// Le is a <= b, a bool.
func Le(a, b *Expr) *Expr { return compare(opLe, a, b) }

// Gt is a > b, a bool.
func Gt(a, b *Expr) *Expr { return compare(opGt, a, b) }

// Ge is a >= b, a bool.
func Ge(a, b *Expr) *Expr { return compare(opGe, a, b) }

// Eq is a == b, a bool (false where either is NaN).
func Eq(a, b *Expr) *Expr { return compare(opEq, a, b) }

// Ne is a != b, a bool (true where either is NaN).
func Ne(a, b *Expr) *Expr { return compare(opNe, a, b) }

func logical(o op, args ...*Expr) *Expr {
	e := node(o, boolType, args...)
	if e.err != nil {
		return e
	}
	for _, a := range args {
		if a.dt != boolType {
			e.err = fmt.Errorf("fuse: %v of %v: bools only (compare first)", o, a.dt)
		}
	}
	return e
}

// And is a && b, of two bools.
func And(a, b *Expr) *Expr { return logical(opAnd, a, b) }

// Or is a || b, of two bools.
func Or(a, b *Expr) *Expr { return logical(opOr, a, b) }

// Not is !a, of a bool.
func Not(a *Expr) *Expr { return logical(opNot, a) }

// Where is a where cond is true, b elsewhere; cond is a bool, a and b of
// one type.
func Where(cond, a, b *Expr) *Expr {
	e := node(opWhere, 0, cond, a, b)
	if e.err != nil {
		return e
	}
	e.dt = a.dt
	switch {
	case cond.dt != boolType:
		e.err = fmt.Errorf("fuse: Where with a condition of %v: compare first", cond.dt)
	case a.dt != b.dt:
		e.err = fmt.Errorf("fuse: Where of %v and %v: convert one operand with Cast", a.dt, b.dt)
	}
	return e
}

func unary(o op, a *Expr, floatOnly bool) *Expr {
	e := node(o, 0, a)
	if e.err != nil {
		return e
	}
	e.dt = a.dt
	switch {
	case a.dt == boolType:
		e.err = fmt.Errorf("fuse: %v of a bool", o)
	case floatOnly && !a.dt.isFloat():
		e.err = fmt.Errorf("fuse: %v of %v: floats only (convert with Cast)", o, a.dt)
	}
	return e
}

// Neg is -a (integers wrap).
func Neg(a *Expr) *Expr { return unary(opNeg, a, false) }

// Abs is |a|: math.Abs for floats (the sign bit cleared, NaN stays NaN);
// for integers -a where a < 0, wrapping (the smallest integer stays as it
// is).
func Abs(a *Expr) *Expr { return unary(opAbs, a, false) }

// Sqrt is math.Sqrt(a), for floats only (float32 through float64, which
// rounds correctly).
func Sqrt(a *Expr) *Expr { return unary(opSqrt, a, true) }

// Exp is math.Exp(a), for floats only (float32 through float64).
func Exp(a *Expr) *Expr { return unary(opExp, a, true) }

// Log is math.Log(a), for floats only (float32 through float64).
func Log(a *Expr) *Expr { return unary(opLog, a, true) }

// Cast converts a to T as Go's conversion T(a) does; a bool converts to 1
// or 0. As in Go and C, converting a NaN, an infinity or a float out of
// T's range to an integer gives a value that depends on the machine.
func Cast[T backend.Element](a *Expr) *Expr {
	e := node(opCast, dtypeOf[T](), a)
	if e.err == nil {
		e.err = typeErr[T]("Cast")
	}
	return e
}

// Out writes the value of e into the array argument called name, of e's
// type, and is itself that value: an expression that uses the Out (a
// reduction of it, say) sees the new values. The array may be one of the
// kernel's Vars (an update in place, y = a*x + y): every Var still reads
// the values from before the call.
func Out(name string, e *Expr) *Expr {
	o := node(opOut, 0, e)
	o.name = name
	if o.err != nil {
		return o
	}
	o.dt = e.dt
	switch {
	case name == "":
		o.err = fmt.Errorf("fuse: Out with an empty name")
	case e.dt == boolType:
		o.err = fmt.Errorf("fuse: Out %q of bools: convert with Cast", name)
	}
	return o
}

func reduction(o op, name string, args ...*Expr) *Expr {
	r := node(o, 0, args...)
	r.name = name
	if r.err != nil {
		return r
	}
	a := args[0]
	r.dt = a.dt
	switch {
	case name == "":
		r.err = fmt.Errorf("fuse: %v with an empty name", o)
	case a.dt == boolType:
		r.err = fmt.Errorf("fuse: %v %q of bools: convert with Cast", o, name)
	case len(args) == 2 && args[1].dt != a.dt:
		r.err = fmt.Errorf("fuse: %v %q of %v and %v: convert one operand with Cast", o, name, a.dt, args[1].dt)
	}
	return r
}

// Sum is the reduction called name: the sum of e over all elements.
// Floats are added in float64 in the order that the package documentation
// fixes (the same for every thread count); integers wrap in 64 bits. Its
// result is a float64 for floats, an int64 or uint64 for integers.
func Sum(name string, e *Expr) *Expr { return reduction(opSum, name, e) }

// Dot is the reduction called name: the sum of a*b over all elements, the
// products taken in float64 (exact for float32) and added as Sum adds. For
// float64, Dot(name, a, b) and Sum(name, Mul(a, b)) are the same; for
// float32, Sum of Mul rounds each product to float32 first.
func Dot(name string, a, b *Expr) *Expr { return reduction(opDot, name, a, b) }

// ReduceMax is the reduction called name: the largest value of e, NaN if
// any is NaN, of e's type. Of zero elements it is -Inf for floats and the
// smallest integer of the type for integers.
func ReduceMax(name string, e *Expr) *Expr { return reduction(opRMax, name, e) }

// ReduceMin is the reduction called name: the smallest value of e, NaN if
// any is NaN. Of zero elements it is +Inf, or the largest integer.
func ReduceMin(name string, e *Expr) *Expr { return reduction(opRMin, name, e) }

// identity returns the bits of the value of a reduction over no elements,
// typed as its result.
func identity(o op, dt dtype) uint64 {
	switch o {
	case opRMax, opRMin:
		neg := o == opRMax
		inf := math.Inf(1)
		if neg {
			inf = math.Inf(-1)
		}
		switch backend.DType(dt) {
		case backend.Float64:
			return math.Float64bits(inf)
		case backend.Float32:
			return uint64(math.Float32bits(float32(inf)))
		case backend.Int32:
			if neg {
				return 1 << 31
			}
			return uint64(math.MaxInt32)
		case backend.Int64:
			if neg {
				return 1 << 63
			}
			return math.MaxInt64
		case backend.Uint32:
			if neg {
				return 0
			}
			return math.MaxUint32
		case backend.Uint64:
			if neg {
				return 0
			}
			return math.MaxUint64
		}
	}
	return 0
}

// ScalarOfBits returns the scalar of type dt held in the low bits of a
// 64-bit word, as a CUDAProgram's results and parameters are passed: what a
// CUDALauncher returns for each reduction.
func ScalarOfBits(dt backend.DType, bits uint64) backend.Scalar { return scalarOf(dt, bits) }

// scalarOf returns bits of type dt as a backend.Scalar.
func scalarOf(dt backend.DType, bits uint64) backend.Scalar {
	switch dt {
	case backend.Float32:
		return backend.ScalarOf(math.Float32frombits(uint32(bits)))
	case backend.Float64:
		return backend.ScalarOf(math.Float64frombits(bits))
	case backend.Int32:
		return backend.ScalarOf(int32(uint32(bits)))
	case backend.Int64:
		return backend.ScalarOf(int64(bits))
	case backend.Uint32:
		return backend.ScalarOf(uint32(bits))
	}
	return backend.ScalarOf(bits)
}
