//go:build petsc

package petsc

import (
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// BenchmarkShellMult is one multiplication by W4's shell Laplacian at
// 1024 x 1024 (per rank count: the block copy, the ghost-row exchange, the
// stencil), through MatMult.
func BenchmarkShellMult(b *testing.B) {
	c := mpitest.World(b)
	const n = 1024
	l := dist.NewLayout([]int{n, n}, 0, c.Size())
	h, err := dist.New[float64](c, l, dist.Ghosts(1))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Free()
	a, err := NewShell(c, l, Laplacian5(h))
	if err != nil {
		b.Fatal(err)
	}
	defer a.Destroy()
	x, y, err := a.CreateVecs()
	if err != nil {
		b.Fatal(err)
	}
	defer x.Destroy()
	defer y.Destroy()
	if err := x.Set(1); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(16 * l.LocalLen(c.Rank())))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Mult(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVecOps is one CG iteration's vector work in PETSc at 1024 x
// 1024: two dots and three AXPY-like updates.
func BenchmarkVecOps(b *testing.B) {
	c := mpitest.World(b)
	l := dist.NewLayout([]int{1024, 1024}, 0, c.Size())
	x, err := CreateVec(c, l)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Destroy()
	y, err := x.Duplicate()
	if err != nil {
		b.Fatal(err)
	}
	defer y.Destroy()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Dot(y)
		y.Dot(y)
		x.AXPY(0.5, y)
		y.AXPY(0.5, x)
		x.AXPY(0.5, y)
	}
}
