//go:build petsc

package petsc_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/petsc"
)

// A Vec over a distributed array shares its memory: PETSc's VecScale
// changes the array, and dist sees it. (The test binary has started MPI
// and PETSc; a program would run this inside petsc.Main.)
func Example() {
	world := mpi.World()
	a, err := dist.Full(world, []int{10}, 2.0)
	if err != nil {
		panic(err)
	}
	defer a.Free() // after v.Destroy: deferred calls run last-in first-out
	v, err := petsc.NewVec(a)
	if err != nil {
		panic(err)
	}
	defer v.Destroy()
	norm, _ := v.Norm(petsc.Norm1)
	fmt.Println("1-norm:", norm)
	_ = v.Scale(0.5)
	sum, _ := dist.Sum(a)
	fmt.Println("sum of the array after VecScale(0.5):", sum)
	// Output:
	// 1-norm: 20
	// sum of the array after VecScale(0.5): 10
}

// A KSP solves the 1-D Laplacian (2u[i] - u[i-1] - u[i+1]) of 40 unknowns,
// given as a Go function over dist arrays, by CG chosen from options. The
// neighbours across block edges come by dist's halo exchange.
func ExampleKSP_Solve() {
	world := mpi.World()
	const n = 40
	l := dist.NewLayout([]int{n}, 0, world.Size())
	halo, err := dist.New[float64](world, l, dist.Ghosts(1))
	if err != nil {
		panic(err)
	}
	defer halo.Free()
	a, err := petsc.NewShell(world, l, func(x, y *dist.Array[float64]) error {
		dist.Copy(halo, x)
		if err := halo.Exchange(); err != nil {
			return err
		}
		g := halo.Ghosted().Data() // x's block between two ghosts (0 beyond the ends)
		for i, yd := 0, y.LocalData(); i < len(yd); i++ {
			yd[i] = 2*g[i+1] - g[i] - g[i+2]
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	defer a.Destroy()
	x, b, err := a.CreateVecs()
	if err != nil {
		panic(err)
	}
	defer x.Destroy()
	defer b.Destroy()
	_ = b.Set(1)

	_ = petsc.SetOptions("-ex_ksp_type cg -ex_pc_type none -ex_ksp_rtol 1e-10")
	k, err := petsc.NewKSP(world)
	if err != nil {
		panic(err)
	}
	defer k.Destroy()
	_ = k.SetOperators(a, nil)
	_ = k.SetOptionsPrefix("ex_")
	_ = k.SetFromOptions()
	res, err := k.Solve(b, x)
	if err != nil {
		panic(err)
	}
	// The exact solution is u[i] = (i+1)(n-i)/2: its middle value is 210.
	mid, _ := dist.Max(x.Array())
	// (CG is exact after n/2 = 20 iterations here: the residual is then
	// below the relative tolerance, or exactly zero, depending on rounding:
	// CONVERGED_RTOL or CONVERGED_ATOL.)
	fmt.Printf("converged %v after %d iterations; max u = %.6f\n", res.Reason.Converged(), res.Iterations, mid)
	// Output:
	// converged true after 20 iterations; max u = 210.000000
}
