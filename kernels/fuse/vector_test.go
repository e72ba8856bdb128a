package fuse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sameBits reports whether a and b are the same float64, bit for bit, or
// both NaN (the payload of a NaN made from two NaNs depends on the order
// of the operands, which neither path fixes).
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b)
}

// vecData returns n values: random normals, scaled over many binades so
// that the order of additions shows, with NaN, +Inf, -Inf and -0 sprinkled
// in where special.
func vecData(rng *rand.Rand, n int, special bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20)
		if special {
			switch rng.IntN(40) {
			case 0:
				v[i] = math.NaN()
			case 1:
				v[i] = math.Inf(1)
			case 2:
				v[i] = math.Inf(-1)
			case 3:
				v[i] = math.Copysign(0, -1)
			}
		}
	}
	return v
}

// TestVectorKernels compares the AVX2 kernels and their AVX-512 forms
// with the Go loops bit for bit, for every tail length (n = 0..80, and a whole chunk and more), on
// finite data and on data with NaN, Inf and -0, with outputs that are
// operands (d = x, d = y) and outputs of their own.
func TestVectorKernels(t *testing.T) {
	if !setVector(true) {
		setVector(false)
		if !useVector {
			t.Log("no AVX2 here: the Go loops are compared with themselves")
		}
	}
	defer setVector(setVector(true))
	rng := rand.New(rand.NewPCG(1, 2))
	var sizes []int
	for n := 0; n <= 80; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 255, 511, 512)
	// run calls f with the AVX2 kernels, with their AVX-512 forms (where
	// the processor has AVX-512F) and with the Go loops, and compares what
	// the kernels return with what the loops do.
	defer setAVX512(setAVX512(false))
	run := func(name string, n int, f func() []float64) {
		t.Helper()
		setVector(false)
		want := f()
		setVector(true)
		for _, avx512 := range []bool{false, true} {
			if setAVX512(avx512); use512 != avx512 {
				continue // no AVX-512F here
			}
			got := f()
			for i := range want {
				if !sameBits(got[i], want[i]) {
					t.Errorf("%s n=%d (AVX-512 %v): value %d = %v (%#x), Go loop %v (%#x)", name, n, avx512, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
					return
				}
			}
		}
	}
	for _, special := range []bool{false, true} {
		for _, n := range sizes {
			x, y, x2, y2 := vecData(rng, n, special), vecData(rng, n, special), vecData(rng, n, special), vecData(rng, n, special)
			s, s2 := 0.37, -1.25
			cp := func(v []float64) []float64 { return append([]float64(nil), v...) }
			run("dot", n, func() []float64 { return []float64{dotF64(x, y)} })
			run("dot self", n, func() []float64 { return []float64{dotF64(x, x)} })
			run("axpy", n, func() []float64 {
				d := make([]float64, n)
				axpyF64(d, s, x, y)
				return d
			})
			run("axpy d=y", n, func() []float64 {
				d := cp(y)
				axpyF64(d, s, x, d)
				return d
			})
			run("axpy d=x", n, func() []float64 {
				d := cp(x)
				axpyF64(d, s, d, y)
				return d
			})
			run("axpy+dot", n, func() []float64 {
				d := cp(y)
				r := axpyDotF64(d, s, x, d)
				return append(d, r)
			})
			run("axpy pair+dot", n, func() []float64 {
				d1, d2 := cp(y), cp(y2)
				r := axpy2DotF64(d1, s, x, d1, d2, s2, x2, d2)
				return append(append(d1, d2...), r)
			})
			run("axpy pair+dot, d1 = x2", n, func() []float64 {
				d1, d2 := cp(x2), make([]float64, n)
				r := axpy2DotF64(d1, s, x, y, d2, s2, d1, y2)
				return append(append(d1, d2...), r)
			})
			y3, y4 := vecData(rng, n, special), vecData(rng, n, special)
			run("chain4", n, func() []float64 {
				d := make([]float64, n)
				chain4F64(d, 4, x, -1, y, 1, y2, -1, y3, -1, y4)
				return d
			})
			run("chain4 d=y3", n, func() []float64 {
				d := cp(y3)
				chain4F64(d, s, x, -1, y, -1, y2, 1, d, -1, y4)
				return d
			})
		}
	}
}

// TestLanes16 checks the documented order of a chunk's float sum with
// values whose sum depends on it: 2^60 in lane 0 cancels only with lane 8
// (combined first), and the tail is added after the lanes.
func TestLanes16(t *testing.T) {
	big := math.Ldexp(1, 60)
	defer setVector(setVector(false))
	defer setAVX512(setAVX512(false))
	// The Go loops, the AVX2 kernels, their AVX-512 forms (each where it runs).
	for _, mode := range []struct{ vec, avx512 bool }{{false, false}, {true, false}, {true, true}} {
		setVector(mode.vec)
		setAVX512(mode.avx512)
		vec := fmt.Sprintf("%v, AVX-512 %v", mode.vec, mode.avx512)
		a := make([]float64, 35)
		ones := make([]float64, 35)
		for i := range ones {
			ones[i] = 1
		}
		a[0], a[8], a[4] = big, -big, 1    // (big + -big) + (1 + 0) = 1
		a[16], a[24] = big, -big           // lanes 0 and 8 again: 0
		a[32], a[33], a[34] = big, 1, -big // the tail, in order: (1 + big) + 1 - big = 0
		// lanes: c0 = (0 + 0) + (1 + 0) = 1; the rest 0; the sum 1; then
		// the tail 1 + big = big, + 1 = big, - big = 0.
		if got := dotF64(a, ones); got != 0 {
			t.Errorf("vector=%v: dot = %v, want 0", vec, got)
		}
		if got := sumFK(a); got != 0 {
			t.Errorf("vector=%v: sum = %v, want 0", vec, got)
		}
		a[32], a[33], a[34] = 0, 0, 0
		if got := dotF64(a, ones); got != 1 {
			t.Errorf("vector=%v: dot = %v, want 1", vec, got)
		}
	}
}

// TestVectorKernelsNoAlloc checks that calling the AVX2 kernels (and their
// AVX-512 forms where they run) allocates nothing (their pointers do not
// escape).
func TestVectorKernelsNoAlloc(t *testing.T) {
	defer setVector(setVector(true))
	defer setAVX512(setAVX512(true))
	const n = 100
	x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
	d, e := make([]float64, n), make([]float64, n)
	var sink float64
	allocs := testing.AllocsPerRun(20, func() {
		sink += dotF64(x, y)
		axpyF64(d, 0.5, x, y)
		sink += axpyDotF64(d, 0.5, x, y)
		sink += axpy2DotF64(d, 0.5, x, y, e, -0.5, y, z)
		chain4F64(d, 4, x, -1, y, -1, z, -1, e, -1, x)
	})
	if allocs != 0 {
		t.Errorf("the vector kernels allocate %v times per call", allocs)
	}
	_ = sink
}
