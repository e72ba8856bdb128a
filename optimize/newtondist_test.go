package optimize

import (
	"errors"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// unevenCounts divides n among p ranks unevenly (rank r gets about 1+3r,
// the last the rest).
func unevenCounts(n, p int) []int {
	counts := make([]int, p)
	left := n
	for r := range counts {
		counts[r] = min(left, 1+3*r)
		left -= counts[r]
	}
	counts[p-1] += left
	return counts
}

// distOf is a distributed array of the values m, in even blocks or, if
// uneven, in unevenCounts' blocks.
func distOf(t *testing.T, world mpi.Comm, m []float64, uneven bool) *dist.Array[float64] {
	t.Helper()
	var opts []dist.Option
	if uneven {
		opts = append(opts, dist.BlockSizes(unevenCounts(len(m), world.Size())))
	}
	x0, err := dist.FromFunc(world, []int{len(m)}, func(idx []int) float64 { return m[idx[0]] }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return x0
}

// TestNewtonDistKepler solves Kepler's equation for every orbit of a
// distributed array, at any rank count the same bits as Newton over the
// whole array on one process, with the counts reduced over the ranks.
// Under mpirun at 1-4 ranks this shows that the roots do not depend on the
// rank count.
func TestNewtonDistKepler(t *testing.T) {
	world := mpitest.World(t)
	tests := []struct {
		name   string
		n      int
		uneven bool
		method string
	}{
		{"n=100003 newton", 100003, false, "newton"},
		{"n=100003 uneven halley", 100003, true, "halley"},
		{"n=20001 secant", 20001, false, "secant"},
		{"n=3 newton", 3, false, "newton"}, // fewer elements than ranks at 4
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, e := kepler(tc.n)
			whole := keplerNewton(t, tc.method, m, e, false)
			x0 := distOf(t, world, m, tc.uneven)
			defer x0.Free()
			lo, _ := x0.Range()
			f, fp, fpp := keplerFuncs(m, e, lo)
			o := &NewtonOptions{}
			switch tc.method {
			case "secant":
				fp = nil
			case "halley":
				o.FPrime2 = fpp
			}
			res, err := NewtonDist(f, fp, x0, o)
			mpitest.Check(t, world, err == nil, "error %v", err)
			if err != nil {
				return
			}
			defer res.Root.Free()
			defer res.Residual.Free()
			maxIt := 0
			for _, it := range whole.Iterations {
				maxIt = max(maxIt, it)
			}
			mpitest.Check(t, world, res.NumConverged == tc.n && res.NumZeroDer == 0 && res.NumFailed == 0 && res.MaxIterations == maxIt,
				"counts %d %d %d, most iterations %d (whole: %d)", res.NumConverged, res.NumZeroDer, res.NumFailed, res.MaxIterations, maxIt)
			root, resid := gatherAll(t, res.Root), gatherAll(t, res.Residual)
			same := true
			for i := range root {
				if root[i] != whole.Root[i] || resid[i] != whole.Residual[i] {
					same = false
				}
			}
			for k, it := range res.Iterations {
				if it != whole.Iterations[lo+k] || !res.Converged[k] {
					same = false
				}
			}
			mpitest.Check(t, world, same, "the roots differ from the one-process run")
		})
	}
}

// TestNewtonDistErrors: failures on some ranks give the same error on
// every rank.
func TestNewtonDistErrors(t *testing.T) {
	world := mpitest.World(t)
	const n = 11
	x0, err := dist.FromFunc(world, []int{n}, func(idx []int) float64 { return float64(idx[0] - 5) })
	if err != nil {
		t.Fatal(err)
	}
	defer x0.Free()
	fs := newtonFuncs["sq1"] // x^2 - 1: zero derivative at x0 = 0 only
	res, err := NewtonDist(fs[0], fs[1], x0, nil)
	mpitest.Check(t, world, errors.Is(err, ErrZeroDerivative) && res.NumZeroDer == 1 && res.NumConverged == n-1,
		"error %v, %d zero derivatives, %d converged", err, res.NumZeroDer, res.NumConverged)
	res.Root.Free()
	res.Residual.Free()
	res, err = NewtonDist(fs[0], fs[1], x0, &NewtonOptions{MaxIter: 1})
	mpitest.Check(t, world, errors.Is(err, ErrZeroDerivative) && res.NumFailed > 0, "MaxIter 1: error %v, %d failed", err, res.NumFailed)
	res.Root.Free()
	res.Residual.Free()
}

// gatherAll returns the whole of a (split on axis 0) on every rank.
func gatherAll(t *testing.T, a *dist.Array[float64]) []float64 {
	t.Helper()
	full := make([]float64, a.Len())
	l := a.Layout()
	counts := make([]int, l.Ranks())
	for r := range counts {
		counts[r] = l.LocalLen(r)
	}
	if err := mpi.Allgatherv(a.Comm(), a.LocalData(), full, counts, nil); err != nil {
		t.Fatal(err)
	}
	return full
}
