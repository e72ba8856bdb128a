package optimize

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// squareProblem is x^2 - a = 0 per element, with starting points and
// parameters that make every outcome happen: elements that converge, one
// that starts on its root (f exactly 0), one that starts on a zero
// derivative, ones without a real root (a < 0: they never converge) and a
// NaN. lo offsets the element numbers (a rank's block).
func squareProblem(n, lo int) (x0, a []float64) {
	x0, a = make([]float64, n), make([]float64, n)
	for k := range x0 {
		i := lo + k
		switch i % 11 {
		case 3:
			x0[k], a[k] = 1.5, 2.25 // on the root
		case 5:
			x0[k], a[k] = 0, 3 // zero derivative (newton), secant goes on
		case 7:
			x0[k], a[k] = 0.5+float64(i%5), -1-float64(i%3) // no real root
		case 9:
			x0[k], a[k] = math.NaN(), 2
		default:
			x0[k], a[k] = 1+float64(i%13)/4, 0.5+float64(i%17)*3.25
		}
	}
	return x0, a
}

// squareHost are the BatchFuncs of squareProblem, the same arithmetic as
// squareFuse's expressions.
func squareHost(a []float64, lo int) (f, fp, fpp BatchFunc) {
	f = func(idx []int, x, out []float64) {
		for k, i := range idx {
			out[k] = x[k]*x[k] - a[i-lo]
		}
	}
	fp = func(idx []int, x, out []float64) {
		for k := range idx {
			out[k] = 2.0 * x[k]
		}
	}
	fpp = func(idx []int, x, out []float64) {
		for k := range idx {
			out[k] = 2.0
		}
	}
	return
}

// squareFuse are squareProblem's functions as ArrayFuncs: fused
// expressions of x and the parameter array a.
func squareFuse(a *backend.Array[float64]) (f, fp, fpp ArrayFunc) {
	x := fuse.Var[float64]("x")
	f = FuseFunc(fuse.Sub(fuse.Mul(x, x), fuse.Var[float64]("a")), fuse.Args{"a": a})
	fp = FuseFunc(fuse.Mul(fuse.Const(2.0), x), nil)
	fpp = FuseFunc(fuse.Add(fuse.Mul(fuse.Const(0.0), x), fuse.Const(2.0)), nil)
	return
}

func hostOf[T backend.Element](t *testing.T, a *backend.Array[T]) []T {
	t.Helper()
	s := make([]T, a.Len())
	if err := backend.CopyToHostSlice(s, a); err != nil {
		t.Fatal(err)
	}
	return s
}

func onBackend(t *testing.T, s []float64, b backend.Backend) *backend.Array[float64] {
	t.Helper()
	a, err := backend.ToDevice(backend.Wrap(s), b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sameBits compares the device result of element k with Newton's.
func sameResults(want *NewtonResult, lo int, root, resid []float64, conv, zero, iters []int32) error {
	for k := range root {
		i := lo + k
		if math.Float64bits(root[k]) != math.Float64bits(want.Root[i]) ||
			math.Float64bits(resid[k]) != math.Float64bits(want.Residual[i]) ||
			(conv[k] == 1) != want.Converged[i] || (zero[k] == 1) != want.ZeroDer[i] ||
			int(iters[k]) != want.Iterations[i] {
			return fmt.Errorf("element %d: root %v resid %v conv %d zero %d iters %d, host %v %v %v %v %d",
				i, root[k], resid[k], conv[k], zero[k], iters[k], want.Root[i], want.Residual[i], want.Converged[i], want.ZeroDer[i], want.Iterations[i])
		}
	}
	return nil
}

// TestNewtonArray checks NewtonArray on the CPU backend and the fake
// device against Newton on the host, bit for bit, for the three methods,
// and that on the fake device nothing moves between host and device but
// the counts read back (one per iteration and one at the end).
func TestNewtonArray(t *testing.T) {
	serialOnly(t)
	for _, be := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, method := range []string{"newton", "halley", "secant"} {
			for _, n := range []int{0, 1, 12, 1000, 4099} {
				t.Run(fmt.Sprintf("%s/%s/n=%d", be.Device(), method, n), func(t *testing.T) {
					x0, a := squareProblem(n, 0)
					hf, hfp, hfpp := squareHost(a, 0)
					ho := &NewtonOptions{MaxIter: 30}
					do := &ArrayNewtonOptions{MaxIter: 30}
					xd, ad := onBackend(t, x0, be), onBackend(t, a, be)
					defer xd.Free()
					defer ad.Free()
					df, dfp, dfpp := squareFuse(ad)
					switch method {
					case "secant":
						hfp, dfp = nil, nil
					case "halley":
						ho.FPrime2, do.FPrime2 = hfpp, dfpp
					}
					want, werr := Newton(hf, hfp, x0, ho)
					var res *ArrayNewtonResult
					var err error
					before := fakedev.Stats()
					cnt := profiling.Counting(func() { res, err = NewtonArray(df, dfp, xd, do) })
					d := fakedev.Stats().Sub(before)
					if (err == nil) != (werr == nil) || (err != nil && (errors.Is(err, ErrNoConvergence) != errors.Is(werr, ErrNoConvergence) ||
						errors.Is(err, ErrZeroDerivative) != errors.Is(werr, ErrZeroDerivative))) {
						t.Fatalf("error %v, host %v", err, werr)
					}
					if res == nil {
						t.Fatalf("no result: %v", err)
					}
					defer res.Free()
					if res.Method != want.Method || res.NumConverged != want.NumConverged || res.NumZeroDer != want.NumZeroDer || res.NumFailed != want.NumFailed {
						t.Errorf("%s counts %d %d %d, host %s %d %d %d", res.Method, res.NumConverged, res.NumZeroDer, res.NumFailed,
							want.Method, want.NumConverged, want.NumZeroDer, want.NumFailed)
					}
					if n == 0 && (res.Calls != 0 || res.MaxIterations != 0) {
						t.Errorf("n=0: %d calls, %d iterations", res.Calls, res.MaxIterations)
					}
					maxIt := 0
					for _, it := range want.Iterations {
						maxIt = max(maxIt, it)
					}
					if res.MaxIterations != maxIt {
						t.Errorf("most iterations %d, host %d", res.MaxIterations, maxIt)
					}
					for _, arr := range []*backend.Array[float64]{res.Root, res.Residual} {
						if arr.Device() != be.Device() || arr.Len() != n {
							t.Fatalf("result on %v with %d elements", arr.Device(), arr.Len())
						}
					}
					if be == backend.Backend(fakedev.Default) {
						if d.ToHost != 0 || d.ToDevice != 0 || cnt.Count(profiling.ToDevice) != 0 || cnt.Count(profiling.ToHost) != res.Readbacks {
							t.Errorf("copies: device %d to host, %d to device; recorded %d to host, %d to device; %d readbacks",
								d.ToHost, d.ToDevice, cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice), res.Readbacks)
						}
						// One count per iteration (as many as the most
						// steps, one more where an element stopped on a
						// zero value without a step), and the final counts.
						if lo, hi := min(maxIt, 30)+1, maxIt+2; n > 0 && (res.Readbacks < lo || res.Readbacks > hi) {
							t.Errorf("%d readbacks for at most %d steps", res.Readbacks, maxIt)
						}
						if n == 0 && res.Readbacks != 1 {
							t.Errorf("%d readbacks of nothing", res.Readbacks)
						}
					} else if cnt.Total() != 0 {
						t.Errorf("host run recorded %d transfer events:\n%s", cnt.Total(), cnt.Report())
					}
					if err := sameResults(want, 0, hostOf(t, res.Root), hostOf(t, res.Residual),
						hostOf(t, res.Converged), hostOf(t, res.ZeroDer), hostOf(t, res.Iterations)); err != nil {
						t.Error(err)
					}
				})
			}
		}
	}
}

// TestNewtonArrayCallbackError checks that an error of the function stops
// NewtonArray and is returned without a result.
func TestNewtonArrayCallbackError(t *testing.T) {
	serialOnly(t)
	boom := errors.New("boom")
	x := onBackend(t, []float64{1, 2, 3}, fakedev.Default)
	defer x.Free()
	calls := 0
	f := func(x, out *backend.Array[float64]) error {
		calls++
		if calls == 3 {
			return boom
		}
		backend.Copy(out, x)
		return nil
	}
	fp := func(x, out *backend.Array[float64]) error { backend.Fill(out, 1); return nil }
	res, err := NewtonArray(f, fp, x, nil)
	if !errors.Is(err, boom) || res != nil {
		t.Fatalf("got %v, %v", res, err)
	}
}

// TestNewtonArrayDist solves squareProblem over a distributed array on the
// fake device and the host, at any rank count the same bits as Newton over
// the whole array on one process, with the counts reduced over the ranks
// and no copies but the counts read back.
func TestNewtonArrayDist(t *testing.T) {
	world := mpitest.World(t)
	tests := []struct {
		n      int
		uneven bool
		method string
	}{
		{10007, false, "newton"},
		{10007, true, "halley"},
		{2001, true, "secant"},
		{3, false, "newton"}, // fewer elements than ranks at 4
	}
	for _, be := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/n=%d/uneven=%v/%s", be.Device(), tc.n, tc.uneven, tc.method), func(t *testing.T) {
				xs, as := squareProblem(tc.n, 0)
				hf, hfp, hfpp := squareHost(as, 0)
				ho, do := &NewtonOptions{}, &ArrayNewtonOptions{}
				opts := []dist.Option{dist.OnBackend(be)}
				if tc.uneven {
					opts = append(opts, dist.BlockSizes(unevenCounts(tc.n, world.Size())))
				}
				x0, err := dist.FromFunc(world, []int{tc.n}, func(idx []int) float64 { return xs[idx[0]] }, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer x0.Free()
				ad, err := dist.FromFunc(world, []int{tc.n}, func(idx []int) float64 { return as[idx[0]] }, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer ad.Free()
				lo, _ := x0.Range()
				df, dfp, dfpp := squareFuse(ad.Local())
				switch tc.method {
				case "secant":
					hfp, dfp = nil, nil
				case "halley":
					ho.FPrime2, do.FPrime2 = hfpp, dfpp
				}
				want, werr := Newton(hf, hfp, xs, ho)
				var res *DistArrayNewtonResult
				before := fakedev.Stats()
				cnt := profiling.Counting(func() { res, err = NewtonArrayDist(df, dfp, x0, do) })
				d := fakedev.Stats().Sub(before)
				mpitest.Check(t, world, res != nil && (err == nil) == (werr == nil), "error %v, host %v", err, werr)
				if res == nil {
					return
				}
				defer res.Free()
				maxIt := 0
				for _, it := range want.Iterations {
					maxIt = max(maxIt, it)
				}
				mpitest.Check(t, world, res.NumConverged == want.NumConverged && res.NumZeroDer == want.NumZeroDer &&
					res.NumFailed == want.NumFailed && res.MaxIterations == maxIt,
					"counts %d %d %d, most iterations %d; host %d %d %d, %d", res.NumConverged, res.NumZeroDer, res.NumFailed, res.MaxIterations,
					want.NumConverged, want.NumZeroDer, want.NumFailed, maxIt)
				okCopies := d.ToHost == 0 && d.ToDevice == 0 && cnt.Count(profiling.ToDevice) == 0
				if be == backend.Backend(fakedev.Default) {
					okCopies = okCopies && cnt.Count(profiling.ToHost) == res.Readbacks
				} else {
					okCopies = okCopies && cnt.Count(profiling.ToHost) == 0
				}
				mpitest.Check(t, world, okCopies, "copies: device %d to host, %d to device; recorded %d to host, %d to device; %d readbacks",
					d.ToHost, d.ToDevice, cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice), res.Readbacks)
				mpitest.Check(t, world, res.Root.Device() == be.Device() && res.Converged.Device() == be.Device(), "results on %v", res.Root.Device())
				e := sameResults(want, lo, hostOf(t, res.Root.Local()), hostOf(t, res.Residual.Local()),
					hostOf(t, res.Converged), hostOf(t, res.ZeroDer), hostOf(t, res.Iterations))
				mpitest.Check(t, world, e == nil, "%v", e)
			})
		}
	}
}

var _ = mpi.Sum

// TestNewtonArrayCUDASource: the fused kernels of NewtonArray have CUDA
// programs (generated, not compiled or launched: no GPU here), compiled
// without fused multiply-adds so that the steps are the host's bits.
func TestNewtonArrayCUDASource(t *testing.T) {
	serialOnly(t)
	for name, k := range inKeyOrder(map[string]*fuse.Kernel{"newton": newtonStepKernel, "halley": halleyStepKernel,
		"secant": secantStepKernel, "secant init": secantInitKernel, "final": finalKernel}) {
		p, err := k.CUDA()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		fmad := false
		for _, o := range p.Options {
			fmad = fmad || o == "--fmad=false"
		}
		if !fmad || p.Source == "" {
			t.Errorf("%s: options %v, %d bytes of source", name, p.Options, len(p.Source))
		}
	}
}

// keplerArray are keplerFuncs as ArrayFuncs over the blocks m and e: the
// sine and cosine by the backend's Math (on its device), the rest a fused
// kernel, the same arithmetic as keplerFuncs.
func keplerArray(t *testing.T, m, e *backend.Array[float64]) (f, fp, fpp ArrayFunc, free func()) {
	t.Helper()
	bm, ok := m.Backend().(backend.Math)
	if !ok {
		t.Fatalf("backend %v without Math", m.Device())
	}
	tmp, err := backend.NewOn[float64](m.Backend(), m.Len())
	if err != nil {
		t.Fatal(err)
	}
	x, s := fuse.Var[float64]("x"), fuse.Var[float64]("s")
	ev, mv := fuse.Var[float64]("e"), fuse.Var[float64]("m")
	kf := fuse.MustCompile(fuse.Out("out", fuse.Sub(fuse.Sub(x, fuse.Mul(ev, s)), mv)))
	kfp := fuse.MustCompile(fuse.Out("out", fuse.Sub(fuse.Const(1.0), fuse.Mul(ev, s))))
	kfpp := fuse.MustCompile(fuse.Out("out", fuse.Mul(ev, s)))
	with := func(op backend.UnaryOp, k *fuse.Kernel) ArrayFunc {
		return func(x, out *backend.Array[float64]) error {
			bm.Unary(op, tmp.Buffer(), x.Buffer())
			_, err := k.Run(fuse.Args{"x": x, "s": tmp, "e": e, "m": m, "out": out})
			return err
		}
	}
	return with(backend.Sin, kf), with(backend.Cos, kfp), with(backend.Sin, kfpp), tmp.Free
}

// TestNewtonArrayKepler solves Kepler's equation per orbit over a
// distributed array on the fake device (sine and cosine by the device's
// Math, the rest fused): at every rank count the same bits as Newton on
// the host over the whole array, with no copies but the counts.
func TestNewtonArrayKepler(t *testing.T) {
	world := mpitest.World(t)
	n := 20011
	if testing.Short() {
		n = 2003
	}
	for _, method := range []string{"newton", "halley", "secant"} {
		t.Run(method, func(t *testing.T) {
			m, e := kepler(n)
			whole := keplerNewton(t, method, m, e, false)
			opts := []dist.Option{dist.OnBackend(fakedev.Default), dist.BlockSizes(unevenCounts(n, world.Size()))}
			x0, err := dist.FromFunc(world, []int{n}, func(idx []int) float64 { return m[idx[0]] }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer x0.Free()
			ed, err := dist.FromFunc(world, []int{n}, func(idx []int) float64 { return e[idx[0]] }, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer ed.Free()
			f, fp, fpp, free := keplerArray(t, x0.Local(), ed.Local())
			defer free()
			o := &ArrayNewtonOptions{}
			switch method {
			case "secant":
				fp = nil
			case "halley":
				o.FPrime2 = fpp
			}
			var res *DistArrayNewtonResult
			before := fakedev.Stats()
			cnt := profiling.Counting(func() { res, err = NewtonArrayDist(f, fp, x0, o) })
			d := fakedev.Stats().Sub(before)
			mpitest.Check(t, world, err == nil && res != nil, "error %v", err)
			if res == nil {
				return
			}
			defer res.Free()
			mpitest.Check(t, world, res.NumConverged == n && res.Method == whole.Method, "%d of %d converged (%s)", res.NumConverged, n, res.Method)
			mpitest.Check(t, world, d.ToHost == 0 && d.ToDevice == 0 && cnt.Count(profiling.ToHost) == res.Readbacks,
				"copies: %d to host, %d to device, recorded %d to host; %d readbacks", d.ToHost, d.ToDevice, cnt.Count(profiling.ToHost), res.Readbacks)
			lo, _ := x0.Range()
			e2 := sameResults(whole, lo, hostOf(t, res.Root.Local()), hostOf(t, res.Residual.Local()),
				hostOf(t, res.Converged), hostOf(t, res.ZeroDer), hostOf(t, res.Iterations))
			mpitest.Check(t, world, e2 == nil, "%v", e2)
		})
	}
}
