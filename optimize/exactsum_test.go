package optimize

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/exactsum"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestExactSumDist: ExactSum, the exact dot and the largest magnitude of a
// distributed array give the same bits at every rank count as on one
// process. the same bits at every rank count as on one process.
func TestExactSumDist(t *testing.T) {
	world := mpitest.World(t)
	for _, n := range []int{3, 1000, 4097} {
		x, err := dist.FromFunc(world, []int{n}, func(idx []int) float64 { return math.Sin(float64(idx[0])) * math.Exp(float64(idx[0]%40)) })
		if err != nil {
			t.Fatal(err)
		}
		full := make([]float64, n)
		for i := range full {
			full[i] = math.Sin(float64(i)) * math.Exp(float64(i%40))
		}
		got, err := ExactSum(world, x.LocalData())
		if err != nil {
			t.Fatal(err)
		}
		var want exactsum.Sum
		for _, v := range full {
			want.Add(v)
		}
		dot, err := dotExact(x, x)
		if err != nil {
			t.Fatal(err)
		}
		wantDot, _ := dotLocal(nil, false, full, full)
		m, err := maxAbs(x)
		if err != nil {
			t.Fatal(err)
		}
		mpitest.Check(t, world, got == want.Value() && dot == wantDot && m == infNorm(full), "n=%d: sum %v (%v), dot %v (%v), max %v", n, got, want.Value(), dot, wantDot, m)
		x.Free()
	}
}
