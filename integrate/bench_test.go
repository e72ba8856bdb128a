package integrate

import (
	"fmt"
	"math"
	"testing"
)

func BenchmarkQuad(b *testing.B) {
	f := func(x float64) float64 { return math.Cos(100 * x) }
	for b.Loop() {
		Quad(f, 0, 1, nil)
	}
}

func BenchmarkQuadBatch1000(b *testing.B) {
	const n = 1000
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range hi {
		hi[i] = 1 + float64(i)/n
	}
	f := func(p []int, x, y []float64) {
		for i := range x {
			y[i] = math.Cos(100 * x[i])
		}
	}
	for b.Loop() {
		QuadBatch(f, lo, hi, nil)
	}
}

func BenchmarkSolveIVPRK45(b *testing.B) {
	for b.Loop() {
		SolveIVP(oscF, 0, 100, []float64{1, 0}, &IVPOptions{Method: RK45, RelTol: 1e-8, AbsTol: 1e-10})
	}
}

func BenchmarkSolveIVPRadauVdP(b *testing.B) {
	for b.Loop() {
		SolveIVP(vdpF, 0, 3000, []float64{2, 0}, &IVPOptions{Method: Radau, Jac: vdpJ})
	}
}

func benchBatch(b *testing.B, m Method, ns int) {
	y0 := make([]float64, 2*ns)
	for s := 0; s < ns; s++ {
		y0[2*s] = 2
	}
	f := func(tv, y, dy []float64) {
		for s := 0; s < ns; s++ {
			mu := 1 + float64(s%10)
			dy[2*s] = y[2*s+1]
			dy[2*s+1] = mu*(1-y[2*s]*y[2*s])*y[2*s+1] - y[2*s]
		}
	}
	for b.Loop() {
		SolveIVPBatch(f, ns, 2, 0, 10, y0, &IVPOptions{Method: m})
	}
}

func BenchmarkSolveIVPBatchRK45x1000(b *testing.B) { benchBatch(b, RK45, 1000) }
func BenchmarkSolveIVPBatchRadaux100(b *testing.B) { benchBatch(b, Radau, 100) }

// The W10 workload of xpmpi bench, at 1/10 of its size: 10^4 Van der Pol
// oscillators, mu from 0.5 to 1.49, to t = 10, RK45 at rtol 1e-6, atol
// 1e-9: the lockstep batch over all systems, and the indexed batch a
// chunk at a time.
const vdpBenchN = 10000

func vdpBench() ([]float64, []float64, *IVPOptions) {
	mu := make([]float64, vdpBenchN)
	y0 := make([]float64, 2*vdpBenchN)
	for i := range mu {
		mu[i] = 0.5 + float64(i%100)/100
		y0[2*i] = 2
	}
	return mu, y0, &IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9, IgnoreStiffness: true}
}

func BenchmarkVdPBatch(b *testing.B) {
	mu, y0, opts := vdpBench()
	f := func(t, y, dy []float64) {
		for s, u := range mu {
			a, v := y[2*s], y[2*s+1]
			dy[2*s] = v
			dy[2*s+1] = u*(1-a*a)*v - a
		}
	}
	for b.Loop() {
		SolveIVPBatch(f, vdpBenchN, 2, 0, 10, y0, opts)
	}
}

func BenchmarkVdPIndexed(b *testing.B) {
	mu, y0, opts := vdpBench()
	f := func(idx []int, t, y, dy []float64) {
		for k, i := range idx {
			a, v := y[2*k], y[2*k+1]
			dy[2*k] = v
			dy[2*k+1] = mu[i]*(1-a*a)*v - a
		}
	}
	for _, slots := range []int{64, 256, 1024, 4096} {
		b.Run(fmt.Sprint(slots), func(b *testing.B) {
			defer func(f func(int) int) { indexedSlots = f }(indexedSlots)
			indexedSlots = func(int) int { return slots }
			for b.Loop() {
				SolveIVPIndexed(f, vdpBenchN, 2, 0, 10, y0, opts)
			}
		})
	}
}
