package dist_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// freedOutcome runs f and returns its error, or the error value it
// panicked with, or an error describing any other panic. A call that has
// not returned after a while is a hang: the test binary dies, naming it.
func freedOutcome(name string, f func() error) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				if e, ok := r.(error); ok {
					done <- e
					return
				}
				done <- fmt.Errorf("panic with a %T: %v", r, r)
			}
		}()
		done <- f()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		panic(fmt.Sprintf("%s of a freed array has not returned after 30 s: a hang", name))
	}
}

// freedOp is one exported operation of dist called with a freed array
// (f) where it takes one, and live arrays of f's layout (l) elsewhere.
type freedOp struct {
	name string
	call func(t *testing.T, f, l *dist.Array[float64]) error
}

// noErr adapts an operation that returns no error.
func noErr(f func()) error { f(); return nil }

// zeros returns a new array of the layout of like, of element type T.
func zerosAs[T backend.Numeric](t *testing.T, like *dist.Array[float64]) *dist.Array[T] {
	a, err := dist.New[T](like.Comm(), like.Layout(), dist.OnBackend(like.Local().Backend()))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// freedAs returns a freed array of element type T of like's layout.
func freedAs[T backend.Numeric](t *testing.T, like *dist.Array[float64]) *dist.Array[T] {
	a := zerosAs[T](t, like)
	a.Free()
	return a
}

// freedOps lists every exported function and method of dist that takes
// an array (go doc -all ./dist | grep '^func'), but the accessors that
// keep answering after Free (Comm, Layout, Shape, Len, LocalShape, Range,
// Device, String, Local, Ghosted, GhostedShape, Ghosts, IsPeriodic), the
// checkpoint functions (Entry, SaveCheckpoint: dist/checkpoint.go) and
// the constructors that take none.
func freedOps(dir string) []freedOp {
	x2 := func(f func(a, b *dist.Array[float64]) error) func(*testing.T, *dist.Array[float64], *dist.Array[float64]) error {
		return func(_ *testing.T, f1, l *dist.Array[float64]) error { return f(f1, l) }
	}
	type A = dist.Array[float64]
	ops := []freedOp{
		{"ZerosLike", x2(func(f, _ *A) error { _, err := dist.ZerosLike(f); return err })},
		{"Array.Copy", x2(func(f, _ *A) error { _, err := f.Copy(); return err })},
		{"Array.Synchronize", x2(func(f, _ *A) error { return f.Synchronize() })},
		{"Array.LocalData", x2(func(f, _ *A) error { return noErr(func() { f.LocalData() }) })},
		{"Array.Lend", x2(func(f, _ *A) error { return noErr(func() { f.Lend() }) })},
		{"Astype", x2(func(f, _ *A) error { _, err := dist.Astype[float32](f); return err })},
		{"Axpby", x2(func(f, l *A) error { return noErr(func() { dist.Axpby(1, l, 2, f) }) })},
		{"Broadcast", x2(func(f, l *A) error { return dist.Broadcast(backend.Add, l, f, l) })},
		{"Fill", x2(func(f, _ *A) error { return noErr(func() { dist.Fill(f, 1) }) })},
		{"Copy", x2(func(f, l *A) error { return noErr(func() { dist.Copy(l, f) }) })},
		{"Scale", x2(func(f, _ *A) error { return noErr(func() { dist.Scale(2, f) }) })},
		{"Axpy", x2(func(f, l *A) error { return noErr(func() { dist.Axpy(2, f, l) }) })},
		{"Add", x2(func(f, l *A) error { return noErr(func() { dist.Add(l, l, f) }) })},
		{"Sub", x2(func(f, l *A) error { return noErr(func() { dist.Sub(f, l, l) }) })},
		{"Mul", x2(func(f, l *A) error { return noErr(func() { dist.Mul(l, f, l) }) })},
		{"Div", x2(func(f, l *A) error { return noErr(func() { dist.Div(l, f, l) }) })},
		{"AddScalar", x2(func(f, l *A) error { return noErr(func() { dist.AddScalar(l, f, 1) }) })},
		{"SubScalar", x2(func(f, l *A) error { return noErr(func() { dist.SubScalar(f, l, 1) }) })},
		{"MulScalar", x2(func(f, l *A) error { return noErr(func() { dist.MulScalar(l, f, 1) }) })},
		{"DivScalar", x2(func(f, l *A) error { return noErr(func() { dist.DivScalar(l, f, 1) }) })},
		{"Map", x2(func(f, _ *A) error { return dist.Map(f, func(v float64) float64 { return v }) })},
		{"MapIndex", x2(func(f, _ *A) error {
			return dist.MapIndex(f, func(_ []int, v float64) float64 { return v })
		})},
		{"SumExact", x2(func(f, _ *A) error { _, err := dist.SumExact(f); return err })},
		{"DotExact", x2(func(f, l *A) error { _, err := dist.DotExact(l, f); return err })},
		{"NormExact", x2(func(f, _ *A) error { _, err := dist.NormExact(f); return err })},
		{"SumRepro", x2(func(f, _ *A) error { _, err := dist.SumRepro(f); return err })},
		{"DotRepro", x2(func(f, l *A) error { _, err := dist.DotRepro(f, l); return err })},
		{"NormRepro", x2(func(f, _ *A) error { _, err := dist.NormRepro(f); return err })},
		{"Gather", x2(func(f, _ *A) error { _, err := dist.Gather(f, 0); return err })},
		{"Allgather", x2(func(f, _ *A) error { _, err := dist.Allgather(f); return err })},
		{"Get", x2(func(f, _ *A) error { _, err := dist.Get(f, 0, 0); return err })},
		{"Set", x2(func(f, _ *A) error { return dist.Set(f, 1, -1, -1) })},
		{"Array.Exchange", x2(func(f, _ *A) error { return f.Exchange() })},
		{"Array.Start", x2(func(f, _ *A) error { return f.Start() })},
		{"Array.Finish", x2(func(f, _ *A) error { return f.Finish() })},
		{"FillBoundary", x2(func(f, _ *A) error { return noErr(func() { dist.FillBoundary(f, 0, 0) }) })},
		{"HaloOf", x2(func(f, _ *A) error { _, err := dist.HaloOf(f, 1); return err })},
		{"Halo.CopyFrom", func(t *testing.T, f, l *A) error {
			h, err := dist.NewHalo[float64](l.Comm(), dist.NewLayout(l.Shape(), 0, l.Comm().Size()), 1, dist.OnBackend(l.Local().Backend()))
			if err != nil {
				t.Fatal(err)
			}
			defer h.Free()
			return noErr(func() { h.CopyFrom(f) })
		}},
		{"Halo.CopyTo", func(t *testing.T, f, l *A) error {
			h, err := dist.NewHalo[float64](l.Comm(), dist.NewLayout(l.Shape(), 0, l.Comm().Size()), 1, dist.OnBackend(l.Local().Backend()))
			if err != nil {
				t.Fatal(err)
			}
			defer h.Free()
			return noErr(func() { h.CopyTo(f) })
		}},
		{"Less", x2(func(f, l *A) error { _, err := dist.Less(l, f); return err })},
		{"LessEqual", x2(func(f, l *A) error { _, err := dist.LessEqual(f, l); return err })},
		{"Greater", x2(func(f, l *A) error { _, err := dist.Greater(f, l); return err })},
		{"GreaterEqual", x2(func(f, l *A) error { _, err := dist.GreaterEqual(l, f); return err })},
		{"Equal", x2(func(f, l *A) error { _, err := dist.Equal(f, l); return err })},
		{"NotEqual", x2(func(f, l *A) error { _, err := dist.NotEqual(f, l); return err })},
		{"LessScalar", x2(func(f, _ *A) error { _, err := dist.LessScalar(f, 0); return err })},
		{"LessEqualScalar", x2(func(f, _ *A) error { _, err := dist.LessEqualScalar(f, 0); return err })},
		{"GreaterScalar", x2(func(f, _ *A) error { _, err := dist.GreaterScalar(f, 0); return err })},
		{"GreaterEqualScalar", x2(func(f, _ *A) error { _, err := dist.GreaterEqualScalar(f, 0); return err })},
		{"EqualScalar", x2(func(f, _ *A) error { _, err := dist.EqualScalar(f, 0); return err })},
		{"NotEqualScalar", x2(func(f, _ *A) error { _, err := dist.NotEqualScalar(f, 0); return err })},
		{"Where", func(t *testing.T, f, l *A) error {
			m := zerosAs[uint8](t, l)
			defer m.Free()
			return dist.Where(l, m, f, l)
		}},
		{"Where (freed mask)", func(t *testing.T, _, l *A) error {
			return dist.Where(l, freedAs[uint8](t, l), l, l)
		}},
		{"Compact", func(t *testing.T, f, l *A) error {
			m := zerosAs[uint8](t, l)
			defer m.Free()
			_, err := dist.Compact(f, m)
			return err
		}},
		{"Compact (freed mask)", func(t *testing.T, _, l *A) error {
			_, err := dist.Compact(l, freedAs[uint8](t, l))
			return err
		}},
		{"Exp", x2(func(f, l *A) error { return dist.Exp(l, f) })},
		{"Log", x2(func(f, l *A) error { return dist.Log(f, l) })},
		{"Sqrt", x2(func(f, l *A) error { return dist.Sqrt(l, f) })},
		{"Sin", x2(func(f, l *A) error { return dist.Sin(l, f) })},
		{"Cos", x2(func(f, l *A) error { return dist.Cos(f, l) })},
		{"Tanh", x2(func(f, l *A) error { return dist.Tanh(l, f) })},
		{"Floor", x2(func(f, l *A) error { return dist.Floor(l, f) })},
		{"Abs", x2(func(f, l *A) error { return dist.Abs(l, f) })},
		{"Pow", x2(func(f, l *A) error { return dist.Pow(l, l, f) })},
		{"PowScalar", x2(func(f, l *A) error { return dist.PowScalar(l, f, 2) })},
		{"Clip", x2(func(f, l *A) error { return dist.Clip(l, f, 0, 1) })},
		{"MatMul", x2(func(f, l *A) error { _, err := dist.MatMul(f, l); return err })},
		{"MatMulWithOptions", x2(func(f, l *A) error { _, err := dist.MatMulWithOptions(l, f, dist.MatMulOptions{}); return err })},
		{"MatMulInto", x2(func(f, l *A) error { return dist.MatMulInto(f, l, l) })},
		{"MatMulIntoWithOptions", x2(func(f, l *A) error { return dist.MatMulIntoWithOptions(l, f, l, dist.MatMulOptions{}) })},
		{"MatVec", x2(func(f, l *A) error { _, err := dist.MatVec(f, l); return err })},
		{"Save", x2(func(f, _ *A) error { return dist.Save(f, filepath.Join(dir, "freed.npy")) })},
		{"LoadInto", x2(func(f, _ *A) error { return dist.LoadInto(f, filepath.Join(dir, "freed.npy")) })},
		{"SaveCheckpoint", x2(func(f, l *A) (err error) {
			// It returns an error: a panic, even one wrapping ErrFreed,
			// fails (it came from a read of the freed block, after the
			// collective calls had begun).
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("SaveCheckpoint panicked: %v", r)
				}
			}()
			return dist.SaveCheckpoint(f.Comm(), filepath.Join(dir, "freed.ckpt"), 1, nil, dist.Entry("live", l), dist.Entry("freed", f))
		})},
		{"Redistribute", x2(func(f, _ *A) error {
			_, err := dist.Redistribute(f, dist.NewLayout(f.Shape(), dist.Replicated, f.Comm().Size()))
			return err
		})},
		{"Resplit", x2(func(f, _ *A) error { _, err := dist.Resplit(f, 1); return err })},
		{"Sum", x2(func(f, _ *A) error { _, err := dist.Sum(f); return err })},
		{"Dot", x2(func(f, l *A) error { _, err := dist.Dot(l, f); return err })},
		{"Norm", x2(func(f, _ *A) error { _, err := dist.Norm(f); return err })},
		{"Argmin", x2(func(f, _ *A) error { _, err := dist.Argmin(f); return err })},
		{"Argmax", x2(func(f, _ *A) error { _, err := dist.Argmax(f); return err })},
		{"Min", x2(func(f, _ *A) error { _, err := dist.Min(f); return err })},
		{"Max", x2(func(f, _ *A) error { _, err := dist.Max(f); return err })},
		{"SumAxis", x2(func(f, _ *A) error { _, err := dist.SumAxis(f, -1); return err })},
		{"NormAxis", x2(func(f, _ *A) error { _, err := dist.NormAxis(f, 0); return err })},
		{"DotAxis", x2(func(f, l *A) error { _, err := dist.DotAxis(l, f, 0); return err })},
		{"ProdAxis", x2(func(f, _ *A) error { _, err := dist.ProdAxis(f, 1); return err })},
		{"MinAxis", x2(func(f, _ *A) error { _, err := dist.MinAxis(f, 0); return err })},
		{"MaxAxis", x2(func(f, _ *A) error { _, err := dist.MaxAxis(f, 0); return err })},
		{"ArgminAxis", x2(func(f, _ *A) error { _, err := dist.ArgminAxis(f, 1); return err })},
		{"ArgmaxAxis", x2(func(f, _ *A) error { _, err := dist.ArgmaxAxis(f, 1); return err })},
		{"Reshape", x2(func(f, _ *A) error { _, err := dist.Reshape(f, -1); return err })},
		{"Transpose", x2(func(f, _ *A) error { _, err := dist.Transpose(f); return err })},
		{"Cumsum", x2(func(f, _ *A) error { _, err := dist.Cumsum(f, 0); return err })},
		{"Cumprod", x2(func(f, _ *A) error { _, err := dist.Cumprod(f, -1); return err })},
		{"Slice", x2(func(f, _ *A) error { _, err := dist.Slice(f, dist.AllIndices()); return err })},
		{"SetSlice", x2(func(f, l *A) error { return dist.SetSlice(l, []dist.Range{dist.AllIndices()}, f) })},
		{"SetSliceScalar", x2(func(f, _ *A) error {
			return noErr(func() { dist.SetSliceScalar(f, []dist.Range{dist.AllIndices()}, 1) })
		})},
		{"Sort", x2(func(f, _ *A) error { _, err := dist.Sort(f); return err })},
		{"SortWithIndex", x2(func(f, _ *A) error { _, _, err := dist.SortWithIndex(f); return err })},
		{"SortInto", x2(func(f, l *A) error { _, err := dist.SortInto(f, l); return err })},
		{"SortWithOptions", x2(func(f, _ *A) error { _, err := dist.SortWithOptions(f, dist.SortOptions{}); return err })},
		{"Mean", x2(func(f, _ *A) error { _, err := dist.Mean(f); return err })},
		{"Var", x2(func(f, _ *A) error { _, err := dist.Var(f, 0); return err })},
		{"Std", x2(func(f, _ *A) error { _, err := dist.Std(f, 1); return err })},
		{"Prod", x2(func(f, _ *A) error { _, err := dist.Prod(f); return err })},
		{"Any", x2(func(f, _ *A) error { _, err := dist.Any(f); return err })},
		{"All", x2(func(f, _ *A) error { _, err := dist.All(f); return err })},
		{"Histogram", x2(func(f, _ *A) error { _, _, err := dist.Histogram(f, 2, 0, 1); return err })},
		{"HistogramAuto", x2(func(f, _ *A) error { _, _, err := dist.HistogramAuto(f, 2); return err })},
		{"MeanAxis", x2(func(f, _ *A) error { _, err := dist.MeanAxis(f, 0); return err })},
		{"VarAxis", x2(func(f, _ *A) error { _, err := dist.VarAxis(f, 1, 0); return err })},
		{"StdAxis", x2(func(f, _ *A) error { _, err := dist.StdAxis(f, -2, 0); return err })},
		{"Jacobi5", x2(func(f, l *A) error { return noErr(func() { dist.Jacobi5(l, f) }) })},
		{"Laplace5", x2(func(f, l *A) error { return noErr(func() { dist.Laplace5(f, l) }) })},
		{"Laplace5Dot", x2(func(f, l *A) error { return noErr(func() { dist.Laplace5Dot(l, f) }) })},
		{"Stencil9", x2(func(f, l *A) error { return dist.Stencil9(l, f, [3][3]float64{}) })},
		{"Stencil7", x2(func(f, l *A) error { return dist.Stencil7(f, l, [7]float64{}) })},
		{"ApplyStencil", x2(func(f, l *A) error {
			return dist.ApplyStencil(l, f, 1, func(_, _ *backend.Array[float64], _, _ int) error { return nil })
		})},
		{"Concatenate", x2(func(f, l *A) error { _, err := dist.Concatenate(-1, l, f); return err })},
		{"FromLocal", x2(func(f, _ *A) error {
			return noErr(func() { dist.FromLocal(f.Comm(), f.Layout(), f.Local()) })
		})},
		{"RunFused", x2(func(f, l *A) error {
			k := fuse.MustCompile(fuse.Sum("s", fuse.Var[float64]("x")))
			_, err := dist.RunFused(k, fuse.Args{"x": f})
			return err
		})},
		// The complex operations, on a freed complex128 array.
		{"Conj", func(t *testing.T, _, l *A) error {
			d := zerosAs[complex128](t, l)
			defer d.Free()
			return dist.Conj(d, freedAs[complex128](t, l))
		}},
		{"Real", func(t *testing.T, _, l *A) error { _, err := dist.Real[float64](freedAs[complex128](t, l)); return err }},
		{"Imag", func(t *testing.T, _, l *A) error { _, err := dist.Imag[float64](freedAs[complex128](t, l)); return err }},
		{"AbsComplex", func(t *testing.T, _, l *A) error {
			_, err := dist.AbsComplex[float64](freedAs[complex128](t, l))
			return err
		}},
		{"Angle", func(t *testing.T, _, l *A) error {
			_, err := dist.Angle[float64](freedAs[complex128](t, l))
			return err
		}},
		{"Vdot", func(t *testing.T, _, l *A) error {
			c := zerosAs[complex128](t, l)
			defer c.Free()
			_, err := dist.Vdot(c, freedAs[complex128](t, l))
			return err
		}},
		{"ProdComplex", func(t *testing.T, _, l *A) error { _, err := dist.ProdComplex(freedAs[complex128](t, l)); return err }},
		{"MeanComplex", func(t *testing.T, _, l *A) error { _, err := dist.MeanComplex(freedAs[complex128](t, l)); return err }},
		{"MeanAxisComplex", func(t *testing.T, _, l *A) error {
			_, err := dist.MeanAxisComplex(freedAs[complex128](t, l), -1)
			return err
		}},
		{"NormAxisComplex", func(t *testing.T, _, l *A) error {
			_, err := dist.NormAxisComplex[float64](freedAs[complex128](t, l), 0)
			return err
		}},
	}
	return ops
}

// TestFreed calls every exported operation of dist with a freed array on
// every rank, on several layouts (row blocks, uneven blocks with empty
// ranks, a process grid, a ghosted array) and on the CPU and the fake
// device: each must fail at once, with an error that wraps ErrFreed and
// names the operation (or a panic with such an error for one that returns
// none), never hang, die of a Go runtime error or return a value.
func TestFreed(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	p := c.Size()
	last := make([]int, p)
	last[p-1] = 5
	layouts := []struct {
		name string
		opts []dist.Option
	}{
		{"rows", nil},
		{"last rank", []dist.Option{dist.BlockSizes(last)}},
		{"grid", []dist.Option{dist.ProcessGrid(0, 0)}},
		{"ghosted", []dist.Option{dist.Ghosts(1)}},
	}
	backends := []backend.Backend{backend.Current(), fakedev.Default}
	if testing.Short() {
		layouts, backends = layouts[2:], backends[1:] // grid and ghosted, on the fake device
	}
	checking := []bool{false}
	if !testing.Short() {
		checking = append(checking, true) // every rank freed: the check agrees, then ErrFreed
	}
	ops := freedOps(dir)
	var e errs
	for _, chk := range checking {
		prev := mpi.SetChecking(chk)
		for _, bk := range backends {
			for _, lc := range layouts {
				for _, op := range ops {
					name := fmt.Sprintf("%s on %s %s checking %v", op.name, bk.Name(), lc.name, chk)
					opts := append([]dist.Option{dist.OnBackend(bk)}, lc.opts...)
					f, err := dist.Zeros[float64](c, []int{5, 3}, opts...)
					if err != nil {
						t.Fatal(err)
					}
					l, err := dist.Zeros[float64](c, []int{5, 3}, opts...)
					if err != nil {
						t.Fatal(err)
					}
					f.Free()
					f.Free() // a second Free does nothing
					err = freedOutcome(name, func() error { return op.call(t, f, l) })
					l.Free()
					if !errors.Is(err, dist.ErrFreed) || !errors.Is(err, backend.ErrFreed) {
						e.add("%s: %v, want an error wrapping ErrFreed", name, err)
					} else if !strings.Contains(err.Error(), "of a freed array") {
						e.add("%s: %q does not say the array was freed", name, err)
					}
				}
			}
		}
		mpi.SetChecking(prev)
	}
	e.check(t, c, "operations on freed arrays")
	if c.Rank() == 0 {
		t.Logf("%d operations on %d layouts and %d backends", len(ops), len(layouts), len(backends))
	}
	_ = os.Remove(filepath.Join(dir, "freed.npy"))
}

// TestFreedOnSomeRanks checks what the checking mode makes of an array
// freed on rank 0 only and used by every rank (a program error): every
// rank gets an error, rank 0's wrapping ErrFreed, the others' a
// *mpi.MismatchError, where without the checking mode the others would
// wait for rank 0 forever.
func TestFreedOnSomeRanks(t *testing.T) {
	c := mpitest.World(t)
	if c.Size() < 2 {
		t.Skip("needs 2 ranks")
	}
	defer mpi.SetChecking(mpi.SetChecking(true))
	for _, op := range []struct {
		name string
		f    func(x *dist.Array[float64]) error
	}{
		{"Sum", func(x *dist.Array[float64]) error { _, err := dist.Sum(x); return err }},
		{"Get", func(x *dist.Array[float64]) error { _, err := dist.Get(x, -1); return err }},
		{"Allgather", func(x *dist.Array[float64]) error { _, err := dist.Allgather(x); return err }},
		{"SumAxis", func(x *dist.Array[float64]) error { _, err := dist.SumAxis(x, 0); return err }},
	} {
		x, err := dist.Zeros[float64](c, []int{7})
		if err != nil {
			t.Fatal(err)
		}
		if c.Rank() == 0 {
			x.Free()
		}
		err = freedOutcome(op.name, func() error { return op.f(x) })
		var mm *mpi.MismatchError
		ok := errors.As(err, &mm) && (c.Rank() != 0 || errors.Is(err, dist.ErrFreed))
		mpitest.Check(t, c, ok, "%s of an array freed on rank 0 only, in checking mode: %v", op.name, err)
		x.Free()
	}
}

// TestHaloFreed checks a Halo after its Free: freeing it again does
// nothing, and every use fails with an error wrapping ErrFreed.
func TestHaloFreed(t *testing.T) {
	c := mpitest.World(t)
	l := dist.NewLayout([]int{6, 4}, 0, c.Size())
	x, err := dist.Zeros[float64](c, []int{6, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	live, err := dist.NewHalo[float64](c, l, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Free()
	for _, op := range []struct {
		name string
		f    func(h *dist.Halo[float64]) error
	}{
		{"Start", func(h *dist.Halo[float64]) error { return h.Start() }},
		{"Finish", func(h *dist.Halo[float64]) error { return h.Finish() }},
		{"Exchange", func(h *dist.Halo[float64]) error { return h.Exchange() }},
		{"CopyFrom", func(h *dist.Halo[float64]) error { return noErr(func() { h.CopyFrom(x) }) }},
		{"CopyTo", func(h *dist.Halo[float64]) error { return noErr(func() { h.CopyTo(x) }) }},
		{"Swap", func(h *dist.Halo[float64]) error { return noErr(func() { live.Swap(h) }) }},
		{"Local", func(h *dist.Halo[float64]) error {
			return backend.CopyFromHostSlice(h.Local(), make([]float64, h.Local().Len()))
		}},
	} {
		h, err := dist.NewHalo[float64](c, l, 1)
		if err != nil {
			t.Fatal(err)
		}
		h.Free()
		h.Free()
		err = freedOutcome("Halo."+op.name, func() error { return op.f(h) })
		mpitest.Check(t, c, errors.Is(err, dist.ErrFreed), "Halo.%s of a freed Halo: %v, want an error wrapping ErrFreed", op.name, err)
	}
}
