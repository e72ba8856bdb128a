package rng

import (
	"math"
	"math/bits"
	"testing"
)

// moments returns the mean and the (population) variance of n values of f.
func moments(n int, f func(i int) float64) (mean, variance float64) {
	// Two passes would need storage; Welford's update is accurate enough.
	for i := 0; i < n; i++ {
		x := f(i)
		d := x - mean
		mean += d / float64(i+1)
		variance += d * (x - mean)
	}
	return mean, variance / float64(n)
}

func TestMoments(t *testing.T) {
	const (
		n    = 1000000
		seed = 20240601
		tol  = 5 // standard errors
	)
	// Standard errors: uniform mean sqrt(1/12/n), uniform variance
	// sqrt((1/80 - 1/144)/n) = sqrt(1/180/n); normal mean sqrt(1/n),
	// normal variance sqrt(2/n).
	cases := []struct {
		name               string
		f                  func(i int) float64
		mean, variance     float64
		seMean, seVariance float64
	}{
		{"u0", func(i int) float64 { u, _ := Uniform2(seed, uint64(i), 7); return u }, 0.5, 1.0 / 12, math.Sqrt(1.0 / 12 / n), math.Sqrt(1.0 / 180 / n)},
		{"u1", func(i int) float64 { _, u := Uniform2(seed, uint64(i), 7); return u }, 0.5, 1.0 / 12, math.Sqrt(1.0 / 12 / n), math.Sqrt(1.0 / 180 / n)},
		{"z0", func(i int) float64 { z, _ := Normal2(seed, uint64(i), 7); return z }, 0, 1, math.Sqrt(1.0 / n), math.Sqrt(2.0 / n)},
		{"z1", func(i int) float64 { _, z := Normal2(seed, uint64(i), 7); return z }, 0, 1, math.Sqrt(1.0 / n), math.Sqrt(2.0 / n)},
		{"z0*z1", func(i int) float64 { z0, z1 := Normal2(seed, uint64(i), 7); return z0 * z1 }, 0, 1, math.Sqrt(1.0 / n), math.Sqrt(8.0 / n)},
		// Along the counter of a single stream.
		{"stream", func() func(int) float64 {
			s := &Stream{Seed: seed, ID: 3}
			return func(int) float64 { return s.Uniform() }
		}(), 0.5, 1.0 / 12, math.Sqrt(1.0 / 12 / n), math.Sqrt(1.0 / 180 / n)},
	}
	for _, tc := range cases {
		mean, variance := moments(n, tc.f)
		if d := math.Abs(mean-tc.mean) / tc.seMean; d > tol {
			t.Errorf("%s: mean %v, want %v (%.1f standard errors)", tc.name, mean, tc.mean, d)
		}
		if d := math.Abs(variance-tc.variance) / tc.seVariance; d > tol {
			t.Errorf("%s: variance %v, want %v (%.1f standard errors)", tc.name, variance, tc.variance, d)
		}
	}
}

func TestUniformRange(t *testing.T) {
	// The extreme words map to 0 and to the largest float64 below 1.
	if got := toFloat64(0); got != 0 {
		t.Errorf("toFloat64(0) = %v", got)
	}
	if got, want := toFloat64(^uint64(0)), math.Nextafter(1, 0); got != want {
		t.Errorf("toFloat64(max) = %v, want %v", got, want)
	}
	if got, want := toFloat32(^uint64(0)), math.Nextafter32(1, 0); got != want {
		t.Errorf("toFloat32(max) = %v, want %v", got, want)
	}
	// Normal2 at u0 as close to 1 as it gets stays finite.
	z0, z1 := boxMuller(toFloat64(^uint64(0)), 0.25)
	if math.IsInf(z0, 0) || math.IsNaN(z0) || math.IsInf(z1, 0) || math.IsNaN(z1) {
		t.Errorf("boxMuller at the largest u0 = %v, %v", z0, z1)
	}
}

// chiSquare returns the chi-square statistic of counts against equal
// expected counts.
func chiSquare(counts []int) float64 {
	total := 0
	for _, c := range counts {
		total += c
	}
	e := float64(total) / float64(len(counts))
	var chi2 float64
	for _, c := range counts {
		d := float64(c) - e
		chi2 += d * d / e
	}
	return chi2
}

func TestIntNUnbiased(t *testing.T) {
	const draws = 300000
	// For n = 3*2^62 the naive x % n puts half of the mass in [0, 2^62)
	// and the naive high word of x*n without rejection puts half of it on
	// multiples of 3, so each of the two bucketings below detects one of
	// them with a chi-square in the tens of thousands. For the small n, a
	// broken reduction shows up as a gross excess. The bounds are far
	// beyond the 99.99th percentiles (18.4 for 2 degrees of freedom, 42.7
	// for 16) so that the test does not flake.
	cases := []struct {
		name    string
		n       uint64
		buckets int
		bucket  func(r uint64) int
		bound   float64
	}{
		{"high/3*2^62", 3 << 62, 3, func(r uint64) int { return int(r >> 62) }, 40},
		{"mod3/3*2^62", 3 << 62, 3, func(r uint64) int { return int(r % 3) }, 40},
		{"n=17", 17, 17, func(r uint64) int { return int(r) }, 80},
		{"n=2^63+1", 1<<63 + 1, 2, func(r uint64) int { return int(r >> 62) }, 40},
	}
	// The test must be able to fail: the two naive reductions are rejected
	// by the bucketings they are meant for.
	naive := []struct {
		name   string
		reduce func(x, n uint64) uint64
		bucket func(r uint64) int
	}{
		{"x % n", func(x, n uint64) uint64 { return x % n }, cases[0].bucket},
		{"hi(x*n)", func(x, n uint64) uint64 { hi, _ := bits.Mul64(x, n); return hi }, cases[1].bucket},
	}
	for _, nv := range naive {
		counts := make([]int, 3)
		for i := uint64(0); i < draws; i++ {
			x0, _ := block(99, i, 0)
			counts[nv.bucket(nv.reduce(x0, 3<<62))]++
		}
		if chi2 := chiSquare(counts); chi2 <= cases[0].bound {
			t.Errorf("naive %s: chi-square %.1f does not exceed the bound; the test has no power", nv.name, chi2)
		}
	}
	for _, tc := range cases {
		counts := make([]int, tc.buckets)
		for i := uint64(0); i < draws; i++ {
			r := IntN(99, i, 0, tc.n)
			if r >= tc.n {
				t.Fatalf("%s: IntN = %d, not below %d", tc.name, r, tc.n)
			}
			counts[tc.bucket(r)]++
		}
		if chi2 := chiSquare(counts); chi2 > tc.bound {
			t.Errorf("%s: chi-square %.1f over %d buckets > %v; counts %v", tc.name, chi2, tc.buckets, tc.bound, counts)
		}
	}
}

func TestIntNRejectionPath(t *testing.T) {
	// With n = 2^63+1, 2^64 mod n = 2^63-1, so about half of the candidates
	// are rejected and a quarter of the draws need a re-encrypted block.
	// Check those draws against a plain reference written from the
	// documented algorithm.
	const n = 1<<63 + 1
	reference := func(seed, stream, counter uint64) (uint64, int) {
		x0, x1 := block(seed, stream, counter)
		nn := uint64(n)
		thresh := -nn % nn
		for blocks := 1; ; blocks++ {
			for _, x := range []uint64{x0, x1} {
				hi, lo := bits.Mul64(x, n)
				if lo >= thresh {
					return hi, blocks
				}
			}
			x0, x1 = encryptWords(seed, x0, x1)
		}
	}
	multi := 0
	for i := uint64(0); i < 2000; i++ {
		want, blocks := reference(5, i, 11)
		if blocks > 1 {
			multi++
		}
		if got := IntN(5, i, 11, n); got != want {
			t.Fatalf("IntN(5, %d, 11, n) = %d, want %d", i, got, want)
		}
	}
	if multi < 100 {
		t.Errorf("only %d of 2000 draws needed a second block; the rejection path is not exercised", multi)
	}
}

// encryptWords encrypts the 64-bit words (x0, x1) as the counter
// block [x0_lo, x0_hi, x1_lo, x1_hi] under the key [seed_lo, seed_hi], as
// documented for IntN.
func encryptWords(seed, x0, x1 uint64) (uint64, uint64) {
	w := Philox4x32_10([4]uint32{uint32(x0), uint32(x0 >> 32), uint32(x1), uint32(x1 >> 32)}, [2]uint32{uint32(seed), uint32(seed >> 32)})
	return uint64(w[1])<<32 | uint64(w[0]), uint64(w[3])<<32 | uint64(w[2])
}

func TestIntNEdges(t *testing.T) {
	for i := uint64(0); i < 100; i++ {
		if got := IntN(1, i, 0, 1); got != 0 {
			t.Fatalf("IntN(n=1) = %d", got)
		}
		// n = 2^64-1 is the largest range; nothing may reach it.
		if got := IntN(1, i, 0, ^uint64(0)); got == ^uint64(0) {
			t.Fatalf("IntN(n=max) = max")
		}
		// A power of two takes the top bits of x0, with no rejection.
		x0, _ := block(1, i, 0)
		if got := IntN(1, i, 0, 1<<10); got != x0>>54 {
			t.Fatalf("IntN(n=1024) = %d, want %d", got, x0>>54)
		}
	}
	mustPanic(t, "rng: IntN", func() { IntN(1, 2, 3, 0) })
	mustPanic(t, "rng: Stream.IntN", func() { new(Stream).IntN(0) })
}

func mustPanic(t *testing.T, prefix string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		s, _ := r.(string)
		if len(s) < len(prefix) || s[:len(prefix)] != prefix {
			t.Errorf("panic %v, want a message starting with %q", r, prefix)
		}
	}()
	f()
}
