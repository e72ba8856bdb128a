package cuda_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestGPUMath checks the math functions of math.cu (the driver.Math of the
// CUDA backend) against the CPU backend's, on special values and random
// ones, every element type, into another buffer and in place, and on empty
// buffers. On the fake driver the kernels are math.cu compiled by g++, and
// the functions glibc's: Floor, Sqrt, Abs and Clip must give the CPU's bits
// and the others come within the ulps of gpuMathULPs (glibc's float32
// functions against Go's float64 ones rounded once, and glibc's float64
// ones against Go's, which dist's tests measure against NumPy, that is
// glibc). On a GPU CUDA's own functions add their documented errors:
// gpuMathULPs allows for them but is not checked on a GPU here.
func TestGPUMath(t *testing.T) {
	b := gpu(t)
	gpuMath[float32](t, b)
	gpuMath[float64](t, b)
	gpuMathInt[int32](t, b)
	gpuMathInt[int64](t, b)
	gpuMathInt[uint32](t, b)
	gpuMathInt[uint64](t, b)
}

// gpuMathULPs are the ulps allowed between the CUDA backend's and the CPU
// backend's results, by function and float type (float32, float64), on the
// fake driver and on a GPU.
var gpuMathULPs = map[string][2][2]int64{
	//         fake driver   GPU
	"exp":  {{1, 1}, {3, 2}},
	"log":  {{1, 1}, {2, 2}},
	"sin":  {{1, 25}, {3, 26}},
	"cos":  {{1, 7}, {3, 8}},
	"tanh": {{2, 2}, {3, 3}},
	"pow":  {{1, 2}, {5, 4}},
	// math_more: glibc's against Go's (the fake driver) and CUDA's stated
	// bounds plus the CPU's (a GPU).
	"log10":   {{2, 1}, {3, 3}},
	"log2":    {{1, 1}, {3, 3}},
	"tan":     {{1, 25}, {4, 26}},
	"arcsin":  {{1, 2}, {3, 4}},
	"arccos":  {{1, 2}, {3, 4}},
	"arctan":  {{1, 2}, {3, 4}},
	"sinh":    {{1, 2}, {4, 4}},
	"cosh":    {{1, 2}, {3, 3}},
	"arcsinh": {{1, 2}, {4, 4}},
	"arccosh": {{1, 2}, {5, 4}},
	"arctanh": {{1, 2}, {4, 4}},
	"arctan2": {{1, 2}, {4, 4}},
}

// mathInputs returns the special values and n random values of T.
func mathInputs[T backend.Float](n int) []T {
	in := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 2, -2.5, 3, 10, 88.7, 89, -103.9, 100, 709.7, 710,
		-745.2, 1000, -1000, math.Pi, -math.Pi / 2, 1e-30, 1e-45, 5e-324, 1e-310, 1e10, 1e22, 1e300,
		math.MaxFloat32, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	r := rand.New(rand.NewPCG(7, uint64(backend.DTypeOf[T]())))
	out := make([]T, 0, len(in)+n)
	for _, v := range in {
		out = append(out, T(v))
	}
	for range n {
		out = append(out, T((2*r.Float64()-1)*math.Ldexp(1, r.IntN(16)-6)))
	}
	return out
}

// distance returns the distance in ulps of g from w, 0 for two NaNs, and
// MaxInt64 for a NaN, zero or infinity that does not match exactly.
func distance[T backend.Float](g, w T) int64 {
	if g != g && w != w {
		return 0
	}
	gs, ws := driver.ScalarOf(g), driver.ScalarOf(w)
	if gs.Bits() == ws.Bits() {
		return 0
	}
	gf, wf := float64(g), float64(w)
	if gf != gf || wf != wf || gf == 0 || wf == 0 || math.IsInf(gf, 0) || math.IsInf(wf, 0) || math.Signbit(gf) != math.Signbit(wf) {
		return math.MaxInt64
	}
	d := int64(gs.Bits()) - int64(ws.Bits()) // same sign: the bits order the magnitudes
	if d < 0 {
		d = -d
	}
	return d
}

func gpuMath[T backend.Float](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	x := mathInputs[T](3000)
	y := mathInputs[T](3000)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	k := 0
	if dt == backend.Float64 {
		k = 1
	}
	g := 0
	if !emulated(b) {
		g = 1
	}
	type op struct {
		name  string
		f     func(be backend.Backend, bufs []driver.Buffer)
		nargs int
	}
	var ops []op
	for u := driver.UnaryOp(0); u.Valid(); u++ {
		ops = append(ops, op{u.String(), func(be backend.Backend, x []driver.Buffer) { be.(driver.Math).Unary(u, x[0], x[1]) }, 2})
	}
	for u := driver.BinaryMathOp(0); u.Valid(); u++ {
		ops = append(ops, op{u.String(), func(be backend.Backend, x []driver.Buffer) { be.(driver.Math).BinaryMath(u, x[0], x[1], x[2]) }, 3})
	}
	ops = append(ops,
		op{"pow", func(be backend.Backend, x []driver.Buffer) { be.(driver.Math).Pow(x[0], x[1], x[2]) }, 3},
		op{"pow", func(be backend.Backend, x []driver.Buffer) {
			be.(driver.Math).PowScalar(x[0], x[1], driver.ScalarOf(T(-1.5)))
		}, 2},
		op{"clip", func(be backend.Backend, x []driver.Buffer) {
			be.(driver.Math).Clip(x[0], x[1], driver.ScalarOf(T(-0.75)), driver.ScalarOf(T(3)))
		}, 2},
		op{"clip", func(be backend.Backend, x []driver.Buffer) {
			be.(driver.Math).Clip(x[0], x[1], driver.ScalarOf(T(2)), driver.ScalarOf(T(-2)))
		}, 2},
		op{"clip", func(be backend.Backend, x []driver.Buffer) {
			be.(driver.Math).Clip(x[0], x[1], driver.ScalarOf(T(math.NaN())), driver.ScalarOf(T(1)))
		}, 2},
	)
	for _, o := range ops {
		tol := gpuMathULPs[o.name][g][k] // 0 where not listed: exact
		for _, inPlace := range []bool{false, true} {
			for _, n := range []int{len(x), 0} {
				inputs := [][]T{make([]T, n), x[:n], y[:n]}[:o.nargs]
				hb := make([]driver.Buffer, len(inputs))
				db := make([]driver.Buffer, len(inputs))
				for i, in := range inputs {
					hb[i] = driver.HostBufferOf(append([]T(nil), in...))
					db[i] = upload(t, b, in)
				}
				if inPlace { // dst is x
					hb[0], db[0] = hb[1], db[1]
				}
				o.f(cpu.Default, hb)
				o.f(b, db)
				want := driver.HostSlice[T](hb[0])
				got := download[T](t, b, db[0])
				worst, at := int64(-1), 0
				for i := range want {
					if d := distance(got[i], want[i]); d > worst {
						worst, at = d, i
					}
				}
				if worst > tol {
					t.Errorf("%v %s (in place %v): element %d of %v: %v on the GPU, %v on the CPU (%d ulps, at most %d)",
						dt, o.name, inPlace, at, x[at], got[at], want[at], worst, tol)
				}
				for i := range db {
					if !(inPlace && i == 0) {
						b.Free(db[i])
					}
				}
			}
		}
	}
}

func gpuMathInt[T backend.Element](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	r := rand.New(rand.NewPCG(9, uint64(dt)))
	x := []T{0, 1, 2, 7}
	one := T(1)
	minus := T(0) - one
	top, ones := uint64(1)<<(8*dt.Size()-1), ^uint64(0) // conversions to T keep the low bits
	// -1 and -2 (the largest values, if unsigned), the largest signed, the
	// most negative (or 2**(bits-1)) and the next, all ones.
	x = append(x, minus, minus-one, T(top-1), T(top), T(top+1), T(ones))
	for range 500 {
		x = append(x, T(r.Uint64()))
	}
	bounds := [][2]T{{0, 10}, {10, 0}, {5, 5}, {minus, one}}
	for _, inPlace := range []bool{false, true} {
		check := func(what string, f func(be backend.Backend, dst, src driver.Buffer)) {
			t.Helper()
			hd, hx := driver.HostBufferOf(make([]T, len(x))), driver.HostBufferOf(append([]T(nil), x...))
			dd, dx := upload(t, b, make([]T, len(x))), upload(t, b, x)
			if inPlace {
				hd, dd = hx, dx
			}
			f(cpu.Default, hd, hx)
			f(b, dd, dx)
			want, got := driver.HostSlice[T](hd), download[T](t, b, dd)
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%v %s (in place %v): element %d of %v: %v on the GPU, %v on the CPU", dt, what, inPlace, i, x[i], got[i], want[i])
					break
				}
			}
			b.Free(dx)
			if !inPlace {
				b.Free(dd)
			}
		}
		check("abs", func(be backend.Backend, d, s driver.Buffer) { be.(driver.Math).Unary(driver.Abs, d, s) })
		check("sign", func(be backend.Backend, d, s driver.Buffer) { be.(driver.Math).Unary(driver.Sign, d, s) })
		// The functions of two arguments, with y the reversed x (so that
		// 0, -1 and the most negative integer meet each other).
		for u := driver.BinaryMathOp(0); u.Valid(); u++ {
			if u.FloatOnly() {
				continue
			}
			ys := slices.Clone(x)
			slices.Reverse(ys)
			hy, dy := driver.HostBufferOf(ys), upload(t, b, ys)
			check(u.String(), func(be backend.Backend, d, s driver.Buffer) {
				if be == backend.Backend(b) {
					be.(driver.Math).BinaryMath(u, d, s, dy)
				} else {
					be.(driver.Math).BinaryMath(u, d, s, hy)
				}
			})
			b.Free(dy)
		}
		for _, bd := range bounds {
			check("clip", func(be backend.Backend, d, s driver.Buffer) {
				be.(driver.Math).Clip(d, s, driver.ScalarOf(bd[0]), driver.ScalarOf(bd[1]))
			})
		}
	}
}
