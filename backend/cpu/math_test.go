package cpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestMathParallel checks that the math functions of arrays long enough
// to run on several goroutines give, element by element, what they give
// on one element at a time, in place and not. (dist's tests check the
// values against NumPy on short arrays.)
func TestMathParallel(t *testing.T) {
	n := elemParMin + 3
	r := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = (2*r.Float64() - 1) * 20
		y[i] = (2*r.Float64() - 1) * 5
	}
	b := Default
	hb := func(s []float64) driver.Buffer { return driver.HostBufferOf(s) }
	cases := []struct {
		name string
		f    func(dst, x, y driver.Buffer)
	}{
		{"clip", func(d, x, _ driver.Buffer) { b.Clip(d, x, driver.ScalarOf(-3.0), driver.ScalarOf(4.0)) }},
		{"pow", func(d, x, y driver.Buffer) { b.Pow(d, x, y) }},
		{"pows", func(d, x, _ driver.Buffer) { b.PowScalar(d, x, driver.ScalarOf(-1.25)) }},
	}
	for op := driver.UnaryOp(0); op.Valid(); op++ {
		cases = append(cases, struct {
			name string
			f    func(dst, x, y driver.Buffer)
		}{op.String(), func(d, x, _ driver.Buffer) { b.Unary(op, d, x) }})
	}
	for _, c := range cases {
		for _, inPlace := range []bool{false, true} {
			xs := append([]float64(nil), x...)
			dst := make([]float64, n)
			if inPlace {
				dst = xs
			}
			c.f(hb(dst), hb(xs), hb(y))
			for i := 0; i < n; i += 997 {
				one := []float64{x[i]}
				c.f(hb(one), hb(one), hb(y[i:i+1]))
				if math.Float64bits(one[0]) != math.Float64bits(dst[i]) {
					t.Errorf("%s (in place %v): element %d: %v, alone %v", c.name, inPlace, i, dst[i], one[0])
					break
				}
			}
		}
	}
}

// TestMathPanics checks the argument panics of the math functions.
func TestMathPanics(t *testing.T) {
	f64 := driver.HostBufferOf(make([]float64, 3))
	f64b := driver.HostBufferOf(make([]float64, 4))
	i32 := driver.HostBufferOf(make([]int32, 3))
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"exp of int32", "cpu: exp of int32", func() { Default.Unary(driver.Exp, i32, i32) }},
		{"pow of int32", "cpu: pow of int32", func() { Default.Pow(i32, i32, i32) }},
		{"lengths", "cpu: sqrt of 3 float64 and 4 float64", func() { Default.Unary(driver.Sqrt, f64, f64b) }},
		{"types", "cpu: clip of 3 float64 and 3 int32", func() { Default.Clip(f64, i32, driver.ScalarOf(0.0), driver.ScalarOf(1.0)) }},
		{"op", "cpu: invalid UnaryOp 99", func() { Default.Unary(99, f64, f64) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, c.want) {
					t.Errorf("%s: panic %v, want %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}

// TestPowExact checks that Pow is exact (correctly rounded) for integer
// powers of integers and halves, which users expect of x**2 and x**-1,
// against exact rationals (math/big), and that x**0.5 is Sqrt(x).
func TestPowExact(t *testing.T) {
	for _, x := range []float64{0.5, 1.5, 2, 3, 7, 10, 29, 41, 99.5, 1000} {
		for n := -20; n <= 20; n++ {
			r := new(big.Rat).SetFloat64(x)
			p := big.NewRat(1, 1)
			for range abs(n) {
				p.Mul(p, r)
			}
			if n < 0 {
				p.Inv(p)
			}
			want, _ := p.Float64()
			if got := pow(x, float64(n)); got != want {
				t.Errorf("pow(%v, %d) = %v, want %v", x, n, got, want)
			}
		}
		if got, want := pow(x, 0.5), math.Sqrt(x); got != want {
			t.Errorf("pow(%v, 0.5) = %v, want %v", x, got, want)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
