package dist_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/rng"
	"github.com/xpmpi/xpmpi/staging"
)

// errFault is the driver's error of the faults the tests inject.
var errFault = errors.New("injected fault")

// TestDeviceFaultReductions injects a device fault on one rank (the fake
// device keeps it, as a GPU keeps a faulted kernel's error) before a
// reduction: every rank must return an error wrapping backend.ErrDevice,
// the faulting rank's wrapping the fault too, no rank may wait for
// another, and the next reduction must give the right value again.
func TestDeviceFaultReductions(t *testing.T) {
	c := mpitest.World(t)
	p, rank := c.Size(), c.Rank()
	ops := []struct {
		name string
		run  func(x *dist.Array[float64], z *dist.Array[complex128]) (float64, error)
		want func(n int) float64
	}{
		{"Sum", func(x *dist.Array[float64], _ *dist.Array[complex128]) (float64, error) { return dist.Sum(x) },
			func(n int) float64 { return float64(n * (n - 1) / 2) }},
		{"Dot", func(x *dist.Array[float64], _ *dist.Array[complex128]) (float64, error) { return dist.Dot(x, x) },
			func(n int) float64 { return float64((n - 1) * n * (2*n - 1) / 6) }},
		{"Norm", func(x *dist.Array[float64], _ *dist.Array[complex128]) (float64, error) {
			v, err := dist.Norm(x)
			return v * v, err
		}, func(n int) float64 { return float64((n - 1) * n * (2*n - 1) / 6) }},
		{"MeanComplex", func(_ *dist.Array[float64], z *dist.Array[complex128]) (float64, error) {
			v, err := dist.MeanComplex(z)
			return real(v) * float64(z.Len()), err
		}, func(n int) float64 { return float64(n * (n - 1) / 2) }},
	}
	for _, n := range []int{2, 2*p + 1} { // fewer elements than ranks, and uneven
		x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0]) }, dist.OnBackend(fakedev.Default))
		if err != nil {
			t.Fatal(err)
		}
		z, err := dist.FromFunc(c, []int{n}, func(idx []int) complex128 { return complex(float64(idx[0]), 1) }, dist.OnBackend(fakedev.Default))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			for _, bad := range []int{0, p - 1} {
				what := fmt.Sprintf("%s of %d elements, fault on rank %d", op.name, n, bad)
				if rank == bad {
					fakedev.Default.InjectFault(errFault)
				}
				_, err := op.run(x, z)
				ok := errors.Is(err, backend.ErrDevice) && (rank != bad || errors.Is(err, errFault))
				mpitest.Check(t, c, ok, "%s: rank %d returned %v; want an error wrapping backend.ErrDevice (and the fault on the faulting rank)", what, rank, err)
				v, err := op.run(x, z)
				mpitest.Check(t, c, err == nil && math.Abs(v-op.want(n)) <= 1e-12*op.want(n), "%s: the next call returned %v, %v; want %v", what, v, err, op.want(n))
			}
		}
		x.Free()
		z.Free()
	}
}

// faultOutcome is what an operation of TestDeviceFaultCollectives
// returns: a value, or an array (of float64 or int64) whose elements sum
// to it.
type faultOutcome struct {
	v  float64
	a  *dist.Array[float64]
	ia *dist.Array[int64]
}

// free releases the outcome's array.
func (o faultOutcome) free() {
	if o.a != nil {
		o.a.Free()
	}
	if o.ia != nil {
		o.ia.Free()
	}
}

// value returns the outcome's value (its array's sum, gathered), and
// frees its array.
func (o faultOutcome) value() (float64, error) {
	defer o.free()
	switch {
	case o.a != nil:
		all, err := dist.Allgather(o.a)
		var s float64
		for _, v := range all {
			s += v
		}
		return s, err
	case o.ia != nil:
		all, err := dist.Allgather(o.ia)
		var s float64
		for _, v := range all {
			s += float64(v)
		}
		return s, err
	}
	return o.v, nil
}

// TestDeviceFaultCollectives injects a device fault on one rank before
// each collective whose local step runs on the device (axis reductions,
// statistics, Min/Max and the Arg forms, the gathers, the order
// operations, the ghost exchange): no rank may wait for another (a
// watchdog ends the job otherwise), every rank must get an error wrapping
// backend.ErrDevice (the faulting rank's wrapping the fault too) from the
// operation itself, or, where the operation does not communicate an
// agreement (the ghost exchange, which must then succeed on every rank;
// Get, on ranks that hold no part of the element; the local steps at one
// rank), from the next call that does (Sum), and the next call of the
// operation must give the right value.
func TestDeviceFaultCollectives(t *testing.T) {
	c := mpitest.World(t)
	p, rank := c.Size(), c.Rank()
	stop, err := mpi.StartWatchdog(c, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	type op struct {
		name string
		now  bool // the operation itself reports a fault at more than one rank
		run  func(x, g *dist.Array[float64]) (faultOutcome, error)
		want func(n int) float64
	}
	sum := func(n int) float64 { return float64(n * (n + 1) / 2) }
	mean := func(n int) float64 { return float64(n+1) / 2 }
	variance := func(n int) float64 { return float64(n*n-1) / 12 }
	top := func(n int) float64 { return float64(n) }
	last := func(n int) float64 { return float64(n - 1) }
	iota := func(n int) float64 { return float64(n * (n - 1) / 2) }
	fact := func(n int) float64 {
		f := 1.0
		for i := 2; i <= n; i++ {
			f *= float64(i)
		}
		return f
	}
	val := func(v float64, err error) (faultOutcome, error) { return faultOutcome{v: v}, err }
	arr := func(a *dist.Array[float64], err error) (faultOutcome, error) { return faultOutcome{a: a}, err }
	iarr := func(a *dist.Array[int64], err error) (faultOutcome, error) { return faultOutcome{ia: a}, err }
	var z *dist.Array[complex128] // z[i] = i+1 + 1i
	sq := func(n int) float64 { return float64(n*(n+1)*(2*n+1)/6 + n) }
	ops := []op{
		// Complex reductions.
		{"Vdot", true, func(_, _ *dist.Array[float64]) (faultOutcome, error) {
			v, err := dist.Vdot(z, z)
			return val(real(v), err)
		}, sq},
		{"NormAxisComplex", true, func(_, _ *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.NormAxisComplex[float64](z, 0))
		}, func(n int) float64 { return math.Sqrt(sq(n)) }},
		// Axis reductions, along the split axis.
		{"SumAxis", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.SumAxis(x, 0)) }, sum},
		{"ProdAxis", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.ProdAxis(x, 0)) }, fact},
		{"MaxAxis", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.MaxAxis(x, 0)) }, top},
		{"ArgmaxAxis", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return iarr(dist.ArgmaxAxis(x, 0)) }, last},
		{"MeanAxis", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.MeanAxis(x, 0)) }, mean},
		{"VarAxis", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.VarAxis(x, 0, 0)) }, variance},
		{"Cumsum", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.Cumsum(x, 0)) },
			func(n int) float64 { return float64(n * (n + 1) * (n + 2) / 6) }},
		// Statistics.
		{"Mean", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return val(dist.Mean(x)) }, mean},
		{"Var", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return val(dist.Var(x, 0)) }, variance},
		{"Prod", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return val(dist.Prod(x)) }, fact},
		{"Any", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) {
			ok, err := dist.Any(x)
			return val(float64(b2f(ok)), err)
		}, func(int) float64 { return 1 }},
		{"Histogram", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) {
			counts, _, err := dist.Histogram(x, 3, 0, 100)
			var s int64
			for _, k := range counts {
				s += k
			}
			return val(float64(s), err)
		}, top},
		{"SumRepro", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return val(dist.SumRepro(x)) }, sum},
		// Min, Max and the Arg forms.
		{"Max", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return val(dist.Max(x)) }, top},
		{"Argmin", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) {
			i, err := dist.Argmin(x)
			return val(float64(i), err)
		}, func(int) float64 { return 0 }},
		// The gathers.
		{"Gather", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) {
			all, err := dist.Gather(x, 0)
			s := sum(x.Len())
			if rank == 0 {
				s = 0
				for _, v := range all {
					s += v
				}
			}
			return val(s, err)
		}, sum},
		{"Allgather", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) {
			all, err := dist.Allgather(x)
			var s float64
			for _, v := range all {
				s += v
			}
			return val(s, err)
		}, sum},
		{"Get", false, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return val(dist.Get(x, x.Len()-1)) }, top},
		// The order operations.
		{"Median", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return val(dist.Median(x)) }, mean},
		{"Unique", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.Unique(x)) }, sum},
		{"Sort", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return arr(dist.Sort(x)) }, sum},
		{"Argsort", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) { return iarr(dist.Argsort(x, 0)) }, iota},
		{"Searchsorted", true, func(x, _ *dist.Array[float64]) (faultOutcome, error) {
			return iarr(dist.Searchsorted(x, x, dist.SideLeft))
		}, iota},
		// The ghost exchange: it succeeds, and Sum reports the fault.
		{"Exchange", false, func(_, g *dist.Array[float64]) (faultOutcome, error) {
			if err := g.Exchange(); err != nil {
				return faultOutcome{}, err
			}
			return val(dist.Sum(g))
		}, sum},
	}
	sizes := []int{2, 2*p + 1}
	if p > 1 && p-1 != 2 {
		sizes = append(sizes, p-1) // fewer elements than ranks
	}
	bads := []int{0}
	if p > 1 {
		bads = append(bads, p-1)
	}
	on := dist.OnBackend(fakedev.Default)
	for _, n := range sizes {
		f := func(idx []int) float64 { return float64(idx[0] + 1) }
		x, err := dist.FromFunc(c, []int{n}, f, on)
		if err != nil {
			t.Fatal(err)
		}
		g, err := dist.FromFunc(c, []int{n}, f, on, dist.Ghosts(1))
		if err != nil {
			t.Fatal(err)
		}
		z, err = dist.FromFunc(c, []int{n}, func(idx []int) complex128 { return complex(float64(idx[0]+1), 1) }, on)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			for _, bad := range bads {
				what := fmt.Sprintf("%s of %d elements at %d ranks, fault on rank %d", op.name, n, p, bad)
				if rank == bad {
					fakedev.Default.InjectFault(errFault)
				}
				res, err := op.run(x, g)
				if op.name == "Exchange" {
					// The exchange itself must not fail; its Sum reports.
					mpitest.Check(t, c, err == nil || errors.Is(err, backend.ErrDevice), "%s: returned %v", what, err)
				}
				none, aerr := mpi.AllTrue(c, err == nil)
				if aerr != nil {
					t.Fatal(aerr)
				}
				mpitest.Check(t, c, !none || !(op.now && p > 1), "%s: no rank returned an error", what)
				if none {
					// Deferred: the next call that agrees reports it.
					res.free()
					_, err = dist.Sum(x)
				}
				ok := errors.Is(err, backend.ErrDevice) && (rank != bad || errors.Is(err, errFault))
				mpitest.Check(t, c, ok, "%s: rank %d returned %v; want an error wrapping backend.ErrDevice (and the fault on the faulting rank)", what, rank, err)

				res, err = op.run(x, g)
				var v float64
				if err == nil {
					v, err = res.value()
				}
				want := op.want(n)
				mpitest.Check(t, c, err == nil && math.Abs(v-want) <= 1e-12*want, "%s: the next call returned %v, %v; want %v", what, v, err, want)
			}
		}
		x.Free()
		g.Free()
		z.Free()
	}
}

// TestDeviceFaultMoves is TestDeviceFaultCollectives for the operations
// that send device blocks to MPI to move or combine them: Scatter,
// Redistribute (to a replicated layout, and to other block sizes), Slice,
// Reshape, Take, TakeFlat, Compact, MatMul (allgather, ring, SUMMA; the
// replicated b, which does not communicate, reports at the next call that
// agrees), MatVec, and file I/O of device blocks (Save, Load,
// SaveCheckpoint, which must then leave no checkpoint committed); and for
// the constructors that fill a block on the host and copy it to the
// device (FromFunc, Uniform on a device without its own random fill;
// Uniform on the fake device fills there). A fault
// on one rank before the call: no rank may wait for another (the
// watchdog), every rank gets an error wrapping backend.ErrDevice (the
// faulting rank's wrapping the fault too) from the operation where now
// says so, else from it or from the next Sum, and the next call must give
// the right value.
func TestDeviceFaultMoves(t *testing.T) {
	c := mpitest.World(t)
	p, rank := c.Size(), c.Rank()
	stop, err := mpi.StartWatchdog(c, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := mpitest.TempDir(t, c)
	on := dist.OnBackend(fakedev.Default)
	arr := func(a *dist.Array[float64], err error) (faultOutcome, error) { return faultOutcome{a: a}, err }
	type op struct {
		name string
		now  func(n int) bool // the operation itself reports the fault at n elements
		run  func(n int, x *dist.Array[float64]) (faultOutcome, error)
		want func(n int) float64
	}
	always := func(int) bool { return true }
	never := func(int) bool { return false }
	filledBlocks := func(n int) bool { return n >= p } // no rank's block is empty
	ranks := func(int) bool { return p > 1 }
	moves := func(n int) bool { return p > 1 && n > 1 }
	sum := func(n int) float64 { return float64(n * (n + 1) / 2) }
	uniformSum := func(n int) float64 { // Uniform(seed 7, draw 3), summed as faultOutcome.value does
		u := make([]float64, n)
		rng.FillUniform(u, 7, 0, 3)
		s := 0.0
		for _, v := range u {
			s += v
		}
		return s
	}
	build := func(shape []int, v float64, opts ...dist.Option) *dist.Array[float64] {
		a, err := dist.FromFunc(c, shape, func([]int) float64 { return v }, append([]dist.Option{on}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// The matrices: a (n x 2) and b (2 x 3) of ones, a*b of twos: 6n in
	// all; a*v for a vector v of ones: 2n.
	var a, brows, brep, ag, bg, v *dist.Array[float64]
	// The indices and the mask, made before the fault (a fault before
	// FromFunc fails it on every rank).
	var rev *dist.Array[int64] // n-1, ..., 0
	var neg *dist.Array[int32] // -1, ..., -n
	var mask *dist.Array[uint8]
	matmul := func(o dist.MatMulOptions, x, y func() *dist.Array[float64]) func(int, *dist.Array[float64]) (faultOutcome, error) {
		return func(int, *dist.Array[float64]) (faultOutcome, error) { return arr(dist.MatMulWithOptions(x(), y(), o)) }
	}
	get := func(p **dist.Array[float64]) func() *dist.Array[float64] {
		return func() *dist.Array[float64] { return *p }
	}
	saves := 0
	ops := []op{
		{"Scatter", always, func(n int, _ *dist.Array[float64]) (faultOutcome, error) {
			data := make([]float64, n)
			for i := range data {
				data[i] = float64(i + 1)
			}
			return arr(dist.Scatter(c, 0, data, []int{n}, on))
		}, sum},
		{"ScatterReplicated", always, func(n int, _ *dist.Array[float64]) (faultOutcome, error) {
			data := make([]float64, n)
			for i := range data {
				data[i] = float64(i + 1)
			}
			return arr(dist.Scatter(c, 0, data, []int{n}, on, dist.SplitAxis(dist.Replicated)))
		}, sum},
		{"FromFunc", always, func(n int, _ *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0] + 1) }, on))
		}, sum},
		// A random constructor on a device without its own random fill
		// fills the block on the host and copies it, as FromFunc (a rank
		// with an empty block copies nothing: a fault there is left for
		// the next call that agrees); on the fake device, a
		// backend.RandomFiller, it fills the block there and the next
		// call that agrees reports the fault.
		{"UniformHostFill", filledBlocks, func(n int, _ *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Uniform[float64](c, []int{n}, 7, 3, dist.OnBackend(noSorter{fakedev.Default})))
		}, uniformSum},
		{"UniformDeviceFill", never, func(n int, _ *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Uniform[float64](c, []int{n}, 7, 3, on))
		}, uniformSum},
		{"RedistributeReplicated", always, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Redistribute(x, dist.NewLayout([]int{n}, dist.Replicated, p)))
		}, sum},
		{"RedistributeCounts", moves, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			counts := make([]int, p)
			counts[p-1] = n // all on the last rank
			return arr(dist.Redistribute(x, dist.NewLayoutCounts([]int{n}, 0, counts)))
		}, sum},
		// In place: the result takes over the input's memory where a
		// rank's block keeps its length (every rank in the square
		// transpose, a middle rank or none in the reversed counts), and
		// the input is gone either way, with an error too.
		{"RedistributeInPlaceReversed", func(n int) bool {
			counts := dist.NewLayout([]int{n}, 0, p).Counts()
			r := slices.Clone(counts)
			slices.Reverse(r)
			return !slices.Equal(counts, r)
		}, func(n int, y *dist.Array[float64]) (faultOutcome, error) {
			counts := y.Layout().Counts()
			slices.Reverse(counts)
			return arr(dist.RedistributeInPlace(y, dist.NewLayoutCounts([]int{n}, 0, counts)))
		}, sum},
		{"RedistributeInPlaceTranspose", moves, func(n int, y *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.RedistributeInPlace(y, dist.NewLayout([]int{n, n}, 1, p)))
		}, func(n int) float64 { return float64(n * n * (n*n + 1) / 2) }},
		{"Slice", moves, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Slice(x, dist.Range{Start: math.MaxInt, Stop: math.MinInt, Step: -1})) // reversed
		}, sum},
		{"Reshape", moves, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Reshape(x, 1, n))
		}, sum},
		{"Take", always, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Take(x, rev, 0))
		}, sum},
		{"TakeFlat", always, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.TakeFlat(x, neg))
		}, sum},
		{"Compact", always, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Compact(x, mask))
		}, sum},
		{"MatMulAllgather", ranks, matmul(dist.MatMulOptions{Method: dist.MatMulAllgather}, get(&a), get(&brows)),
			func(n int) float64 { return float64(6 * n) }},
		{"MatMulRing", ranks, matmul(dist.MatMulOptions{Method: dist.MatMulRing}, get(&a), get(&brows)),
			func(n int) float64 { return float64(6 * n) }},
		{"MatMulSUMMA", always, matmul(dist.MatMulOptions{PanelWidth: 1}, get(&ag), get(&bg)),
			func(n int) float64 { return float64(6 * n) }},
		// No communication: the next Sum reports the fault.
		{"MatMulReplicatedB", func(int) bool { return false }, matmul(dist.MatMulOptions{}, get(&a), get(&brep)),
			func(n int) float64 { return float64(6 * n) }},
		{"MatVec", ranks, func(int, *dist.Array[float64]) (faultOutcome, error) { return arr(dist.MatVec(a, v)) },
			func(n int) float64 { return float64(2 * n) }},
		// File I/O of device blocks.
		{"Save", always, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			path := filepath.Join(dir, fmt.Sprintf("save%d.npy", n))
			if err := dist.Save(x, path); err != nil {
				return faultOutcome{}, err
			}
			return arr(dist.Load[float64](c, path, on))
		}, sum},
		{"Load", always, func(n int, _ *dist.Array[float64]) (faultOutcome, error) {
			return arr(dist.Load[float64](c, filepath.Join(dir, fmt.Sprintf("host%d.npy", n)), on))
		}, sum},
		{"SaveCheckpoint", always, func(n int, x *dist.Array[float64]) (faultOutcome, error) {
			saves++
			ck := filepath.Join(dir, fmt.Sprintf("ck%d", saves))
			if err := dist.SaveCheckpoint(c, ck, int64(saves), nil, dist.Entry("x", x)); err != nil {
				// A failed save commits nothing.
				if _, oerr := dist.OpenCheckpoint(c, ck); !errors.Is(oerr, dist.ErrNoCheckpoint) {
					return faultOutcome{}, fmt.Errorf("the failed save (%v) left a checkpoint: OpenCheckpoint returned %v", err, oerr)
				}
				return faultOutcome{}, err
			}
			r, err := dist.OpenCheckpoint(c, ck)
			if err != nil {
				return faultOutcome{}, err
			}
			return arr(dist.LoadArray[float64](r, "x", on))
		}, sum},
	}
	// input is the array an operation runs on: x, or for the operations
	// that consume theirs (fresh: name -> shape) one of their own, made
	// before the fault is injected, of the values 1, 2, ... in row-major
	// order.
	fresh := map[string]func(n int) []int{
		"RedistributeInPlaceReversed":  func(n int) []int { return []int{n} },
		"RedistributeInPlaceTranspose": func(n int) []int { return []int{n, n} },
	}
	input := func(name string, n int, x *dist.Array[float64]) *dist.Array[float64] {
		f := fresh[name]
		if f == nil {
			return x
		}
		shape := f(n)
		y, err := dist.FromFunc(c, shape, func(idx []int) float64 {
			k := 0
			for a, i := range idx {
				k = k*shape[a] + i
			}
			return float64(k + 1)
		}, on)
		if err != nil {
			t.Fatal(err)
		}
		return y
	}
	sizes := []int{2, 2*p + 1}
	if p > 1 && p-1 != 2 {
		sizes = append(sizes, p-1) // fewer elements than ranks
	}
	bads := []int{0}
	if p > 1 {
		bads = append(bads, p-1)
	}
	// MPI taken as not CUDA-aware (device blocks staged through host
	// memory), then as CUDA-aware (MPI gets the fake device's memory).
	t.Setenv("XPMPI_CUDA_AWARE", "")
	t.Cleanup(staging.ClearCUDAAware)
	for _, aware := range []bool{false, true} {
		staging.SetCUDAAware(aware)
		for _, n := range sizes {
			x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0] + 1) }, on)
			if err != nil {
				t.Fatal(err)
			}
			h, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0] + 1) })
			if err != nil {
				t.Fatal(err)
			}
			if err := dist.Save(h, filepath.Join(dir, fmt.Sprintf("host%d.npy", n))); err != nil {
				t.Fatal(err)
			}
			h.Free()
			a = build([]int{n, 2}, 1)
			brows = build([]int{2, 3}, 1)
			brep = build([]int{2, 3}, 1, dist.SplitAxis(dist.Replicated))
			ag = build([]int{n, 2}, 1, dist.ProcessGrid(0, 0))
			bg = build([]int{2, 3}, 1, dist.ProcessGrid(ag.Layout().GridDims()...))
			v = build([]int{2}, 1)
			if rev, err = dist.FromFunc(c, []int{n}, func(i []int) int64 { return int64(n - 1 - i[0]) }, on); err != nil {
				t.Fatal(err)
			}
			if neg, err = dist.FromFunc(c, []int{n}, func(i []int) int32 { return int32(-1 - i[0]) }, on); err != nil {
				t.Fatal(err)
			}
			if mask, err = dist.FromFunc(c, []int{n}, func([]int) uint8 { return 1 }, on); err != nil {
				t.Fatal(err)
			}
			for _, op := range ops {
				for _, bad := range bads {
					what := fmt.Sprintf("%s of %d elements at %d ranks (CUDA-aware %v), fault on rank %d", op.name, n, p, aware, bad)
					y := input(op.name, n, x)
					if rank == bad {
						fakedev.Default.InjectFault(errFault)
					}
					res, err := op.run(n, y)
					none, aerr := mpi.AllTrue(c, err == nil)
					if aerr != nil {
						t.Fatal(aerr)
					}
					mpitest.Check(t, c, !none || !op.now(n), "%s: no rank returned an error", what)
					if none {
						// Deferred: the next call that agrees reports it.
						res.free()
						_, err = dist.Sum(x)
					}
					ok := errors.Is(err, backend.ErrDevice) && (rank != bad || errors.Is(err, errFault))
					mpitest.Check(t, c, ok, "%s: rank %d returned %v; want an error wrapping backend.ErrDevice (and the fault on the faulting rank)", what, rank, err)

					res, err = op.run(n, input(op.name, n, x))
					var got float64
					if err == nil {
						got, err = res.value()
					}
					want := op.want(n)
					mpitest.Check(t, c, err == nil && math.Abs(got-want) <= 1e-12*want, "%s: the next call returned %v, %v; want %v", what, got, err, want)
				}
			}
			for _, m := range []*dist.Array[float64]{x, a, brows, brep, ag, bg, v} {
				m.Free()
			}
			rev.Free()
			neg.Free()
			mask.Free()
		}
	}
}

func b2f(b bool) int {
	if b {
		return 1
	}
	return 0
}
