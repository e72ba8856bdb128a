package dist_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// exactRef returns SumExact of vals held whole by every rank (a
// replicated array, which never communicates): what a split array must
// give, bit for bit, whatever its layout. That the value is the correctly
// rounded exact sum is internal/exactsum's test.
func exactRef(t *testing.T, vals []float64) float64 {
	t.Helper()
	c := mpitest.World(t)
	r, err := dist.FromFunc(c, []int{len(vals)}, func(idx []int) float64 { return vals[idx[0]] }, dist.SplitAxis(dist.Replicated))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Free()
	s, err := dist.SumExact(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestExactReductions: SumExact, DotExact and NormExact give the same bits
// for every layout at every rank count, including values whose plain sum
// depends on the order (cancellation across magnitudes); Sum, for
// comparison, may not.
func TestExactReductions(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, n := range []int{0, 1, 3, 1000, 4097} {
		f := func(i int) float64 {
			// Large terms that cancel and small ones that the cancellation
			// exposes.
			v := math.Ldexp(float64(i%7)+0.1, (i*37)%60-30)
			if i%3 == 0 {
				v = -v
			}
			return v
		}
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = f(i)
		}
		want := exactRef(t, vals)
		sq := make([]float64, n)
		for i, v := range vals {
			sq[i] = v * v
		}
		wantSq := exactRef(t, sq)
		counts := make([]int, p)
		counts[p-1] = n // every element on the last rank
		layouts := [][]dist.Option{nil, {dist.BlockSizes(counts)}, {dist.SplitAxis(dist.Replicated)}}
		for li, opts := range layouts {
			name := fmt.Sprintf("n=%d/layout%d", n, li)
			x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return f(idx[0]) }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			s, err := dist.SumExact(x)
			if err != nil {
				t.Fatal(err)
			}
			d, err := dist.DotExact(x, x)
			if err != nil {
				t.Fatal(err)
			}
			nm, err := dist.NormExact(x)
			if err != nil {
				t.Fatal(err)
			}
			ok := math.Float64bits(s) == math.Float64bits(want) && math.Float64bits(d) == math.Float64bits(wantSq) &&
				math.Float64bits(nm) == math.Float64bits(math.Sqrt(wantSq))
			mpitest.Check(t, c, ok, "%s: SumExact %v (want %v), DotExact %v (want %v), NormExact %v", name, s, want, d, wantSq, nm)
			x.Free()
		}
	}
	// float32 elements: their products are exact in float64.
	x, err := dist.FromFunc(c, []int{7}, func(idx []int) float32 { return float32(idx[0]) + 0.25 })
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	d, err := dist.DotExact(x, x)
	want := 0.0
	for i := range 7 {
		want += (float64(i) + 0.25) * (float64(i) + 0.25)
	}
	mpitest.Check(t, c, err == nil && d == want, "float32 DotExact %v, want %v (%v)", d, want, err)
}

// BenchmarkSum and BenchmarkSumExact compare the plain and the exact sum
// of 2^20 float64 on one rank.
func BenchmarkSum(b *testing.B) { benchSum(b, false) }

func BenchmarkSumExact(b *testing.B) { benchSum(b, true) }

func benchSum(b *testing.B, exact bool) {
	c := mpitest.World(b)
	x, err := dist.FromFunc(c, []int{1 << 20}, func(idx []int) float64 { return math.Sin(float64(idx[0])) })
	if err != nil {
		b.Fatal(err)
	}
	defer x.Free()
	b.SetBytes(8 << 20)
	for b.Loop() {
		if exact {
			dist.SumExact(x)
		} else {
			dist.Sum(x)
		}
	}
}
