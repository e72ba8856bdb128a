package optimize

import (
	"math"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/exactsum"
	"github.com/xpmpi/xpmpi/mpi"
)

// ExactSum returns the sum over all ranks of c of the values in local,
// rounded once to the nearest float64: the result depends neither on the
// order of the values nor on how they are divided among the ranks, so a
// distributed objective that sums its terms with it (see MinimizeDist)
// gives the same bits at every rank count. It is collective: every rank of
// c calls it, each with its own values (up to 2^31 of them in all).
func ExactSum(c mpi.Comm, local []float64) (float64, error) {
	var a exactsum.Sum
	for _, v := range local {
		a.Add(v)
	}
	if err := a.Allreduce(c); err != nil {
		return 0, err
	}
	return a.Value(), nil
}

// distributed reports whether x is split among the ranks (so that a
// reduction over its local block needs an allreduce).
func distributed(x *dist.Array[float64]) bool {
	return x.Layout().Axis() != dist.Replicated && x.Comm().Size() > 1
}

// dotExact is the dot product of two arrays with the same layout: each
// product rounded as usual, their sum exact (exactsum.Sum), reduced over the
// ranks: the same bits at every rank count. Collective.
func dotExact(x, y *dist.Array[float64]) (float64, error) {
	return dotLocal(x.Comm(), distributed(x), x.LocalData(), y.LocalData())
}

func dotLocal(c mpi.Comm, reduce bool, x, y []float64) (float64, error) {
	var a exactsum.Sum
	for i, v := range x {
		a.Add(v * y[i])
	}
	if reduce {
		if err := a.Allreduce(c); err != nil {
			return 0, err
		}
	}
	return a.Value(), nil
}

// normExact is the Euclidean norm of x, its sum of squares exact.
func normExact(x *dist.Array[float64]) (float64, error) {
	s, err := dotExact(x, x)
	return math.Sqrt(s), err
}

// maxAbs is the largest |x_i| over all ranks (0 for an empty array; NaN
// if any element is NaN). Collective.
func maxAbs(x *dist.Array[float64]) (float64, error) {
	m, nan := 0.0, 0.0
	for _, v := range x.LocalData() {
		if math.IsNaN(v) {
			nan = 1
			continue
		}
		m = math.Max(m, math.Abs(v))
	}
	if distributed(x) {
		buf := []float64{m, nan}
		if err := mpi.AllreduceInPlace(x.Comm(), buf, mpi.Max); err != nil {
			return 0, err
		}
		m, nan = buf[0], buf[1]
	}
	if nan > 0 {
		return math.NaN(), nil
	}
	return m, nil
}
