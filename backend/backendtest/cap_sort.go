package backendtest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

func testSorter(t *testing.T, b driver.Backend) {
	s := b.(driver.Sorter)
	t.Run("float64", func(t *testing.T) { sorter[float64](t, b, s) })
	t.Run("float32", func(t *testing.T) { sorter[float32](t, b, s) })
	t.Run("int32", func(t *testing.T) { sorter[int32](t, b, s) })
	t.Run("uint8", func(t *testing.T) { sorter[uint8](t, b, s) })
	t.Run("int64", func(t *testing.T) { sorter[int64](t, b, s) })
	t.Run("uint64", func(t *testing.T) { sorter[uint64](t, b, s) })
}

// pair is a key and its index, in the (key, index) order of Sorter.
type pair[T backend.Element] struct {
	k T
	i int64
}

func (p pair[T]) cmp(q pair[T]) int {
	if c := cmp.Compare(p.k, q.k); c != 0 {
		return c
	}
	return cmp.Compare(p.i, q.i)
}

// sortKeys returns n keys of T with ties, and for floats NaNs, infinities
// and zeros of both signs (which are equal keys: their order must hold).
func sortKeys[T backend.Element](t *testing.T, n int) []T {
	r := rng(t, n)
	var x []T
	if backend.DTypeOf[T]().IsFloat() {
		x = make([]T, n)
		for i := range x {
			x[i] = T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(21)-10))
		}
		specials := []T{T(math.NaN()), 0, T(math.Copysign(0, -1)), T(math.Inf(1)), T(math.Inf(-1)), T(math.NaN()), 0}
		for i := 0; i < n; i += 1 + r.IntN(5) {
			x[i] = specials[r.IntN(len(specials))]
		}
		for i := 1; i < n; i += 3 {
			x[i] = x[i-1] // ties
		}
	} else {
		x = make([]T, n)
		for i := range x {
			x[i] = T(r.Uint64())
			if i%3 == 1 {
				x[i] = x[i-1]
			}
		}
	}
	return x
}

// stableSorted returns x's (key, base+position) pairs sorted stably by key.
func stableSorted[T backend.Element](x []T, base int64) []pair[T] {
	p := make([]pair[T], len(x))
	for i, v := range x {
		p[i] = pair[T]{v, base + int64(i)}
	}
	slices.SortStableFunc(p, func(a, b pair[T]) int { return cmp.Compare(a.k, b.k) })
	return p
}

func keysOf[T backend.Element](p []pair[T]) ([]T, []int64) {
	k, i := make([]T, len(p)), make([]int64, len(p))
	for j, q := range p {
		k[j], i[j] = q.k, q.i
	}
	return k, i
}

func sorter[T backend.Element](t *testing.T, b driver.Backend, s driver.Sorter) {
	const base = 1 << 40
	for _, n := range capSizesOf[T]() {
		x := sortKeys[T](t, n)
		wk, wi := keysOf(stableSorted(x, base))
		// SortByKey with and without an index.
		bk, bi := up(t, b, x), zeros[int64](t, b, n)
		s.SortByKey(bk, bi, base)
		checkSame(t, fmt.Sprintf("SortByKey keys of %d", n), down[T](t, b, bk), wk)
		checkSame(t, fmt.Sprintf("SortByKey index of %d", n), down[int64](t, b, bi), wi)
		bk2 := up(t, b, x)
		s.SortByKey(bk2, nil, 0)
		checkSame(t, fmt.Sprintf("SortByKey without index of %d", n), down[T](t, b, bk2), wk)

		// Take: any positions, repeated, in any order.
		r := rng(t, n)
		if n > 0 {
			pos := make([]int, 2*n+1)
			want := make([]T, len(pos))
			for j := range pos {
				pos[j] = r.IntN(n)
				want[j] = x[pos[j]]
			}
			bsrc, bdst := up(t, b, x), zeros[T](t, b, len(pos))
			s.Take(bdst, bsrc, pos)
			checkSame(t, fmt.Sprintf("Take of %d from %d", len(pos), n), down[T](t, b, bdst), want)
			freeAll(b, bsrc, bdst)
		}

		// Cut of the sorted keys at splitters, some of them keys of the
		// array with an index inside, before and after the element's.
		sorted := stableSorted(x, 0)
		var splits []pair[T]
		for j := 0; j < 6 && n > 0; j++ {
			q := sorted[r.IntN(n)]
			splits = append(splits, pair[T]{q.k, base + int64(r.IntN(n+2)) - 1})
		}
		slices.SortFunc(splits, pair[T].cmp)
		sk, si := make([]driver.Scalar, len(splits)), make([]int64, len(splits))
		wantCut := make([]int, len(splits))
		for j, sp := range splits {
			sk[j], si[j] = driver.ScalarOf(sp.k), sp.i
			for i, v := range wk {
				if (pair[T]{v, base + int64(i)}).cmp(sp) < 0 {
					wantCut[j]++
				}
			}
		}
		bs := up(t, b, wk)
		got := s.Cut(bs, base, sk, si)
		if err := b.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, wantCut) {
			t.Errorf("Cut of %d sorted keys at %v = %v, want %v", n, splits, got, wantCut)
		}

		// MergeRuns of sorted runs (an empty one among them).
		bounds := []int{0, n / 4, n / 4, n / 2, n}
		var runs []T
		var runIdx []int64
		for k := 0; k+1 < len(bounds); k++ {
			rk, ri := keysOf(stableSorted(x[bounds[k]:bounds[k+1]], int64(bounds[k])))
			runs, runIdx = append(runs, rk...), append(runIdx, ri...)
		}
		mk, mi := keysOf(stableSorted(x, 0)) // stable: an earlier run first on ties
		brk, bri := up(t, b, runs), up(t, b, runIdx)
		bd, bdi := zeros[T](t, b, n), zeros[int64](t, b, n)
		s.MergeRuns(bd, bdi, brk, bri, bounds)
		checkSame(t, fmt.Sprintf("MergeRuns keys of %d", n), down[T](t, b, bd), mk)
		checkSame(t, fmt.Sprintf("MergeRuns index of %d", n), down[int64](t, b, bdi), mi)
		freeAll(b, brk, bri)
		brk = up(t, b, runs)
		s.MergeRuns(bd, nil, brk, nil, bounds)
		checkSame(t, fmt.Sprintf("MergeRuns without index of %d", n), down[T](t, b, bd), mk)
		freeAll(b, bk, bi, bk2, bs, brk, bd, bdi)
	}
}
