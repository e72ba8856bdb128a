package integrate

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/profiling"
)

// oscKernel is the right-hand side of the tests' systems of two
// equations, with per-system parameters a, b, c: y0' = y1 + c*y0*y0,
// y1' = -a*y0 - b*y1 (a damped oscillator with c = 0; it blows up in
// finite time with c > 0; stiff with a large b).
var oscKernel = kernels.MustNew(kernels.Spec{
	Name: "rk45test_osc",
	CUDA: `
extern "C" __global__ void rk45test_osc(long long n, const double *t, const double *y, double *dy,
	const double *a, const double *b, const double *c)
{
	for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += (long long)gridDim.x * blockDim.x) {
		double y0 = y[2 * s], y1 = y[2 * s + 1];
		dy[2 * s] = y1 + c[s] * y0 * y0;
		dy[2 * s + 1] = -a[s] * y0 - b[s] * y1;
	}
}`,
	Host: func(hc *kernels.HostCall) error {
		n := kernels.IntAt(hc, 0)
		y, dy := kernels.In[float64](hc, 2), kernels.Out[float64](hc, 3)
		a, b, c := kernels.In[float64](hc, 4), kernels.In[float64](hc, 5), kernels.In[float64](hc, 6)
		for s := 0; s < n; s++ {
			oscHost(a[s], b[s], c[s], y[2*s:2*s+2], dy[2*s:2*s+2])
		}
		return nil
	},
})

// oscHost is oscKernel's arithmetic for one system (each product rounded,
// as CUDA with --fmad=false).
func oscHost(a, b, c float64, y, dy []float64) {
	y0, y1 := y[0], y[1]
	dy[0] = y1 + float64(float64(c*y0)*y0)
	dy[1] = float64(-a*y0) - float64(b*y1)
}

// oscProblem is a batch of n systems: mostly damped oscillators with
// parameters that vary, a system that blows up (a step size under the
// minimum), a stiff one, one with a NaN start; lo offsets the system
// numbers (a rank's block).
func oscProblem(n, lo int) (y0, a, b, c []float64) {
	y0, a, b, c = make([]float64, 2*n), make([]float64, n), make([]float64, n), make([]float64, n)
	for k := 0; k < n; k++ {
		s := lo + k
		y0[2*k], y0[2*k+1] = 1+float64(s%7)/8, float64(s%5)-2
		a[k], b[k] = 1+float64(s%13), float64(s%3)*0.25
		switch s % 23 {
		case 4:
			c[k], y0[2*k] = 1, 2 // blows up before t = 1
		case 11:
			a[k], b[k] = 1000, 1001 // stiff: eigenvalues -1 and -1000
		case 17:
			y0[2*k+1] = math.NaN()
		}
	}
	return
}

// oscFuncs returns the host batch's f and the device f of oscProblem's
// parameters, the latter on backend be.
func oscFuncs(t *testing.T, be backend.Backend, a, b, c []float64) (BatchODEFunc, ArrayODEFunc, func()) {
	t.Helper()
	host := func(tv, y, dy []float64) {
		for s := range tv {
			oscHost(a[s], b[s], c[s], y[2*s:2*s+2], dy[2*s:2*s+2])
		}
	}
	ad, bd, cd := onDevice(t, a, be), onDevice(t, b, be), onDevice(t, c, be)
	dev := func(tv, y, dy *backend.Array[float64]) error {
		return oscKernel.Call(kernels.Int(tv.Len()), kernels.Array(tv), kernels.Array(y), kernels.Array(dy),
			kernels.Array(ad), kernels.Array(bd), kernels.Array(cd))
	}
	return host, dev, func() { ad.Free(); bd.Free(); cd.Free() }
}

func onDevice(t *testing.T, s []float64, be backend.Backend) *backend.Array[float64] {
	t.Helper()
	a, err := backend.NewOn[float64](be, len(s))
	if err == nil {
		err = backend.CopyFromHostSlice(a, s)
	}
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func hostCopy(t *testing.T, a *backend.Array[float64]) []float64 {
	t.Helper()
	s := make([]float64, a.Len())
	if err := backend.CopyToHostSlice(s, a); err != nil {
		t.Fatal(err)
	}
	return s
}

// sameBatch compares the device batch's results for systems [lo, lo+n)
// of want (the host batch's) with got's, bit for bit.
func sameBatch(want *BatchResult, lo, dim int, y []float64, got *ArrayBatchResult) error {
	wy := want.Y[len(want.Y)-1]
	for k := range got.TFinal {
		i := lo + k
		for c := 0; c < dim; c++ {
			if math.Float64bits(y[k*dim+c]) != math.Float64bits(wy[i*dim+c]) && !(math.IsNaN(y[k*dim+c]) && math.IsNaN(wy[i*dim+c])) {
				return fmt.Errorf("system %d: y[%d] = %v, host batch %v", i, c, y[k*dim+c], wy[i*dim+c])
			}
		}
		if math.Float64bits(got.TFinal[k]) != math.Float64bits(want.TFinal[i]) || got.Steps[k] != want.Steps[i] ||
			got.Rejected[k] != want.Rejected[i] || got.Status[k] != want.Status[i] || got.Stiff[k] != want.Stiff[i] {
			return fmt.Errorf("system %d: tfinal %v steps %d rejected %d status %d stiff %v, host batch %v %d %d %d %v", i,
				got.TFinal[k], got.Steps[k], got.Rejected[k], got.Status[k], got.Stiff[k],
				want.TFinal[i], want.Steps[i], want.Rejected[i], want.Status[i], want.Stiff[i])
		}
		if (got.Err[k] == nil) != (want.Err[i] == nil) || got.Err[k] != nil && got.Err[k].Error() != want.Err[i].Error() {
			return fmt.Errorf("system %d: error %v, host batch %v", i, got.Err[k], want.Err[i])
		}
	}
	return nil
}

// TestSolveIVPBatchArray compares the device batch with SolveIVPBatch bit
// for bit, on the CPU backend and the fake device, for batch sizes around
// SolveIVPIndexed's chunk (256 systems of two equations), with the
// failures every system can have, and counts the copies.
func TestSolveIVPBatchArray(t *testing.T) {
	type tc struct {
		name   string
		n      int
		t0, tf float64
		opts   IVPOptions
	}
	var cases []tc
	for _, n := range []int{0, 1, 5, 24, 255, 256, 257} {
		if testing.Short() && n > 24 {
			continue
		}
		cases = append(cases, tc{fmt.Sprintf("n=%d", n), n, 0, 3, IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9}})
	}
	cases = append(cases,
		tc{"backwards, MaxStep, per-component tolerances", 30, 2, -1, IVPOptions{Method: RK45, MaxStep: 0.05, RelTols: []float64{1e-5, 1e-7}, AbsTols: []float64{1e-8, 1e-6}}},
		tc{"FirstStep, MaxSteps, IgnoreStiffness", 30, 0, 5, IVPOptions{Method: RK45, FirstStep: 1e-3, MaxSteps: 40, IgnoreStiffness: true}},
		tc{"t0 = tf", 7, 1, 1, IVPOptions{Method: RK45}},
	)
	for _, be := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%s", be.Device(), c.name), func(t *testing.T) {
				y0, a, b, cc := oscProblem(c.n, 0)
				hf, df, free := oscFuncs(t, be, a, b, cc)
				defer free()
				want, werr := SolveIVPBatch(hf, c.n, 2, c.t0, c.tf, y0, &c.opts)
				y0d := onDevice(t, y0, be)
				defer y0d.Free()
				var got *ArrayBatchResult
				var gerr error
				before := fakedev.Stats()
				cnt := profiling.Counting(func() { got, gerr = SolveIVPBatchArray(df, c.n, 2, c.t0, c.tf, y0d, &c.opts) })
				st := fakedev.Stats().Sub(before)
				if got == nil {
					t.Fatalf("no result: %v", gerr)
				}
				defer got.Free()
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
					t.Errorf("error %v, host batch %v", gerr, werr)
				}
				if err := sameBatch(want, 0, 2, hostCopy(t, got.Y), got); err != nil {
					t.Error(err)
				}
				if got.Calls != want.Calls {
					t.Errorf("%d calls, host batch %d", got.Calls, want.Calls)
				}
				if be == backend.Backend(fakedev.Default) {
					if st.ToHost != got.ToHost || st.ToDevice != got.ToDevice || cnt.Count(profiling.ToHost) != got.ToHost {
						t.Errorf("copies: %d to host and %d to device (%d recorded to host); the result says %d and %d",
							st.ToHost, st.ToDevice, cnt.Count(profiling.ToHost), got.ToHost, got.ToDevice)
					}
					if c.n > 0 && c.t0 != c.tf && got.ToHost != got.Rounds+5-btoi(c.opts.FirstStep > 0) {
						t.Errorf("%d copies to host in %d rounds", got.ToHost, got.Rounds)
					}
				}
				if c.n >= 24 && c.t0 == 0 && c.opts.MaxSteps == 0 {
					// Every kind of failure happens.
					for _, e := range []error{ErrStepTooSmall, ErrStiff, ErrNonFiniteState} {
						if !errors.Is(gerr, e) {
							t.Errorf("no system failed with %v: %v", e, gerr)
						}
					}
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSolveIVPBatchArrayFuse integrates y' = -a*y + t, one equation per
// system, with a fused expression as the right-hand side, against
// SolveIVPBatch and SolveIVP's closed form y = (y0 - (a t0 - 1)/a^2)
// e^(-a (t-t0)) + (a t - 1)/a^2.
func TestSolveIVPBatchArrayFuse(t *testing.T) {
	const n = 41
	y0, a := make([]float64, n), make([]float64, n)
	for s := range y0 {
		y0[s], a[s] = float64(s%9)-4, 0.5+float64(s%6)
	}
	k := fuse.MustCompile(fuse.Out("dy", fuse.Add(fuse.Mul(fuse.Neg(fuse.Var[float64]("a")), fuse.Var[float64]("y")), fuse.Var[float64]("t"))))
	host := func(tv, y, dy []float64) {
		for s := range tv {
			dy[s] = -a[s]*y[s] + tv[s]
		}
	}
	opts := &IVPOptions{Method: RK45, RelTol: 1e-8, AbsTol: 1e-10}
	want, err := SolveIVPBatch(host, n, 1, 0, 2, y0, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []backend.Backend{backend.Current(), fakedev.Default} {
		ad, y0d := onDevice(t, a, be), onDevice(t, y0, be)
		f := func(tv, y, dy *backend.Array[float64]) error {
			_, err := k.Run(fuse.Args{"a": ad, "y": y, "t": tv, "dy": dy})
			return err
		}
		got, err := SolveIVPBatchArray(f, n, 1, 0, 2, y0d, opts)
		if err != nil {
			t.Fatal(err)
		}
		y := hostCopy(t, got.Y)
		if err := sameBatch(want, 0, 1, y, got); err != nil {
			t.Errorf("%v: %v", be.Device(), err)
		}
		for s := range y {
			aa := a[s]
			exact := (y0[s]+1/(aa*aa))*math.Exp(-aa*2) + (aa*2-1)/(aa*aa)
			if math.Abs(y[s]-exact) > 1e-6*(1+math.Abs(exact)) {
				t.Errorf("%v: system %d: %v, exact %v", be.Device(), s, y[s], exact)
			}
		}
		got.Free()
		ad.Free()
		y0d.Free()
	}
}

// TestSolveIVPBatchArrayEmptySystems: systems of no equations go to the
// end in one step each, as in SolveIVPBatch.
func TestSolveIVPBatchArrayEmptySystems(t *testing.T) {
	for _, be := range []backend.Backend{backend.Current(), fakedev.Default} {
		y0, err := backend.NewOn[float64](be, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []IVPOptions{{Method: RK45}, {Method: RK45, MaxStep: 0.3}} {
			want, werr := SolveIVPBatch(func(t, y, dy []float64) {}, 3, 0, 0, 1, nil, &o)
			got, err := SolveIVPBatchArray(func(t, y, dy *backend.Array[float64]) error { return nil }, 3, 0, 0, 1, y0, &o)
			if err != nil || werr != nil {
				t.Fatalf("%v: %v, host batch %v", be.Device(), err, werr)
			}
			if err := sameBatch(want, 0, 0, nil, got); err != nil || got.Calls != want.Calls || got.Steps[0] == 0 {
				t.Errorf("%v, MaxStep %g: %v; %d calls, host batch %d; %d steps", be.Device(), o.MaxStep, err, got.Calls, want.Calls, got.Steps[0])
			}
			got.Free()
		}
		y0.Free()
	}
}

// TestSolveIVPBatchArrayErrors: an error of f stops the batch with no
// result (and frees what it made), and bad arguments panic.
func TestSolveIVPBatchArrayErrors(t *testing.T) {
	y0 := backend.Wrap([]float64{1, 2, 3, 4})
	boom := errors.New("boom")
	calls := 0
	f := func(tv, y, dy *backend.Array[float64]) error {
		if calls++; calls == 5 {
			return boom
		}
		backend.Copy(dy, y)
		return nil
	}
	y0d := onDevice(t, y0.Data(), fakedev.Default)
	before := fakedev.Stats()
	res, err := SolveIVPBatchArray(f, 2, 2, 0, 1, y0d, &IVPOptions{Method: RK45})
	if res != nil || !errors.Is(err, boom) {
		t.Errorf("f's error: %v, %v", res, err)
	}
	if st := fakedev.Stats().Sub(before); st.Allocs != st.Frees {
		t.Errorf("%d arrays made and %d freed", st.Allocs, st.Frees)
	}
	y0d.Free()
	ok := func(tv, y, dy *backend.Array[float64]) error { return nil }
	for name, call := range inKeyOrder(map[string]func(){
		"length":  func() { SolveIVPBatchArray(ok, 3, 2, 0, 1, y0, &IVPOptions{Method: RK45}) },
		"auto":    func() { SolveIVPBatchArray(ok, 2, 2, 0, 1, y0, &IVPOptions{}) },
		"TEval":   func() { SolveIVPBatchArray(ok, 2, 2, 0, 1, y0, &IVPOptions{Method: RK45, TEval: []float64{1}}) },
		"nil f":   func() { SolveIVPBatchArray(nil, 2, 2, 0, 1, y0, &IVPOptions{Method: RK45}) },
		"inf end": func() { SolveIVPBatchArray(ok, 2, 2, 0, math.Inf(1), y0, &IVPOptions{Method: RK45}) },
	}) {
		func() {
			defer func() {
				if r := recover(); r == nil || !startsWith(fmt.Sprint(r), "integrate: SolveIVPBatchArray") {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			call()
		}()
	}
}

func startsWith(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
