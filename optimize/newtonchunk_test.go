package optimize

import (
	"fmt"
	"math"
	"testing"
)

// mixed is a batch of four kinds of equation by i%4: Kepler's (converges),
// x^2 = 2 (converges), x^2 = -1 (never converges; a zero derivative
// where x0 = 0) and cos x = x, with their first and second derivatives.
// The calls check that idx holds one chunk's elements (span < the chunk
// size) and count the evaluations of each element.
func mixed(n, chunk int, evals []int) (x0 []float64, f, fp, fpp BatchFunc) {
	x0 = make([]float64, n)
	for i := range x0 {
		x0[i] = float64(i%13) / 4 // 0 at i%13 == 0
	}
	g := func(d int) BatchFunc {
		return func(idx []int, x, out []float64) {
			if len(idx) != len(x) || len(idx) != len(out) {
				panic("shapes")
			}
			lo, hi := n, -1
			for k, i := range idx {
				lo, hi = min(lo, i), max(hi, i)
				if d == 0 {
					evals[i]++
				}
				v := x[k]
				switch i % 4 {
				case 0:
					e := 0.1 + 0.8*float64(i%7)/7
					out[k] = [3]float64{v - e*math.Sin(v) - x0[i], 1 - e*math.Cos(v), e * math.Sin(v)}[d]
				case 1:
					out[k] = [3]float64{v*v - 2, 2 * v, 2}[d]
				case 2:
					out[k] = [3]float64{v*v + 1, 2 * v, 2}[d]
				case 3:
					out[k] = [3]float64{math.Cos(v) - v, -math.Sin(v) - 1, -math.Cos(v)}[d]
				}
			}
			if hi-lo >= chunk {
				panic(fmt.Sprintf("a call spans elements %d to %d, chunks of %d", lo, hi, chunk))
			}
		}
	}
	return x0, g(0), g(1), g(2)
}

// alone solves element i of mixed's batch of n by itself.
func alone(n, i int, x0 float64, method string, o *NewtonOptions) *NewtonResult {
	_, f, fp, fpp := mixed(n, n+1, make([]int, n))
	at := func(g BatchFunc) BatchFunc {
		return func(idx []int, x, out []float64) { g([]int{i}, x, out) }
	}
	f, fp = at(f), at(fp)
	if method == "secant" {
		fp = nil
	}
	if o.FPrime2 != nil {
		o.FPrime2 = at(fpp)
	}
	r, _ := Newton(f, fp, []float64{x0}, o)
	return r
}

// TestNewtonChunks: at chunk sizes around the batch's size (none, one, a
// chunk short, exact, one over, several), for the three methods, compacted
// and lockstep, every element gets the bits (root, steps, residual, masks)
// it gets alone, each call of f stays within a chunk, and compaction
// evaluates each element at most as often as lockstep.
func TestNewtonChunks(t *testing.T) {
	defer func(c int) { chunkSize = c }(chunkSize)
	for _, c := range []int{1, 7, 8, newtonChunk} {
		sizes := []int{0, 1, c - 1, c, c + 1, 3*c + 2}
		if c == newtonChunk {
			sizes = []int{c - 1, c, c + 1, 2*c + 5}
		}
		for _, n := range sizes {
			for _, method := range []string{"newton", "halley", "secant"} {
				t.Run(fmt.Sprintf("chunk%d/n%d/%s", c, n, method), func(t *testing.T) {
					chunkSize = c
					evals := make([]int, n)
					x0, f, fp, fpp := mixed(n, c, evals)
					opts := func(lock bool) *NewtonOptions {
						o := &NewtonOptions{MaxIter: 30, Lockstep: lock}
						if method == "halley" {
							o.FPrime2 = fpp
						}
						return o
					}
					if method == "secant" {
						fp = nil
					}
					batch, errB := Newton(f, fp, x0, opts(false))
					batchEvals := append([]int(nil), evals...)
					clear(evals)
					lock, _ := Newton(f, fp, x0, opts(true))
					conv, zero, failed := 0, 0, 0
					for i := 0; i < n; i++ {
						if batchEvals[i] > evals[i] {
							t.Errorf("element %d: %d evaluations compacted, %d lockstep", i, batchEvals[i], evals[i])
						}
						// Alone: element i as the only one of a batch.
						all := alone(n, i, x0[i], method, opts(false))
						for _, r := range []*NewtonResult{batch, lock} {
							if math.Float64bits(r.Root[i]) != math.Float64bits(all.Root[0]) || r.Iterations[i] != all.Iterations[0] ||
								math.Float64bits(r.Residual[i]) != math.Float64bits(all.Residual[0]) ||
								r.Converged[i] != all.Converged[0] || r.ZeroDer[i] != all.ZeroDer[0] {
								t.Fatalf("element %d: root %v, %d steps, residual %v, converged %v, zero %v; alone %v %d %v %v %v", i,
									r.Root[i], r.Iterations[i], r.Residual[i], r.Converged[i], r.ZeroDer[i],
									all.Root[0], all.Iterations[0], all.Residual[0], all.Converged[0], all.ZeroDer[0])
							}
						}
						switch {
						case batch.Converged[i]:
							conv++
						case batch.ZeroDer[i]:
							zero++
						default:
							failed++
						}
					}
					if batch.NumConverged != conv || batch.NumZeroDer != zero || batch.NumFailed != failed {
						t.Errorf("counts %d %d %d, masks %d %d %d", batch.NumConverged, batch.NumZeroDer, batch.NumFailed, conv, zero, failed)
					}
					if (errB == nil) != (zero+failed == 0) {
						t.Errorf("error %v with %d zero derivatives, %d failed", errB, zero, failed)
					}
				})
			}
		}
	}
}
