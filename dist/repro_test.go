package dist_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// reproRef returns SumRepro, DotRepro(x, y) and NormRepro of vals and
// yvals held whole by every rank (a replicated array, which never
// communicates: what one rank computes): what every layout must give, bit
// for bit.
func reproRef(t *testing.T, vals, yvals []float64) (s, d, nm float64) {
	t.Helper()
	c := mpitest.World(t)
	rep := dist.SplitAxis(dist.Replicated)
	x, err := dist.FromFunc(c, []int{len(vals)}, func(idx []int) float64 { return vals[idx[0]] }, rep)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	y, err := dist.FromFunc(c, []int{len(vals)}, func(idx []int) float64 { return yvals[idx[0]] }, rep)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Free()
	if s, err = dist.SumRepro(x); err != nil {
		t.Fatal(err)
	}
	if d, err = dist.DotRepro(x, y); err != nil {
		t.Fatal(err)
	}
	if nm, err = dist.NormRepro(x); err != nil {
		t.Fatal(err)
	}
	return s, d, nm
}

// reproVals returns n values whose plain sum depends on the order: large
// terms that cancel and small ones that the cancellation exposes, over
// about 60 binades.
func reproVals(n int) []float64 {
	vals := make([]float64, n)
	for i := range vals {
		v := math.Ldexp(float64(i%7)+0.1, (i*37)%60-30)
		if i%3 == 0 {
			v = -v
		}
		vals[i] = v
	}
	return vals
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestReproReductions: SumRepro, DotRepro and NormRepro give the bits of
// one rank for every layout at every rank count (sizes that do not
// divide, empty blocks, fewer elements than ranks, everything on one
// rank, the elements permuted), and lie within their stated bound of the
// exact sum (SumExact, the correctly rounded reference); with NaN and
// infinities as IEEE addition gives them.
func TestReproReductions(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	sizes := []int{0, 1, 3, 1000, 4097, 70001}
	if testing.Short() {
		sizes = sizes[:5]
	}
	for _, n := range sizes {
		vals := reproVals(n)
		yv := make([]float64, n)
		for i := range yv {
			yv[i] = math.Cos(float64(i))
		}
		for _, special := range []string{"", "nan", "inf", "-inf", "inf-inf"} {
			if special != "" && n < 3 {
				continue
			}
			xv := append([]float64(nil), vals...)
			switch special {
			case "nan":
				xv[n/2] = math.NaN()
			case "inf":
				xv[n-1] = math.Inf(1)
			case "-inf":
				xv[0] = math.Inf(-1)
			case "inf-inf":
				xv[0], xv[n-1] = math.Inf(1), math.Inf(-1)
			}
			wantS, wantD, wantN := reproRef(t, xv, yv)
			// The same multiset in another order: reversed.
			perm := func(i int) int { return n - 1 - i }
			counts := make([]int, p)
			counts[p-1] = n // every element on the last rank
			cases := []struct {
				name string
				perm bool
				opts []dist.Option
			}{
				{"even", false, nil},
				{"last rank", false, []dist.Option{dist.BlockSizes(counts)}},
				{"reversed", true, nil},
				{"reversed, last rank", true, []dist.Option{dist.BlockSizes(counts)}},
			}
			for _, tc := range cases {
				name := fmt.Sprintf("n=%d%s/%s", n, special, tc.name)
				at := func(i int) int {
					if tc.perm {
						return perm(i)
					}
					return i
				}
				x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return xv[at(idx[0])] }, tc.opts...)
				if err != nil {
					t.Fatal(err)
				}
				y, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return yv[at(idx[0])] }, tc.opts...)
				if err != nil {
					t.Fatal(err)
				}
				s, err1 := dist.SumRepro(x)
				d, err2 := dist.DotRepro(x, y)
				nm, err3 := dist.NormRepro(x)
				ok := err1 == nil && err2 == nil && err3 == nil && sameBits(s, wantS) && sameBits(d, wantD) && sameBits(nm, wantN)
				mpitest.Check(t, c, ok, "%s: SumRepro %v (want %v), DotRepro %v (want %v), NormRepro %v (want %v) (%v %v %v)",
					name, s, wantS, d, wantD, nm, wantN, err1, err2, err3)
				if special == "" && !tc.perm {
					// Against the correctly rounded sum: within n*2^-50*max
					// plus half an ulp of each.
					ex, err := dist.SumExact(x)
					if err != nil {
						t.Fatal(err)
					}
					m := 0.0
					for _, v := range xv {
						m = max(m, math.Abs(v))
					}
					ulp := math.Nextafter(math.Abs(ex), math.Inf(1)) - math.Abs(ex)
					bound := float64(n)*math.Ldexp(m, -50) + ulp
					mpitest.Check(t, c, math.Abs(s-ex) <= bound, "%s: SumRepro %v, SumExact %v: beyond %v", name, s, ex, bound)
				}
				switch special {
				case "nan":
					mpitest.Check(t, c, math.IsNaN(s) && math.IsNaN(d) && math.IsNaN(nm), "%s: want NaN, got %v %v %v", name, s, d, nm)
				case "inf-inf": // the squares are both +Inf
					mpitest.Check(t, c, math.IsNaN(s) && math.IsInf(nm, 1), "%s: want NaN and +Inf, got %v %v", name, s, nm)
				case "inf", "-inf":
					sign := 1
					if special == "-inf" {
						sign = -1
					}
					mpitest.Check(t, c, math.IsInf(s, sign) && math.IsInf(d, 0) && math.IsInf(nm, 1),
						"%s: want infinities, got %v %v %v", name, s, d, nm)
				}
				x.Free()
				y.Free()
			}
		}
	}
	// float32 elements: their products are exact in float64, and a sum of
	// small integers is exact.
	x, err := dist.FromFunc(c, []int{7}, func(idx []int) float32 { return float32(idx[0]) + 0.25 })
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	d, err := dist.DotRepro(x, x)
	s, err2 := dist.SumRepro(x)
	want := 0.0
	for i := range 7 {
		want += (float64(i) + 0.25) * (float64(i) + 0.25)
	}
	mpitest.Check(t, c, err == nil && err2 == nil && d == want && s == 22.75, "float32: DotRepro %v, want %v; SumRepro %v, want 22.75 (%v %v)", d, want, s, err, err2)
}

// TestReproGrid: a 2-D array on a process grid gives the bits of one rank.
func TestReproGrid(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	shape := []int{13, 7}
	f := func(idx []int) float64 { return math.Ldexp(math.Sin(float64(idx[0]*7+idx[1])), (idx[0]*11)%40-20) }
	vals := make([]float64, 13*7)
	for i := range vals {
		vals[i] = f([]int{i / 7, i % 7})
	}
	wantS, _, wantN := reproRef(t, vals, vals)
	for _, opts := range [][]dist.Option{nil, {dist.SplitAxis(1)}, {dist.ProcessGrid(p, 1)}} {
		x, err := dist.FromFunc(c, shape, f, opts...)
		if err != nil {
			t.Fatal(err)
		}
		s, err1 := dist.SumRepro(x)
		nm, err2 := dist.NormRepro(x)
		mpitest.Check(t, c, err1 == nil && err2 == nil && sameBits(s, wantS) && sameBits(nm, wantN), "grid %v: SumRepro %v (want %v), NormRepro %v (want %v) (%v %v)", opts, s, wantS, nm, wantN, err1, err2)
		x.Free()
	}
}

// BenchmarkSumRepro compares with BenchmarkSum (dist/exact_test.go): the
// same 2^20 float64.
func BenchmarkSumRepro(b *testing.B) {
	c := mpitest.World(b)
	for _, n := range []int{1 << 20, 1 << 23} {
		x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return math.Sin(float64(idx[0])) })
		if err != nil {
			b.Fatal(err)
		}
		for _, repro := range []bool{false, true} {
			name := "plain"
			if repro {
				name = "repro"
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, name), func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					if repro {
						dist.SumRepro(x)
					} else {
						dist.Sum(x)
					}
				}
			})
		}
		x.Free()
	}
}

// TestDeviceRepro: on the fake device, SumRepro, DotRepro and NormRepro
// give the host array's bits, with one recorded copy of each block to the
// host (x's for SumRepro and NormRepro, x's and y's for DotRepro) and none
// back.
func TestDeviceRepro(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{0, 3, 5000} {
		vals := reproVals(n)
		f := func(idx []int) float64 { return vals[idx[0]] }
		h, err := dist.FromFunc(c, []int{n}, f)
		if err != nil {
			t.Fatal(err)
		}
		x, err := dist.FromFunc(c, []int{n}, f, dist.OnBackend(fakedev.Default))
		if err != nil {
			t.Fatal(err)
		}
		wantS, err1 := dist.SumRepro(h)
		wantD, err2 := dist.DotRepro(h, h)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		block := int64(8 * x.Local().Len())
		var s, d, nm float64
		expectCopies(t, fmt.Sprintf("n=%d SumRepro", n), toHost(block), func() (err error) { s, err = dist.SumRepro(x); return })
		expectCopies(t, fmt.Sprintf("n=%d NormRepro", n), toHost(block), func() (err error) { nm, err = dist.NormRepro(x); return })
		y, err := dist.FromFunc(c, []int{n}, f, dist.OnBackend(fakedev.Default))
		if err != nil {
			t.Fatal(err)
		}
		expectCopies(t, fmt.Sprintf("n=%d DotRepro", n), toHost(block).plus(toHost(block)), func() (err error) { d, err = dist.DotRepro(x, y); return })
		mpitest.Check(t, c, sameBits(s, wantS) && sameBits(d, wantD) && sameBits(nm, math.Sqrt(wantD)),
			"n=%d: device %v %v %v, host %v %v %v", n, s, d, nm, wantS, wantD, math.Sqrt(wantD))
		h.Free()
		x.Free()
		y.Free()
	}
}
