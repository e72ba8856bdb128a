package bench

import (
	"math"
	"slices"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/rng"
)

// ---- W11: order statistics (percentiles, unique) ----
//
// W11 measures the distributed order statistics of issue 32 against what a
// NumPy + mpi4py program does without them: gather the array on rank 0 and
// compute there. The reference here is that gather-and-compute written in
// Go in the same job (MPI_Gatherv to rank 0, then on rank 0 a selection
// (quickselect, as np.percentile's np.partition) for the percentiles, or
// sort and compact (as np.unique) for the distinct values); `--peers` adds
// NumPy + mpi4py's own figures (bench/peers/mpi4py_w2_w5.py's W11).
//
// The keys are W5's: uniform [0,1) float64 keys from benchSeed, SortN of
// them, evenly laid out. The percentile row asks for the 1st, 50th and 99th
// percentiles (linear) and its checksum is their sum; the unique row finds
// the distinct values of the integer keys floor(key * SortN/8) (about 7/8
// of SortN/8 distinct values, most repeated) and its checksum is their
// count plus their sum.

// w11Qs are W11's quantiles.
var w11Qs = []float64{0.01, 0.5, 0.99}

func (e *benchEnv) benchOrder() ([]Row, error) {
	n := e.sizes.SortN
	e.say("W11 order statistics, %d keys: percentiles and unique", n)
	keys, err := dist.Zeros[float64](e.world, []int{n})
	if err != nil {
		return nil, err
	}
	defer keys.Free()
	lo, _ := keys.Range()
	rng.FillUniform(keys.LocalData(), benchSeed, uint64(lo), 0)
	ints, err := dist.Zeros[int64](e.world, []int{n})
	if err != nil {
		return nil, err
	}
	defer ints.Free()
	span := float64(max(n/8, 1))
	for i, v := range keys.LocalData() {
		ints.LocalData()[i] = int64(v * span)
	}
	// The reference's receive buffers on rank 0, made once, as a program
	// that gathers again and again keeps them.
	var gf []float64
	var gi []int64
	if e.world.Rank() == 0 {
		gf, gi = make([]float64, n), make([]int64, n)
	}

	xpPct := func() (Sample, error) {
		return withThreads(e.threads, func() (Sample, error) {
			var qs []float64
			secs, err := e.timed(func() error {
				var err error
				qs, err = dist.Quantiles(keys, w11Qs, dist.QuantileLinear)
				return err
			})
			if err != nil {
				return Sample{}, err
			}
			return Sample{Seconds: secs, Checksum: qs[0] + qs[1] + qs[2], OK: true}, nil
		})
	}
	refPct := func() (Sample, error) {
		out := make([]float64, len(w11Qs))
		secs, err := e.timed(func() error {
			if err := gatherTo0(e.world, keys.LocalData(), gf, n); err != nil {
				return err
			}
			if e.world.Rank() == 0 {
				for i, q := range w11Qs {
					out[i] = selectQuantile(gf, q)
				}
			}
			return mpi.Bcast(e.world, out, 0)
		})
		return Sample{Seconds: secs, Checksum: out[0] + out[1] + out[2], OK: true}, err
	}
	xs, rs, err := e.interleave(xpPct, refPct)
	if err != nil {
		return nil, err
	}
	cp := compareChecksums("W11", "sum of the 1st, 50th and 99th percentiles", xs, rs, 0, nil)
	e.checks = append(e.checks, cp)
	ms := func(s Sample) float64 { return s.Seconds * 1e3 }
	p := e.world.Size()
	rows := []Row{newRow("W11", p, e.be, "percentiles (3), against gather + select on rank 0", "ms/percentile", KindTime, 0, figures(xs, ms), figures(rs, ms), cp.OK)}

	xpUnique := func() (Sample, error) {
		return withThreads(e.threads, func() (Sample, error) {
			var u *dist.Array[int64]
			secs, err := e.timed(func() error {
				var err error
				u, err = dist.Unique(ints)
				return err
			})
			if err != nil {
				return Sample{}, err
			}
			defer u.Free()
			// The checksum (untimed): the count and the sum of the values,
			// and whether they ascend within and across the blocks.
			local := u.LocalData()
			sum := 0.0
			ok := true
			for i, v := range local {
				sum += float64(v)
				ok = ok && (i == 0 || v > local[i-1])
			}
			if sum, err = mpi.AllreduceValue(e.world, sum, mpi.Sum); err != nil {
				return Sample{}, err
			}
			if ok, err = mpi.AllTrue(e.world, ok); err != nil {
				return Sample{}, err
			}
			return Sample{Seconds: secs, Checksum: float64(u.Len()) + sum, OK: ok}, nil
		})
	}
	refUnique := func() (Sample, error) {
		out := []float64{0}
		secs, err := e.timed(func() error {
			if err := gatherTo0(e.world, ints.LocalData(), gi, n); err != nil {
				return err
			}
			if e.world.Rank() == 0 {
				slices.Sort(gi)
				u := slices.Compact(gi)
				sum := 0.0
				for _, v := range u {
					sum += float64(v)
				}
				out[0] = float64(len(u)) + sum
			}
			return nil
		})
		if err == nil {
			err = mpi.Bcast(e.world, out, 0)
		}
		return Sample{Seconds: secs, Checksum: out[0], OK: true}, err
	}
	xs, rs, err = e.interleave(xpUnique, refUnique)
	if err != nil {
		return nil, err
	}
	cu := compareChecksums("W11", "count plus sum of the distinct values", xs, rs, 0, nil)
	e.checks = append(e.checks, cu)
	rows = append(rows, newRow("W11", p, e.be, "unique, against gather + sort on rank 0", "ms/unique", KindTime, 0, figures(xs, ms), figures(rs, ms), cu.OK))
	return rows, nil
}

// gatherTo0 gathers every rank's block of an evenly split array of n
// elements into all on rank 0 (MPI_Gatherv), as a NumPy + mpi4py program
// gathers before computing serially.
func gatherTo0[T mpi.Number](c mpi.Comm, block, all []T, n int) error {
	p := c.Size()
	counts, displs := make([]int, p), make([]int, p)
	l := dist.NewLayout([]int{n}, 0, p)
	for r := range p {
		lo, hi := l.Range(r)
		counts[r], displs[r] = hi-lo, lo
	}
	return mpi.Gatherv(c, block, all, counts, displs, 0)
}

// selectQuantile is NumPy's linear quantile q of a (reordered in place) by
// selection: the elements at floor((n-1)q) and the next, interpolated as
// NumPy's _lerp.
func selectQuantile(a []float64, q float64) float64 {
	n := len(a)
	v := float64(n-1) * q
	k := int(math.Floor(v))
	if k >= n-1 {
		nthElement(a, n-1)
		return a[n-1]
	}
	nthElement(a, k)
	lo := a[k]
	hi := slices.Min(a[k+1:])
	t := v - float64(k)
	if t >= 0.5 {
		return hi - (hi-lo)*(1-t)
	}
	return lo + (hi-lo)*t
}

// nthElement reorders a so that a[k] is the element a sorted would have
// there, the ones before it no larger and the ones after no smaller
// (quickselect with a median-of-three pivot; a has no NaN).
func nthElement(a []float64, k int) {
	lo, hi := 0, len(a)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		pivot := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
