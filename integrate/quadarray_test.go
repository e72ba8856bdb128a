package integrate

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/profiling"
)

// gammaSqrt is the integral of sqrt(x) exp(-c x) from 0 to b: c^(-3/2)
// times the lower incomplete gamma function of 3/2 at c*b,
// sqrt(pi)/2 erf(sqrt(z)) - sqrt(z) exp(-z).
func gammaSqrt(c, b float64) float64 {
	if math.IsInf(b, 1) {
		return math.Sqrt(math.Pi) / 2 * math.Pow(c, -1.5)
	}
	z := c * b
	return (math.Sqrt(math.Pi)/2*math.Erf(math.Sqrt(z)) - math.Sqrt(z)*math.Exp(-z)) * math.Pow(c, -1.5)
}

// TestQuadBatchArray integrates sqrt(x) exp(-(p+1) x) over [0, b_p] for
// many problems p (b_p finite and infinite), the integrand a fused kernel
// of x and the problem index p on the host and the fake device: the
// results are QuadBatch's bit for bit (the same integrand on the host),
// within the tolerance of the closed form, and the copies are three per
// round, counted by the fake device and recorded.
func TestQuadBatchArray(t *testing.T) {
	p, x := fuse.Var[int64]("p"), fuse.Var[float64]("x")
	c := fuse.Add(fuse.Cast[float64](p), fuse.Const(1.0))
	k := fuse.MustCompile(fuse.Out("y", fuse.Mul(fuse.Exp(fuse.Mul(fuse.Neg(c), x)), fuse.Sqrt(x))))
	for _, be := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, n := range []int{0, 1, 7, 200} {
			t.Run(fmt.Sprintf("%s/n=%d", be.Device(), n), func(t *testing.T) {
				a, b := make([]float64, n), make([]float64, n)
				for i := range b {
					b[i] = 0.5 + float64(i%9)
					if i%5 == 4 {
						b[i] = math.Inf(1)
					}
				}
				hostCalls := 0
				want, werr := QuadBatch(func(p []int, x, y []float64) {
					hostCalls++
					for i := range x {
						y[i] = math.Exp((-(float64(p[i]) + 1.0))*x[i]) * math.Sqrt(x[i])
					}
				}, a, b, nil)
				calls := 0
				f := func(p *backend.Array[int64], x, y *backend.Array[float64]) error {
					calls++
					_, err := k.Run(fuse.Args{"p": p, "x": x, "y": y})
					return err
				}
				var got []QuadResult
				var err error
				before := fakedev.Stats()
				cnt := profiling.Counting(func() { got, err = QuadBatchArray(f, a, b, be, nil) })
				d := fakedev.Stats().Sub(before)
				if (err == nil) != (werr == nil) {
					t.Fatalf("error %v, host %v", err, werr)
				}
				if calls != hostCalls || len(got) != n {
					t.Fatalf("%d calls, %d results; host %d calls", calls, len(got), hostCalls)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Errorf("problem %d: %+v, host %+v", i, got[i], want[i])
					}
					exact := gammaSqrt(float64(i)+1, b[i])
					if e := math.Abs(got[i].Value - exact); e > math.Max(1.49e-8, 1.49e-8*math.Abs(exact)) || e > 10*got[i].AbsErr+1e-15 {
						t.Errorf("problem %d: %.17g, exact %.17g (error estimate %g)", i, got[i].Value, exact, got[i].AbsErr)
					}
				}
				if be == backend.Backend(fakedev.Default) {
					if d.ToDevice != 2*calls || d.ToHost != calls || cnt.Count(profiling.ToDevice) != 2*calls || cnt.Count(profiling.ToHost) != calls {
						t.Errorf("%d rounds: device copies %d to device, %d to host; recorded %d, %d", calls, d.ToDevice, d.ToHost,
							cnt.Count(profiling.ToDevice), cnt.Count(profiling.ToHost))
					}
				}
			})
		}
	}
}

// TestQuadBatchArrayError: an error of the integrand is returned, with no
// results.
func TestQuadBatchArrayError(t *testing.T) {
	boom := errors.New("boom")
	res, err := QuadBatchArray(func(p *backend.Array[int64], x, y *backend.Array[float64]) error { return boom },
		[]float64{0, 1}, []float64{1, 2}, fakedev.Default, nil)
	if !errors.Is(err, boom) || res != nil {
		t.Fatalf("got %v, %v", res, err)
	}
}
