package optimize

import (
	"fmt"
	"math"
	"testing"
)

// The benchmarks solve 10^6 Kepler equations: batched (compacted and
// lockstep) against a plain Go loop that runs Newton's iteration on each
// element in turn with direct calls (the fastest a caller could write by
// hand, with no batch to hand to a device).

const benchN = 1000000

func BenchmarkNewtonKeplerBatch(b *testing.B) {
	m, e := kepler(benchN)
	f, fp, _ := keplerFuncs(m, e, 0)
	for b.Loop() {
		Newton(f, fp, m, nil)
	}
}

func BenchmarkNewtonKeplerLockstep(b *testing.B) {
	m, e := kepler(benchN)
	f, fp, _ := keplerFuncs(m, e, 0)
	for b.Loop() {
		Newton(f, fp, m, &NewtonOptions{Lockstep: true})
	}
}

func BenchmarkNewtonKeplerHalleyBatch(b *testing.B) {
	m, e := kepler(benchN)
	f, fp, fpp := keplerFuncs(m, e, 0)
	for b.Loop() {
		Newton(f, fp, m, &NewtonOptions{FPrime2: fpp})
	}
}

func BenchmarkNewtonKeplerSecantBatch(b *testing.B) {
	m, e := kepler(benchN)
	f, _, _ := keplerFuncs(m, e, 0)
	for b.Loop() {
		Newton(f, nil, m, nil)
	}
}

// BenchmarkNewtonKeplerLoop is the per-element reference: the same steps
// and tolerance, with the root and the residual, written out per element.
func BenchmarkNewtonKeplerLoop(b *testing.B) {
	m, e := kepler(benchN)
	root := make([]float64, benchN)
	resid := make([]float64, benchN)
	for b.Loop() {
		for i := range m {
			x := m[i]
			for it := 0; it < 50; it++ {
				fv := x - e[i]*math.Sin(x) - m[i]
				if fv == 0 {
					break
				}
				dv := 1 - e[i]*math.Cos(x)
				if dv == 0 {
					break
				}
				dp := fv / dv
				x -= dp
				if math.Abs(dp) < 1.48e-8 {
					break
				}
			}
			root[i] = x
			resid[i] = x - e[i]*math.Sin(x) - m[i]
		}
	}
}

// costly wraps a BatchFunc with extra work per element (16 exponentials,
// a stand-in for an equation of state or a table lookup), to show what
// compaction saves when an evaluation is expensive.
func costly(g BatchFunc) BatchFunc {
	return func(idx []int, x, out []float64) {
		g(idx, x, out)
		for k := range idx {
			s := 0.0
			for j := 0; j < 16; j++ {
				s += math.Exp(-float64(j) * x[k])
			}
			out[k] += s * 0 // the same values, the cost of computing s
		}
	}
}

func BenchmarkNewtonKeplerCostlyBatch(b *testing.B) {
	m, e := kepler(benchN)
	f, fp, _ := keplerFuncs(m, e, 0)
	f, fp = costly(f), costly(fp)
	for b.Loop() {
		Newton(f, fp, m, nil)
	}
}

func BenchmarkNewtonKeplerCostlyLockstep(b *testing.B) {
	m, e := kepler(benchN)
	f, fp, _ := keplerFuncs(m, e, 0)
	f, fp = costly(f), costly(fp)
	for b.Loop() {
		Newton(f, fp, m, &NewtonOptions{Lockstep: true})
	}
}

// BenchmarkNewtonKeplerChunk is the batch at several chunk sizes, the
// largest one chunk for all (the batch before chunks).
func BenchmarkNewtonKeplerChunk(b *testing.B) {
	m, e := kepler(benchN)
	f, fp, _ := keplerFuncs(m, e, 0)
	for _, c := range []int{256, 1024, 4096, benchN} {
		b.Run(fmt.Sprint(c), func(b *testing.B) {
			defer func(c int) { chunkSize = c }(chunkSize)
			chunkSize = c
			for b.Loop() {
				Newton(f, fp, m, nil)
			}
		})
	}
}
