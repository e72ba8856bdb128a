package optimize

import (
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// keplerFDF is Kepler's equation and its derivative from one callback, for
// orbits whose element i is orbit off+i: the values keplerFuncs' f and fp
// give (math.Sin and math.Cos, as they call them).
func keplerFDF(m, e []float64, off int) BatchFDF {
	return func(idx []int, x, f, df []float64) {
		for k, i := range idx {
			f[k] = x[k] - e[off+i]*math.Sin(x[k]) - m[off+i]
			df[k] = 1 - e[off+i]*math.Cos(x[k])
		}
	}
}

// sameNewton reports the first difference between two results' roots,
// masks, iterations, residuals, counts, evaluations of f and method, or "".
func sameNewton(a, b *NewtonResult) string {
	switch {
	case !slices.Equal(a.Root, b.Root):
		return "roots"
	case !slices.Equal(a.Residual, b.Residual):
		return "residuals"
	case !slices.Equal(a.Iterations, b.Iterations):
		return "iterations"
	case !slices.Equal(a.Converged, b.Converged) || !slices.Equal(a.ZeroDer, b.ZeroDer):
		return "masks"
	case a.NumConverged != b.NumConverged || a.NumZeroDer != b.NumZeroDer || a.NumFailed != b.NumFailed:
		return "counts"
	case a.Evals != b.Evals:
		return "evaluations of f"
	case a.Method != b.Method:
		return "method"
	}
	return ""
}

// TestNewtonFDFSameBits: NewtonFDF with the values of f and fprime gives
// Newton's result bit for bit, for Newton's and Halley's method, compacted
// and in lockstep, over several chunks (and a last partial one), with one
// call of fdf where Newton makes one of f and one of fprime.
func TestNewtonFDFSameBits(t *testing.T) {
	serialOnly(t)
	n := 3*newtonChunk + 77
	m, e := kepler(n)
	chunks := (n + newtonChunk - 1) / newtonChunk
	for _, method := range []string{"newton", "halley"} {
		for _, lockstep := range []bool{false, true} {
			f, fp, fpp := keplerFuncs(m, e, 0)
			o := &NewtonOptions{Lockstep: lockstep}
			if method == "halley" {
				o.FPrime2 = fpp
			}
			want, werr := Newton(f, fp, m, o)
			got, gerr := NewtonFDF(keplerFDF(m, e, 0), m, o)
			if werr != nil || gerr != nil {
				t.Fatalf("%s lockstep=%v: errors %v, %v", method, lockstep, werr, gerr)
			}
			if d := sameNewton(got, want); d != "" {
				t.Fatalf("%s lockstep=%v: NewtonFDF's %s differ from Newton's", method, lockstep, d)
			}
			// Each chunk: Newton calls f and fprime (and fpp) per iteration
			// and f once for the residuals; NewtonFDF calls fdf (and fpp)
			// and fdf for the residuals, whose derivatives count too.
			perIter := 2
			if method == "halley" {
				perIter = 3
			}
			iters := (want.Calls - chunks) / perIter
			if got.Calls != chunks+(perIter-1)*iters || got.DerivEvals != want.DerivEvals+n {
				t.Errorf("%s lockstep=%v: %d calls, %d derivative evaluations; Newton %d, %d (%d chunks)",
					method, lockstep, got.Calls, got.DerivEvals, want.Calls, want.DerivEvals, chunks)
			}
		}
	}
}

// TestNewtonFDFInto: solves into one result give NewtonFDF's result, the
// second allocating nothing; a smaller solve leaves nothing of the first.
func TestNewtonFDFInto(t *testing.T) {
	serialOnly(t)
	m, e := kepler(2500)
	fdf := keplerFDF(m, e, 0)
	want, err := NewtonFDF(fdf, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := new(NewtonResult)
	if err := NewtonFDFInto(res, fdf, m, nil); err != nil {
		t.Fatal(err)
	}
	if d := sameNewton(res, want); d != "" || res.Calls != want.Calls || res.DerivEvals != want.DerivEvals {
		t.Fatalf("NewtonFDFInto differs from NewtonFDF: %s (calls %d/%d)", d, res.Calls, want.Calls)
	}
	if a := testing.AllocsPerRun(3, func() { _ = NewtonFDFInto(res, fdf, m, nil) }); a != 0 {
		t.Errorf("a repeated NewtonFDFInto allocated %v times", a)
	}
	small, err := NewtonFDF(fdf, m[:5], nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := NewtonFDFInto(res, fdf, m[:5], nil); err != nil {
		t.Fatal(err)
	}
	if d := sameNewton(res, small); d != "" || len(res.Root) != 5 {
		t.Fatalf("after a larger solve: %s, %d roots", d, len(res.Root))
	}
}

// TestNewtonFDFPanics: a nil fdf or result, and bad options, panic with the
// package's message.
func TestNewtonFDFPanics(t *testing.T) {
	fdf := keplerFDF([]float64{1}, []float64{0.5}, 0)
	for name, call := range map[string]func(){
		"nil fdf":        func() { _, _ = NewtonFDF(nil, []float64{1}, nil) },
		"nil fdf, Into":  func() { _ = NewtonFDFInto(new(NewtonResult), nil, []float64{1}, nil) },
		"nil result":     func() { _ = NewtonFDFInto(nil, fdf, []float64{1}, nil) },
		"negative Tol":   func() { _, _ = NewtonFDF(fdf, []float64{1}, &NewtonOptions{Tol: -1}) },
		"nil fdf, dist":  func() { _, _ = NewtonDistFDF(nil, nil, nil) },
		"negative MaxIt": func() { _, _ = NewtonFDF(fdf, []float64{1}, &NewtonOptions{MaxIter: -1}) },
	} {
		func() {
			defer func() {
				if p, ok := recover().(string); !ok || len(p) < 10 || p[:10] != "optimize: " {
					t.Errorf("%s: panic %v, want the package's", name, p)
				}
			}()
			call()
		}()
	}
}

// TestNewtonDistFDF: over a distributed array, at any rank count (uneven
// blocks, fewer elements than ranks), NewtonDistFDF gives NewtonDist's
// roots, residuals and counts bit for bit, with Newton's and Halley's
// method.
func TestNewtonDistFDF(t *testing.T) {
	world := mpitest.World(t)
	for _, tc := range []struct {
		n      int
		uneven bool
		halley bool
	}{{10007, false, false}, {10007, true, true}, {3, false, false}} {
		m, e := kepler(tc.n)
		x0 := distOf(t, world, m, tc.uneven)
		lo, _ := x0.Range()
		f, fp, fpp := keplerFuncs(m, e, lo)
		o := &NewtonOptions{}
		if tc.halley {
			o.FPrime2 = fpp
		}
		want, werr := NewtonDist(f, fp, x0, o)
		got, gerr := NewtonDistFDF(keplerFDF(m, e, lo), x0, o)
		mpitest.Check(t, world, werr == nil && gerr == nil, "n=%d: errors %v, %v", tc.n, werr, gerr)
		if werr != nil || gerr != nil {
			x0.Free()
			continue
		}
		same := slices.Equal(gatherAll(t, got.Root), gatherAll(t, want.Root)) &&
			slices.Equal(gatherAll(t, got.Residual), gatherAll(t, want.Residual)) &&
			slices.Equal(got.Iterations, want.Iterations) && slices.Equal(got.Converged, want.Converged) &&
			got.NumConverged == tc.n && got.NumConverged == want.NumConverged && got.MaxIterations == want.MaxIterations &&
			got.Method == want.Method
		mpitest.Check(t, world, same, "n=%d halley=%v: NewtonDistFDF differs from NewtonDist", tc.n, tc.halley)
		for _, r := range []*DistNewtonResult{got, want} {
			r.Root.Free()
			r.Residual.Free()
		}
		x0.Free()
	}
}
