package fft

import (
	"encoding/json"
	"math"
	"math/cmplx"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
)

// fixtures are NumPy's FFTs from testdata/gen_fixtures.py.
type fixtures struct {
	NumPy string `json:"numpy"`
	Local []struct {
		Shape []int        `json:"shape"`
		Axis  int          `json:"axis"`
		X     [][2]float64 `json:"x"`
		FFT   [][2]float64 `json:"fft"`
		IFFT  [][2]float64 `json:"ifft"`
	} `json:"local"`
	ND []struct {
		Shape []int        `json:"shape"`
		X     [][2]float64 `json:"x"`
		FFTN  [][2]float64 `json:"fftn"`
		IFFTN [][2]float64 `json:"ifftn"`
		FFT2  [][2]float64 `json:"fft2"`
		IFFT2 [][2]float64 `json:"ifft2"`
	} `json:"nd"`
}

var (
	fixOnce sync.Once
	fix     fixtures
	fixErr  error
)

func loadFixtures(t testing.TB) *fixtures {
	t.Helper()
	fixOnce.Do(func() {
		b, err := os.ReadFile("testdata/fixtures.json")
		if err != nil {
			fixErr = err
			return
		}
		fixErr = json.Unmarshal(b, &fix)
	})
	if fixErr != nil {
		t.Fatalf("fixtures: %v", fixErr)
	}
	return &fix
}

func cplx(p [][2]float64) []complex128 {
	c := make([]complex128, len(p))
	for i, v := range p {
		c[i] = complex(v[0], v[1])
	}
	return c
}

// relErr is max|got-want| / max|want| (the norm-wise relative error in
// the max norm); 0 when both are empty.
func relErr(got, want []complex128) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var d, m float64
	for i := range want {
		d = math.Max(d, cmplx.Abs(got[i]-want[i]))
		m = math.Max(m, cmplx.Abs(want[i]))
	}
	if m == 0 {
		return d
	}
	return d / m
}

const tol = 1e-12

// naiveDFT is the definition, summed in float64 with exact-phase twiddles
// (the angle reduced modulo n before the sine and cosine).
func naiveDFT(x []complex128, shape []int, axis int, inverse bool) []complex128 {
	outer, n, inner := 1, shape[axis], 1
	for k, s := range shape {
		if k < axis {
			outer *= s
		} else if k > axis {
			inner *= s
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	y := make([]complex128, len(x))
	for o := 0; o < outer; o++ {
		for c := 0; c < inner; c++ {
			for k := 0; k < n; k++ {
				var s complex128
				for j := 0; j < n; j++ {
					ang := sign * 2 * math.Pi * float64((j*k)%n) / float64(n)
					s += x[(o*n+j)*inner+c] * complex(math.Cos(ang), math.Sin(ang))
				}
				if inverse {
					s /= complex(float64(n), 0)
				}
				y[(o*n+k)*inner+c] = s
			}
		}
	}
	return y
}

func TestLocalNumPy(t *testing.T) {
	f := loadFixtures(t)
	if len(f.Local) == 0 {
		t.Fatal("no local fixtures")
	}
	for _, threads := range []int{1, 3} {
		prev := backend.SetThreads(threads)
		for _, c := range f.Local {
			x := cplx(c.X)
			got := append([]complex128(nil), x...)
			LocalFFT(got, c.Shape, c.Axis)
			if e := relErr(got, cplx(c.FFT)); e > tol {
				t.Errorf("threads %d: LocalFFT shape %v axis %d: relative error %.3g", threads, c.Shape, c.Axis, e)
			}
			got = append(got[:0], x...)
			LocalIFFT(got, c.Shape, c.Axis)
			if e := relErr(got, cplx(c.IFFT)); e > tol {
				t.Errorf("threads %d: LocalIFFT shape %v axis %d: relative error %.3g", threads, c.Shape, c.Axis, e)
			}
		}
		backend.SetThreads(prev)
	}
}

// TestLocalNaive checks blocks large enough to use several goroutines and
// several column groups against the definition, and the round trip.
func TestLocalNaive(t *testing.T) {
	for _, tc := range []struct {
		shape []int
		axis  int
	}{
		{[]int{64, 600}, 0},    // strided, 75 column groups, parallel
		{[]int{600, 64}, 1},    // contiguous, parallel
		{[]int{3, 45, 250}, 1}, // middle axis, tail group of 2
		{[]int{30, 7, 11}, 0},
		{[]int{2, 0, 5}, 2}, // empty
		{[]int{0}, 0},
	} {
		n := 1
		for _, s := range tc.shape {
			n *= s
		}
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(math.Sin(float64(i)*0.731+0.2), math.Cos(float64(i)*1.37)-0.5)
		}
		for _, threads := range []int{1, 4} {
			prev := backend.SetThreads(threads)
			got := append([]complex128(nil), x...)
			LocalFFT(got, tc.shape, tc.axis)
			if e := relErr(got, naiveDFT(x, tc.shape, tc.axis, false)); e > tol {
				t.Errorf("threads %d shape %v axis %d: forward relative error %.3g", threads, tc.shape, tc.axis, e)
			}
			inv := append([]complex128(nil), x...)
			LocalIFFT(inv, tc.shape, tc.axis)
			if e := relErr(inv, naiveDFT(x, tc.shape, tc.axis, true)); e > tol {
				t.Errorf("threads %d shape %v axis %d: inverse relative error %.3g", threads, tc.shape, tc.axis, e)
			}
			LocalIFFT(got, tc.shape, tc.axis)
			if e := relErr(got, x); e > tol {
				t.Errorf("threads %d shape %v axis %d: round trip relative error %.3g", threads, tc.shape, tc.axis, e)
			}
			backend.SetThreads(prev)
		}
	}
}

func TestLocalPanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		shape []int
		axis  int
		msg   string
	}{
		{"axis high", 6, []int{2, 3}, 2, "axis 2 out of range"},
		{"axis negative", 6, []int{2, 3}, -1, "axis -1 out of range"},
		{"length", 5, []int{2, 3}, 0, "5 elements for shape [2 3]"},
		{"negative extent", 0, []int{-1, 3}, 0, "negative extent"},
	} {
		func() {
			defer func() {
				r := recover()
				s, _ := r.(string)
				if !strings.HasPrefix(s, "fft: ") || !strings.Contains(s, tc.msg) {
					t.Errorf("%s: panic %v, want one starting fft: and containing %q", tc.name, r, tc.msg)
				}
			}()
			LocalFFT(make([]complex128, tc.n), tc.shape, tc.axis)
		}()
	}
}
