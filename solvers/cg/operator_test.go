package cg

import (
	"errors"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestChecksumsUnchanged pins the results of `xpmpi run cg` before Solve
// went through CG: the same iteration counts and the same bits of the
// checksum at each rank count (the ranks' partial dots round differently
// from one rank count to another, and so do the iterates). The checksum
// is dist.SumRepro of x since Config.Reproducible came; with dist.Sum it
// was, plain, 1: ...7842, 2: ...78255, 3: ...77306, 4: ...77964 and,
// fused, 1: ...78179, 2: ...7836, 3: ...78342, 4: ...78656. The plain
// solve's dots add in the CPU backend's 32 lanes since 2026-12-06; with
// gonum's SSE2 dot they gave 1: ...77836, 2: ...78249, 3: ...77294,
// 4: ...77964.
func TestChecksumsUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("two solves of 114 iterations: the full suite runs it")
	}
	c := mpitest.World(t)
	want := map[bool]map[int]float64{
		false: {1: 518864.47854378022, 2: 518864.47854377382, 3: 518864.47854378016, 4: 518864.47854378185},
		// The fused solve's r.r adds in kernels/fuse's order, its p.Ap in
		// backend.StencilDots' (rows of 16 lanes; since Solve's fused
		// iterations take PoissonDot: with fuse's p.Ap, 16 lanes per
		// chunk gave 1: ...77696, 2: ...7758, 3: ...78272, 4: ...78441;
		// 4 lanes before the AVX2 kernels 1: ...78447, 2: ...7818,
		// 3: ...7841, 4: ...7776).
		true: {1: 518864.47854378202, 2: 518864.4785437836, 3: 518864.47854378342, 4: 518864.47854378651},
	}
	for _, fused := range []bool{false, true} {
		res, err := Solve(c, Config{N: 61, Tol: 1e-8, Fused: fused})
		if err != nil {
			t.Fatal(err)
		}
		w, ok := want[fused][c.Size()]
		if res.Iters != 114 || (ok && res.Checksum != w) {
			t.Errorf("fused %v on %d ranks: %d iterations, checksum %.17g; want 114 and %.17g", fused, c.Size(), res.Iters, res.Checksum, w)
		}
	}
}

// tridiag is the 1-D operator (A u)_i = d_i u_i - u_{i-1} - u_{i+1} with
// u = 0 outside [0, n), d_i = 2 + i%3: symmetric positive definite, with a
// diagonal that a Jacobi preconditioner helps with.
func tridiag(d *dist.Array[float64]) Operator {
	return func(dst, src *dist.Array[float64]) error {
		if err := src.Exchange(); err != nil {
			return err
		}
		return dist.ApplyStencil(dst, src, 1, func(dv, sv *backend.Array[float64], rows, cols int) error {
			dd, s, out := d.LocalData(), sv.Data(), dv.Data()
			for i := 1; i < rows-1; i++ {
				out[i] = dd[i-1]*s[i] - s[i-1] - s[i+1]
			}
			return nil
		})
	}
}

// TestCGOperator solves a 1-D problem with a user operator, with and
// without a Jacobi preconditioner, against the solution it was made from,
// at every rank count, with blocks of uneven sizes and empty blocks.
func TestCGOperator(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{1, 2, 7, 50} {
		if testing.Short() && n > 7 {
			continue
		}
		opts := []dist.Option{dist.Ghosts(1)}
		diag := func(idx []int) float64 { return float64(2 + idx[0]%3) }
		xstar := func(i int) float64 { return math.Sin(float64(i)) + 0.5 }
		at := func(i int) float64 {
			if i < 0 || i >= n {
				return 0
			}
			return xstar(i)
		}
		d, _ := dist.FromFunc(c, []int{n}, diag, opts...)
		b, _ := dist.FromFunc(c, []int{n}, func(idx []int) float64 {
			i := idx[0]
			return diag(idx)*at(i) - at(i-1) - at(i+1)
		}, opts...)
		jacobi := func(dst, src *dist.Array[float64]) error {
			dist.Div(dst, src, d)
			return nil
		}
		for _, pre := range []Operator{nil, jacobi} {
			x, _ := dist.ZerosLike(b)
			st, err := CG(tridiag(d), b, x, Options{Tol: 1e-12, Precond: pre})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := dist.Allgather(x)
			maxErr := 0.0
			for i, v := range got {
				maxErr = math.Max(maxErr, math.Abs(v-xstar(i)))
			}
			if !st.Converged || maxErr > 1e-10 || st.Iters > n || len(st.History) != st.Iters+1 ||
				st.History[0] != 1 || st.History[st.Iters] != st.RelRes {
				t.Errorf("n=%d precond %v: %+v, max error %g", n, pre != nil, st, maxErr)
			}
			x.Free()
		}
		// b = 0: x = 0 at once.
		x, _ := dist.Full(c, []int{n}, 3.0, opts...)
		dist.Fill(b, 0)
		st, err := CG(tridiag(d), b, x, Options{Tol: 1e-12})
		if s, _ := dist.Norm(x); err != nil || !st.Converged || st.Iters != 0 || s != 0 {
			t.Errorf("n=%d, b = 0: %+v, %v, |x| %g", n, st, err, s)
		}
	}
}

// TestCGDiagonalPrecond: with the exact inverse as preconditioner, CG ends
// after one iteration.
func TestCGDiagonalPrecond(t *testing.T) {
	c := mpitest.World(t)
	d, _ := dist.FromFunc(c, []int{9, 2}, func(idx []int) float64 { return float64(1 + idx[0] + idx[1]) })
	b, _ := dist.Full(c, []int{9, 2}, 1.0)
	x, _ := dist.ZerosLike(b)
	a := func(dst, src *dist.Array[float64]) error { dist.Mul(dst, d, src); return nil }
	m := func(dst, src *dist.Array[float64]) error { dist.Div(dst, src, d); return nil }
	st, err := CG(a, b, x, Options{Tol: 1e-14, Precond: m})
	if err != nil || st.Iters != 1 || !st.Converged {
		t.Fatalf("%+v, %v", st, err)
	}
	got, _ := dist.Allgather(x)
	for i, v := range got {
		if want := 1 / float64(1+i/2+i%2); math.Abs(v-want) > 1e-15 {
			t.Errorf("x[%d] = %v, want %v", i, v, want)
		}
	}
}

// tridiagDot is tridiag with this rank's src.dst (OperatorDot), summed
// over the block in the stencil's loop.
func tridiagDot(d *dist.Array[float64], calls *int) OperatorDot {
	return func(dst, src *dist.Array[float64]) (float64, error) {
		*calls++
		if err := src.Exchange(); err != nil {
			return 0, err
		}
		dot := 0.0
		err := dist.ApplyStencil(dst, src, 1, func(dv, sv *backend.Array[float64], rows, cols int) error {
			dd, s, out := d.LocalData(), sv.Data(), dv.Data()
			for i := 1; i < rows-1; i++ {
				out[i] = dd[i-1]*s[i] - s[i-1] - s[i+1]
				dot += s[i] * out[i]
			}
			return nil
		})
		return dot, err
	}
}

// TestCGOperatorDot: the fused iterations with an OperatorDot (a user's
// 1-D operator, and PoissonDot) solve the problem, call it once per
// iteration and the plain operator only for the first residual, and
// agree with the fused iterations without it to the rounding of p.Ap's
// two orders of summation; an OperatorDot's error is CG's. At every rank
// count, with uneven and empty blocks.
func TestCGOperatorDot(t *testing.T) {
	c := mpitest.World(t)
	opts := []dist.Option{dist.Ghosts(1)}
	for _, n := range []int{1, 2, 7, 50} {
		diag := func(idx []int) float64 { return float64(2 + idx[0]%3) }
		xstar := func(i int) float64 { return math.Cos(float64(i)) + 0.25 }
		at := func(i int) float64 {
			if i < 0 || i >= n {
				return 0
			}
			return xstar(i)
		}
		d, _ := dist.FromFunc(c, []int{n}, diag, opts...)
		b, _ := dist.FromFunc(c, []int{n}, func(idx []int) float64 {
			i := idx[0]
			return diag(idx)*at(i) - at(i-1) - at(i+1)
		}, opts...)
		x, _ := dist.ZerosLike(b)
		calls := 0
		st, err := CG(tridiag(d), b, x, Options{Tol: 1e-12, Fused: true, OperatorDot: tridiagDot(d, &calls)})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := dist.Allgather(x)
		maxErr := 0.0
		for i, v := range got {
			maxErr = math.Max(maxErr, math.Abs(v-xstar(i)))
		}
		if !st.Converged || maxErr > 1e-10 || calls != st.Iters || len(st.History) != st.Iters+1 {
			t.Errorf("n=%d: %+v, %d OperatorDot calls, max error %g", n, st, calls, maxErr)
		}
		x.Free()
		b.Free()
		d.Free()
	}

	// PoissonDot against Poisson with fuse's pass for p.Ap, on Solve's
	// problem.
	for _, n := range []int{3, 22, 37} {
		b, _ := dist.FromFunc(c, []int{n, n + 2}, func(idx []int) float64 {
			if idx[1] == 0 || idx[1] == n+1 {
				return 0
			}
			return 1
		}, opts...)
		var sts [2]Stats
		var sums [2]float64
		for k, ad := range []OperatorDot{nil, PoissonDot()} {
			x, _ := dist.ZerosLike(b)
			plain := 0
			a := func(dst, src *dist.Array[float64]) error { plain++; return Poisson()(dst, src) }
			var err error
			if sts[k], err = CG(a, b, x, Options{Tol: 1e-10, Fused: true, OperatorDot: ad}); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: sts[k].Iters + 1, false: 1}[ad == nil]; plain != want {
				t.Errorf("n=%d, OperatorDot %v: %d calls of the operator, want %d", n, ad != nil, plain, want)
			}
			sums[k], _ = dist.Sum(x)
			x.Free()
		}
		if !sts[1].Converged || abs(sts[0].Iters-sts[1].Iters) > 1 || math.Abs(sums[0]-sums[1]) > 1e-9*math.Abs(sums[0]) {
			t.Errorf("n=%d: with PoissonDot %+v (sum %v), without %+v (sum %v)", n, sts[1], sums[1], sts[0], sums[0])
		}
		for i := range min(len(sts[0].History), len(sts[1].History), 10) {
			// (Where CG ends exactly, the last residuals are rounding noise.)
			if h0, h1 := sts[0].History[i], sts[1].History[i]; h0 > 1e-8 && math.Abs(h0-h1) > 1e-10*h0 {
				t.Errorf("n=%d: residual %d: %v with PoissonDot, %v without", n, i, h1, h0)
			}
		}
		b.Free()
	}

	// An OperatorDot's error is returned, the same on every rank.
	b, _ := dist.Full(c, []int{9, 11}, 1.0, opts...)
	x, _ := dist.ZerosLike(b)
	boom := errors.New("boom")
	_, err := CG(Poisson(), b, x, Options{Fused: true, OperatorDot: func(dst, src *dist.Array[float64]) (float64, error) { return 0, boom }})
	if !errors.Is(err, boom) {
		t.Errorf("CG with a failing OperatorDot: %v", err)
	}
}
