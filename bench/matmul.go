package bench

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// matmulID is the id of the matrix-product workload (docs/BENCH.md's "matrix
// product" row).
const matmulID = "W9"

// targetMatMul is the largest ratio (reference GFLOP/s over xpmpi's) that
// meets issue 12's target: the same speed as OpenBLAS, within 10%.
const targetMatMul = 1.10

// The matrices of the workload: small multiples of 1/8, whose products and
// sums float64 holds exactly in any order at these sizes, so that both
// sides' checksums are equal.
func matmulA(i, j int) float64 { return float64((i*7+j*3)%17-8) / 8 }
func matmulB(i, j int) float64 { return float64((i*5+j*11)%13-6) / 8 }

// matmulWeight weights element ij of C in the checksum, so that a
// transposed or shifted result does not sum to the same.
func matmulWeight(i, j int) float64 { return float64((i+2*j)%5 + 1) }

// matmulCases are the three computations: C = A B with A split by rows and
// B replicated (a local product on each rank); with both split by rows
// (B's blocks passed around a ring of the ranks, overlapped with the local
// products: dist.MatMulRing; xpref_matmul's mode 1); and with A, B and C on
// a 1 x p process grid (split by columns: dist.MatMul's SUMMA, A's panels
// broadcast; mode 2).
var matmulCases = []struct {
	metric string
	mode   int64
	bAxis  int
	grid   bool
}{
	{"MatMul, B replicated", 0, dist.Replicated, false},
	{"MatMul, A and B split (ring)", 1, 0, false},
	{"MatMul, A and B on a 1 x p grid (SUMMA)", 2, 0, true},
}

// benchMatMul multiplies two n x n matrices with dist.MatMul against
// xpref_matmul (OpenBLAS's cblas_dgemm on the same blocks, the same ring
// or SUMMA), into a result made once outside the timed region (MatMulInto),
// for each of matmulCases. The figure is GFLOP/s, counting 2n^3.
func (e *benchEnv) benchMatMul() ([]Row, error) {
	n := e.sizes.MatMulN
	e.say("%s matrix product, %d x %d by %d x %d", matmulID, n, n, n, n)
	p := e.world.Size()
	flops := 2 * float64(n) * float64(n) * float64(n)
	gflops := func(s Sample) float64 { return flops / s.Seconds / 1e9 }
	var rows []Row
	for _, mc := range matmulCases {
		aOpts, bOpts := []dist.Option{dist.SplitAxis(0)}, []dist.Option{dist.SplitAxis(mc.bAxis)}
		method := dist.MatMulRing
		if mc.grid {
			aOpts, bOpts = []dist.Option{dist.ProcessGrid(1, p)}, []dist.Option{dist.ProcessGrid(1, p)}
			method = dist.MatMulAuto
		}
		opts := dist.MatMulOptions{Method: method}
		a, err := dist.FromFunc(e.world, []int{n, n}, func(idx []int) float64 { return matmulA(idx[0], idx[1]) }, aOpts...)
		if err != nil {
			return nil, err
		}
		b, err := dist.FromFunc(e.world, []int{n, n}, func(idx []int) float64 { return matmulB(idx[0], idx[1]) }, bOpts...)
		if err != nil {
			a.Free()
			return nil, err
		}
		// The result, made and touched once outside the timed region, as
		// the reference's is: the product writes into it (MatMulInto).
		c, err := dist.MatMulWithOptions(a, b, opts)
		if err != nil {
			a.Free()
			b.Free()
			return nil, err
		}
		xp := func() (Sample, error) {
			secs, err := e.timed(func() error {
				return dist.MatMulIntoWithOptions(c, a, b, opts)
			})
			if err != nil {
				return Sample{}, err
			}
			start, shape := c.Layout().Block(e.world.Rank())
			sum := 0.0
			for k, v := range c.LocalData() {
				i, j := start[0]+k/shape[1], start[1]+k%shape[1]
				sum += v * matmulWeight(i, j)
			}
			g, err := mpi.AllreduceValue(e.world, sum, mpi.Sum)
			return Sample{Seconds: secs, Checksum: g, OK: true}, err
		}
		ref := func() (Sample, error) {
			return e.ref.Call("xpref_matmul", Params{N: int64(n), Iters: mc.mode, Threads: int64(e.threads)})
		}
		type sides struct{ xs, rs []Sample }
		res, err := withThreads(e.threads, func() (sides, error) {
			xs, rs, err := e.interleave(xp, ref)
			return sides{xs, rs}, err
		})
		a.Free()
		b.Free()
		c.Free()
		if err != nil {
			return nil, err
		}
		xs, rs := res.xs, res.rs
		// Exact values: the checksums are equal.
		ck := compareChecksums(matmulID, fmt.Sprintf("%s: weighted sum of C", mc.metric), xs, rs, 0, nil)
		e.checks = append(e.checks, ck)
		rows = append(rows, newRow(matmulID, p, e.be, mc.metric, "GFLOP/s", KindRate, targetMatMul, figures(xs, gflops), figures(rs, gflops), ck.OK))
	}
	return rows, nil
}
