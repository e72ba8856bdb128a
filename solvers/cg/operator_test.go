package cg

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestChecksumsUnchanged pins the results of `xpmpi run cg` before Solve
// went through CG: the same iteration counts and the same bits of the
// checksum at each rank count (the ranks' partial sums round differently
// from one rank count to another).
func TestChecksumsUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("two solves of 114 iterations: the full suite runs it")
	}
	c := mpitest.World(t)
	want := map[bool]map[int]float64{
		false: {1: 518864.4785437784, 2: 518864.47854378255, 3: 518864.47854377306, 4: 518864.47854377964},
		// The fused solve's dots add in kernels/fuse's order (16 lanes per
		// chunk since the AVX2 kernels; before, 4 lanes gave 1: ...78447,
		// 2: ...7818, 3: ...7841, 4: ...7776).
		true: {1: 518864.47854377696, 2: 518864.4785437758, 3: 518864.47854378272, 4: 518864.47854378441},
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
