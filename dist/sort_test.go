package dist_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

type sortElem interface {
	float32 | float64 | int32 | int64 | uint32 | uint64
}

// sortBits returns the bits of v, so that NaNs and signed zeros compare
// exactly.
func sortBits[T sortElem](v T) uint64 {
	switch x := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(x))
	case float64:
		return math.Float64bits(x)
	case int32:
		return uint64(x)
	case int64:
		return uint64(x)
	case uint32:
		return uint64(x)
	default:
		return any(v).(uint64)
	}
}

func isFloat[T sortElem]() bool {
	var z T
	z = 1
	return z/2 != 0
}

// sortInputs returns the named adversarial inputs of length n for T. They
// are the same on every rank.
func sortInputs[T sortElem](n int) (names []string, inputs [][]T) {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	add := func(name string, f func(i int) T) {
		in := make([]T, n)
		for i := range in {
			in[i] = f(i)
		}
		names = append(names, name)
		inputs = append(inputs, in)
	}
	random := func() T {
		if isFloat[T]() {
			return T(r.NormFloat64() * 100)
		}
		return T(r.Uint64())
	}
	add("random", func(int) T { return random() })
	add("sorted", func(i int) T { return T(i / 2) })
	add("reversed", func(i int) T { return T((n - i) / 3) })
	add("equal", func(int) T { return 7 })
	add("few", func(int) T { return T(r.IntN(3)) })
	if isFloat[T]() {
		nan, inf, zero := math.NaN(), math.Inf(1), 0.0
		special := []float64{nan, -nan, inf, -inf, zero, -zero, 1, -1, math.Float64frombits(0x7ff8000000000123)}
		add("nan", func(int) T {
			if r.IntN(2) == 0 {
				return T(special[r.IntN(len(special))])
			}
			return random()
		})
	}
	return names, inputs
}

// sortLayouts returns the layout options tested for n elements on p
// ranks: even, everything on rank 0, everything on the last rank, the
// even-numbered ranks empty, and sizes growing with the rank.
func sortLayouts(n, p int) (names []string, opts [][]dist.Option) {
	names = append(names, "even")
	opts = append(opts, nil)
	if p == 1 {
		return names, opts
	}
	add := func(name string, weight func(r int) int) {
		counts := make([]int, p)
		total := 0
		for r := range counts {
			total += weight(r)
		}
		left := n
		for r := range counts {
			counts[r] = n * weight(r) / total
			left -= counts[r]
		}
		// The rest to the last rank with a weight.
		for r := p - 1; r >= 0; r-- {
			if weight(r) > 0 {
				counts[r] += left
				break
			}
		}
		names = append(names, fmt.Sprintf("%s%v", name, counts))
		opts = append(opts, []dist.Option{dist.BlockSizes(counts)})
	}
	add("first", func(r int) int { return max(0, 1-r) })
	add("last", func(r int) int {
		if r == p-1 {
			return 1
		}
		return 0
	})
	if p > 2 {
		add("odd", func(r int) int { return r % 2 * r })
	}
	add("growing", func(r int) int { return (r + 1) * (r + 1) })
	return names, opts
}

// npOrder is NumPy's sort order: cmp.Compare's (-0 equal to +0), but the
// NaNs after everything else, equal to each other.
func npOrder[T sortElem](a, b T) int { return dist.NPCompare(a, b) }

// refSortPerm returns the stable sorting permutation of in in NumPy's
// order (npOrder).
func refSortPerm[T sortElem](in []T) []int64 {
	perm := make([]int64, len(in))
	for i := range perm {
		perm[i] = int64(i)
	}
	slices.SortStableFunc(perm, func(a, b int64) int { return npOrder(in[a], in[b]) })
	return perm
}

// checkSort sorts in (the whole input, the same on every rank) laid out by
// opts and checks the result against the reference. It reports failures
// with t.Errorf, so that every rank makes the same collective calls.
func checkSort[T sortElem](t *testing.T, c mpi.Comm, name string, in []T, opts []dist.Option, withIndex bool) {
	t.Helper()
	n := len(in)
	x, err := dist.FromFunc(c, []int{n}, func(idx []int) T { return in[idx[0]] }, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	replicated := x.Layout().Axis() == dist.Replicated
	res, err := dist.SortWithOptions(x, dist.SortOptions{WithIndex: withIndex})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := dist.NewLayout([]int{n}, 0, c.Size())
	if replicated {
		want = x.Layout()
	}
	if !res.Sorted.Layout().Equal(want) {
		t.Errorf("%s: sorted layout %v, want %v", name, res.Sorted.Layout(), want)
		return
	}
	out, err := dist.Allgather(res.Sorted)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ref := refSortPerm(in)
	for i := range out {
		if sortBits(out[i]) != sortBits(in[ref[i]]) {
			t.Errorf("%s: sorted[%d] = %v, want %v (input %d)", name, i, out[i], in[ref[i]], ref[i])
			return
		}
	}
	st := res.Stats
	total := 0
	for _, k := range st.Received {
		total += k
	}
	if replicated {
		total /= c.Size() // every rank sorted all n elements
	}
	if total != n || len(st.Received) != c.Size() || st.MaxReceived != slices.Max(st.Received) ||
		st.Imbalance < 1-1e-12 || (n > 0 && math.Abs(st.Imbalance-float64(st.MaxReceived)/st.MeanReceived) > 1e-12) {
		t.Errorf("%s: inconsistent stats %+v for %d elements", name, st, n)
	}
	if !withIndex {
		if res.Index != nil {
			t.Errorf("%s: an index that was not asked for", name)
		}
		return
	}
	if !res.Index.Layout().Equal(want) {
		t.Errorf("%s: index layout %v, want %v", name, res.Index.Layout(), want)
		return
	}
	perm, err := dist.Allgather(res.Index)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// A permutation, with out[i] == in[perm[i]], stable; and so the
	// reference permutation.
	seen := make([]bool, n)
	for i, j := range perm {
		if j < 0 || j >= int64(n) || seen[j] {
			t.Errorf("%s: index %v is not a permutation (at %d)", name, perm, i)
			return
		}
		seen[j] = true
		if sortBits(out[i]) != sortBits(in[j]) {
			t.Errorf("%s: sorted[%d] = %v, but input[index[%d] = %d] = %v", name, i, out[i], i, j, in[j])
			return
		}
		if i > 0 {
			d := npOrder(out[i-1], out[i])
			if d > 0 || (d == 0 && perm[i-1] > j) {
				t.Errorf("%s: not sorted stably at %d: (%v, %d) then (%v, %d)", name, i, out[i-1], perm[i-1], out[i], j)
				return
			}
		}
	}
	if !slices.Equal(perm, ref) {
		t.Errorf("%s: index differs from the reference", name)
	}
}

func testSortType[T sortElem](t *testing.T, c mpi.Comm) {
	for _, n := range []int{0, 1, 2, 3, 5, 17, 1000} {
		names, inputs := sortInputs[T](n)
		lnames, lopts := sortLayouts(n, c.Size())
		for k, in := range inputs {
			for l := range lnames {
				checkSort(t, c, fmt.Sprintf("n=%d/%s/%s", n, names[k], lnames[l]), in, lopts[l], true)
			}
		}
		// Without the index, and replicated, on one input each.
		checkSort(t, c, fmt.Sprintf("n=%d/%s/noindex", n, names[0]), inputs[0], lopts[len(lopts)-1], false)
		checkSort(t, c, fmt.Sprintf("n=%d/%s/replicated", n, names[len(names)-1]), inputs[len(inputs)-1],
			[]dist.Option{dist.SplitAxis(dist.Replicated)}, true)
	}
}

func TestSort(t *testing.T) {
	c := mpitest.World(t)
	t.Run("float64", func(t *testing.T) { testSortType[float64](t, c) })
	t.Run("float32", func(t *testing.T) { testSortType[float32](t, c) })
	t.Run("int32", func(t *testing.T) { testSortType[int32](t, c) })
	t.Run("int64", func(t *testing.T) { testSortType[int64](t, c) })
	t.Run("uint32", func(t *testing.T) { testSortType[uint32](t, c) })
	t.Run("uint64", func(t *testing.T) { testSortType[uint64](t, c) })
}

// TestSortLarge sorts 100003 elements, including all-equal keys, which
// the (key, index) splitters must still divide evenly.
func TestSortLarge(t *testing.T) {
	c := mpitest.World(t)
	const n = 100003
	p := c.Size()
	f64names, f64 := sortInputs[float64](n)
	i64names, i64 := sortInputs[int64](n)
	_, u32 := sortInputs[uint32](n)
	lnames, lopts := sortLayouts(n, p)
	for k := range f64 {
		checkSort(t, c, fmt.Sprintf("float64/%s/%s", f64names[k], lnames[len(lnames)-1]), f64[k], lopts[len(lopts)-1], true)
	}
	for k := range i64 {
		checkSort(t, c, fmt.Sprintf("int64/%s/even", i64names[k]), i64[k], nil, k%2 == 0)
	}
	checkSort(t, c, "uint32/random/"+lnames[1%len(lnames)], u32[0], lopts[1%len(lopts)], true)

	// The split is close to even for random and all-equal keys.
	for _, k := range []int{0, 3} {
		x, _ := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return f64[k][idx[0]] }, lopts[len(lopts)-1]...)
		res, err := dist.SortWithOptions(x, dist.SortOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Imbalance > 1.1 {
			t.Errorf("%s: imbalance %v (received %v)", f64names[k], res.Stats.Imbalance, res.Stats.Received)
		}
	}
}

// TestSortKeysOnly sorts without the permutation, the path that sorts the
// keys alone (on the host straight from x's block, with a radix sort from
// 256 keys per rank on): every input and layout, with fewer elements than
// ranks, blocks below and above the radix sort's threshold, and all keys
// equal.
func TestSortKeysOnly(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{0, 1, 3, 1000, 5003} {
		lnames, lopts := sortLayouts(n, c.Size())
		f64names, f64 := sortInputs[float64](n)
		f32names, f32 := sortInputs[float32](n)
		i32names, i32 := sortInputs[int32](n)
		u64names, u64 := sortInputs[uint64](n)
		for l := range lnames {
			for k := range f64 {
				checkSort(t, c, fmt.Sprintf("float64/n=%d/%s/%s", n, f64names[k], lnames[l]), f64[k], lopts[l], false)
			}
			for k := range f32 {
				checkSort(t, c, fmt.Sprintf("float32/n=%d/%s/%s", n, f32names[k], lnames[l]), f32[k], lopts[l], false)
			}
			for k := range i32 {
				checkSort(t, c, fmt.Sprintf("int32/n=%d/%s/%s", n, i32names[k], lnames[l]), i32[k], lopts[l], false)
			}
			for k := range u64 {
				checkSort(t, c, fmt.Sprintf("uint64/n=%d/%s/%s", n, u64names[k], lnames[l]), u64[k], lopts[l], false)
			}
		}
		checkSort(t, c, fmt.Sprintf("float64/n=%d/replicated", n), f64[0], []dist.Option{dist.SplitAxis(dist.Replicated)}, false)
	}
}

func TestSortPanics(t *testing.T) {
	c := mpitest.World(t)
	x, _ := dist.Zeros[float64](c, []int{3, 2})
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.HasPrefix(msg, "dist: Sort") || !strings.Contains(msg, "1-D") {
			t.Fatalf("panic %q", msg)
		}
	}()
	dist.Sort(x)
}

// BenchmarkSort sorts 2^20 normal float64 values, evenly distributed, at
// the rank count of the run.
func BenchmarkSort(b *testing.B) {
	c := mpitest.World(b)
	if f := flag.Lookup("test.benchtime"); c.Size() > 1 && (f == nil || !strings.HasSuffix(f.Value.String(), "x")) {
		// Ranks that time themselves pick different iteration counts and
		// then wait for each other in different collectives.
		b.Skip("at more than one rank, run with a fixed count: -test.benchtime=Nx")
	}
	const n = 1 << 20
	x, err := dist.Normal[float64](c, []int{n}, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, withIndex := range []bool{false, true} {
		b.Run(fmt.Sprintf("index=%v", withIndex), func(b *testing.B) {
			b.SetBytes(n * 8 / int64(c.Size()))
			var st dist.SortStats
			for b.Loop() {
				res, err := dist.SortWithOptions(x, dist.SortOptions{WithIndex: withIndex})
				if err != nil {
					b.Fatal(err)
				}
				st = res.Stats
			}
			b.ReportMetric(st.Imbalance, "imbalance")
		})
	}
}
