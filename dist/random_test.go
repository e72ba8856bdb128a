package dist_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/rng"
)

// randomShapes covers 1-D, 2-D and 3-D shapes with zero dimensions,
// dimensions smaller than the rank count, and sizes that do not divide by
// 2, 3 or 4.
var randomShapes = [][]int{
	{0}, {1}, {3}, {5}, {17}, {1001},
	{0, 3}, {3, 0}, {1, 4}, {5, 3}, {2, 9}, {13, 7},
	{4, 0, 2}, {1, 2, 3}, {3, 4, 5}, {2, 5, 3},
}

// randomCase is one generator: make builds the distributed array, want
// fills the whole reference array directly with rng, and both return the
// elements' bits.
type randomCase struct {
	name string
	make func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error)
	want func(n int) []uint64
}

func randomBits[T any](a []T, bits func(T) uint64) []uint64 {
	out := make([]uint64, len(a))
	for i, v := range a {
		out[i] = bits(v)
	}
	return out
}

func f64bits(v float64) uint64 { return math.Float64bits(v) }
func f32bits(v float32) uint64 { return uint64(math.Float32bits(v)) }

// randomGathered allgathers a (made with err) and returns its elements'
// bits.
func randomGathered[T float32 | float64 | int32 | int64 | uint32 | uint64](a *dist.Array[T], err error, bits func(T) uint64) ([]uint64, error) {
	if err != nil {
		return nil, err
	}
	all, err := dist.Allgather(a)
	if err != nil {
		return nil, err
	}
	return randomBits(all, bits), nil
}

const randomSeed, randomDraw = 0x5eed_2024, 3

var randomCases = []randomCase{
	{
		"Uniform/float64",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.Uniform[float64](c, shape, randomSeed, randomDraw, opts...)
			return randomGathered(a, err, f64bits)
		},
		func(n int) []uint64 {
			w := make([]float64, n)
			rng.FillUniform(w, randomSeed, 0, randomDraw)
			return randomBits(w, f64bits)
		},
	},
	{
		"Uniform/float32",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.Uniform[float32](c, shape, randomSeed, randomDraw, opts...)
			return randomGathered(a, err, f32bits)
		},
		func(n int) []uint64 {
			w := make([]float32, n)
			rng.FillUniform(w, randomSeed, 0, randomDraw)
			return randomBits(w, f32bits)
		},
	},
	{
		"Normal/float64",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.Normal[float64](c, shape, randomSeed, randomDraw, opts...)
			return randomGathered(a, err, f64bits)
		},
		func(n int) []uint64 {
			w := make([]float64, n)
			rng.FillNormal(w, randomSeed, 0, randomDraw)
			return randomBits(w, f64bits)
		},
	},
	{
		"Normal/float32",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.Normal[float32](c, shape, 7, 0, opts...)
			return randomGathered(a, err, f32bits)
		},
		func(n int) []uint64 {
			w := make([]float32, n)
			rng.FillNormal(w, 7, 0, 0)
			return randomBits(w, f32bits)
		},
	},
	{
		"UniformInts/int32",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.UniformInts[int32](c, shape, randomSeed, randomDraw, -5, 5, opts...)
			return randomGathered(a, err, func(v int32) uint64 { return uint64(v) })
		},
		func(n int) []uint64 {
			w := make([]int32, n)
			rng.FillUniformInts(w, randomSeed, 0, randomDraw, -5, 5)
			return randomBits(w, func(v int32) uint64 { return uint64(v) })
		},
	},
	{
		"UniformInts/int64",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.UniformInts[int64](c, shape, 1, 0, math.MinInt64, math.MaxInt64, opts...)
			return randomGathered(a, err, func(v int64) uint64 { return uint64(v) })
		},
		func(n int) []uint64 {
			w := make([]int64, n)
			rng.FillUniformInts(w, 1, 0, 0, math.MinInt64, math.MaxInt64)
			return randomBits(w, func(v int64) uint64 { return uint64(v) })
		},
	},
	{
		"UniformInts/uint32",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.UniformInts[uint32](c, shape, randomSeed, 9, 100, 1000, opts...)
			return randomGathered(a, err, func(v uint32) uint64 { return uint64(v) })
		},
		func(n int) []uint64 {
			w := make([]uint32, n)
			rng.FillUniformInts(w, randomSeed, 0, 9, 100, 1000)
			return randomBits(w, func(v uint32) uint64 { return uint64(v) })
		},
	},
	{
		"UniformInts/uint64",
		func(c mpi.Comm, shape []int, opts ...dist.Option) ([]uint64, error) {
			a, err := dist.UniformInts[uint64](c, shape, randomSeed, randomDraw, 0, 1<<63+12345, opts...)
			return randomGathered(a, err, func(v uint64) uint64 { return v })
		},
		func(n int) []uint64 {
			w := make([]uint64, n)
			rng.FillUniformInts(w, randomSeed, 0, randomDraw, 0, 1<<63+12345)
			return randomBits(w, func(v uint64) uint64 { return v })
		},
	},
}

// randomLayouts returns the options of every layout of shape tested: each
// split axis, replicated, and block sizes with empty blocks along axis 0.
func randomLayouts(shape []int, p int) (names []string, opts [][]dist.Option) {
	names = append(names, "replicated")
	opts = append(opts, []dist.Option{dist.SplitAxis(dist.Replicated)})
	for a := range shape {
		names = append(names, fmt.Sprintf("axis%d", a))
		opts = append(opts, []dist.Option{dist.SplitAxis(a)})
	}
	// Everything on the last rank, then everything but one on rank 0 (the
	// other rows on the last rank).
	counts := make([]int, p)
	counts[p-1] = shape[0]
	names = append(names, fmt.Sprintf("blocks%v", counts))
	opts = append(opts, []dist.Option{dist.BlockSizes(counts)})
	if shape[0] > 1 && p > 1 {
		counts := make([]int, p)
		counts[0], counts[p-1] = shape[0]-1, 1
		names = append(names, fmt.Sprintf("blocks%v", counts))
		opts = append(opts, []dist.Option{dist.BlockSizes(counts)})
	}
	return names, opts
}

// TestRandomArrays checks that every distributed random array, on every
// layout, has bitwise the contents of the whole array filled at once by
// rng on one rank, which by construction does not depend on the number of
// ranks.
func TestRandomArrays(t *testing.T) {
	c := mpitest.World(t)
	for _, rc := range randomCases {
		t.Run(rc.name, func(t *testing.T) {
			for _, shape := range randomShapes {
				n := 1
				for _, d := range shape {
					n *= d
				}
				want := rc.want(n)
				names, opts := randomLayouts(shape, c.Size())
				for k := range names {
					got, err := rc.make(c, shape, opts[k]...)
					if err != nil {
						t.Fatalf("%v %s: %v", shape, names[k], err)
					}
					if len(got) != n {
						t.Errorf("%v %s: %d elements, want %d", shape, names[k], len(got), n)
						continue
					}
					for i := range got {
						if got[i] != want[i] {
							t.Errorf("%v %s: element %d has bits %#x, want %#x", shape, names[k], i, got[i], want[i])
							break
						}
					}
				}
			}
		})
	}
}

// TestRandomDraws checks that different draws and seeds give different
// arrays, and that the local block of a rank is the matching slice of the
// global array.
func TestRandomDraws(t *testing.T) {
	c := mpitest.World(t)
	shape := []int{4, 25}
	a, err := dist.Uniform[float64](c, shape, 1, 0, dist.SplitAxis(1))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := dist.Uniform[float64](c, shape, 1, 1, dist.SplitAxis(1))
	s, _ := dist.Uniform[float64](c, shape, 2, 0, dist.SplitAxis(1))
	ga, _ := dist.Allgather(a)
	gb, _ := dist.Allgather(b)
	gs, _ := dist.Allgather(s)
	same := func(x, y []float64) int {
		k := 0
		for i := range x {
			if x[i] == y[i] {
				k++
			}
		}
		return k
	}
	if k := same(ga, gb); k != 0 {
		t.Errorf("draws 0 and 1 agree on %d of %d elements", k, len(ga))
	}
	if k := same(ga, gs); k != 0 {
		t.Errorf("seeds 1 and 2 agree on %d of %d elements", k, len(ga))
	}
	// The local block, read directly.
	lo, hi := a.Range()
	local := a.LocalData()
	for i := 0; i < shape[0]; i++ {
		for j := lo; j < hi; j++ {
			if got, want := local[i*(hi-lo)+j-lo], ga[i*shape[1]+j]; got != want {
				t.Fatalf("local element (%d, %d) = %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestRandomMoments checks the mean and variance of a large distributed
// normal array and the range of uniform integers.
func TestRandomMoments(t *testing.T) {
	c := mpitest.World(t)
	const n = 200000
	z, err := dist.Normal[float64](c, []int{n}, 99, 0)
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := dist.Sum(z)
	sq, _ := dist.Dot(z, z)
	mean := sum / n
	variance := sq/n - mean*mean
	if math.Abs(mean) > 5/math.Sqrt(n) || math.Abs(variance-1) > 5*math.Sqrt(2.0/n) {
		t.Errorf("normal mean %v, variance %v", mean, variance)
	}
	k, _ := dist.UniformInts[int32](c, []int{n}, 99, 0, -3, 4)
	lo, _ := dist.Min(k)
	hi, _ := dist.Max(k)
	if lo != -3 || hi != 3 {
		t.Errorf("UniformInts in [-3, 4): min %d, max %d", lo, hi)
	}
}

func TestUniformIntsPanics(t *testing.T) {
	c := mpitest.World(t)
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.HasPrefix(msg, "dist: UniformInts") {
			t.Fatalf("panic %q", msg)
		}
	}()
	dist.UniformInts[int64](c, []int{3}, 1, 0, 5, 5)
}

// devRandom makes a random array on backend b with mk (under opts),
// checks that it lives on b's device and that making it recorded the
// copies wantCopies says (none for a backend.RandomFiller, one to the
// device where the block is not empty otherwise), and compares its
// elements with want: bit for bit when tol is 0, else to tol relative
// (at least 1e-14 absolute).
func devRandom[T float32 | float64 | int16 | int32 | int64 | uint8 | uint64](t *testing.T, b backend.Backend, what string, filler bool, tol float64,
	mk func(opts ...dist.Option) (*dist.Array[T], error), want []T, opts ...dist.Option) {
	t.Helper()
	var a *dist.Array[T]
	var err error
	w := got(profiling.Counting(func() { a, err = mk(append(opts, dist.OnBackend(b))...) }))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer a.Free()
	if a.Device() != b.Device() {
		t.Errorf("%s: on %v, want %v", what, a.Device(), b.Device())
	}
	n := a.Local().Len()
	wantTo := 0
	if !filler && n > 0 {
		wantTo = 1
	}
	if w.toHost != 0 || w.toDevice != wantTo || w.deviceCopies != 0 {
		t.Errorf("%s: recorded %d copies to the host, %d to the device, %d on the device; want 0, %d, 0",
			what, w.toHost, w.toDevice, w.deviceCopies, wantTo)
	}
	all, err := dist.Allgather(a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(all) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(all), len(want))
	}
	for i := range all {
		g, x := float64(all[i]), float64(want[i])
		if tol == 0 && all[i] != want[i] || tol != 0 && math.Abs(g-x) > math.Max(1e-14, tol*math.Abs(x)) {
			t.Errorf("%s: element %d is %v, want %v", what, i, all[i], want[i])
			return
		}
	}
}

// testDeviceRandom checks every random constructor on backend b (a
// backend.RandomFiller if filler) against rng's fill of the whole array,
// on every layout of randomLayouts and a 2-D process grid: uniform
// deviates and integers bit for bit, normal deviates bit for bit if
// normalTol is 0, else to normalTol relative (float32: to float32's
// rounding).
func testDeviceRandom(t *testing.T, c mpi.Comm, b backend.Backend, filler bool, normalTol float64) {
	const seed, draw = 0x5eed_2026, 5
	tol32 := normalTol
	if tol32 != 0 {
		tol32 = 1.2e-7
	}
	for _, shape := range randomShapes {
		n := prod(shape)
		names, opts := randomLayouts(shape, c.Size())
		if len(shape) == 2 {
			names = append(names, "grid")
			opts = append(opts, []dist.Option{dist.ProcessGrid(0, 0)})
		}
		u64, u32 := make([]float64, n), make([]float32, n)
		rng.FillUniform(u64, seed, 0, draw)
		rng.FillUniform(u32, seed, 0, draw)
		z64, z32 := make([]float64, n), make([]float32, n)
		rng.FillNormal(z64, seed, 0, draw)
		rng.FillNormal(z32, seed, 0, draw)
		i32, i64 := make([]int32, n), make([]int64, n)
		rng.FillUniformInts(i32, seed, 0, draw, -5, 5)
		rng.FillUniformInts(i64, seed, 0, draw, math.MinInt64, math.MaxInt64)
		i16, w8, w64 := make([]int16, n), make([]uint8, n), make([]uint64, n)
		rng.FillUniformInts(i16, seed, 0, draw, -300, 301)
		rng.FillUniformInts(w8, seed, 0, draw, 3, 250)
		rng.FillUniformInts(w64, seed, 0, draw, 7, 1<<63+12345)
		for k, name := range names {
			o := opts[k]
			what := func(s string) string { return fmt.Sprintf("%s %v %s", s, shape, name) }
			devRandom(t, b, what("Uniform/float64"), filler, 0, func(op ...dist.Option) (*dist.Array[float64], error) {
				return dist.Uniform[float64](c, shape, seed, draw, op...)
			}, u64, o...)
			devRandom(t, b, what("Uniform/float32"), filler, 0, func(op ...dist.Option) (*dist.Array[float32], error) {
				return dist.Uniform[float32](c, shape, seed, draw, op...)
			}, u32, o...)
			devRandom(t, b, what("Normal/float64"), filler, normalTol, func(op ...dist.Option) (*dist.Array[float64], error) {
				return dist.Normal[float64](c, shape, seed, draw, op...)
			}, z64, o...)
			devRandom(t, b, what("Normal/float32"), filler, tol32, func(op ...dist.Option) (*dist.Array[float32], error) {
				return dist.Normal[float32](c, shape, seed, draw, op...)
			}, z32, o...)
			devRandom(t, b, what("UniformInts/int32"), filler, 0, func(op ...dist.Option) (*dist.Array[int32], error) {
				return dist.UniformInts[int32](c, shape, seed, draw, -5, 5, op...)
			}, i32, o...)
			devRandom(t, b, what("UniformInts/int64"), filler, 0, func(op ...dist.Option) (*dist.Array[int64], error) {
				return dist.UniformInts[int64](c, shape, seed, draw, math.MinInt64, math.MaxInt64, op...)
			}, i64, o...)
			devRandom(t, b, what("UniformInts/int16"), filler, 0, func(op ...dist.Option) (*dist.Array[int16], error) {
				return dist.UniformInts[int16](c, shape, seed, draw, -300, 301, op...)
			}, i16, o...)
			devRandom(t, b, what("UniformInts/uint8"), filler, 0, func(op ...dist.Option) (*dist.Array[uint8], error) {
				return dist.UniformInts[uint8](c, shape, seed, draw, 3, 250, op...)
			}, w8, o...)
			devRandom(t, b, what("UniformInts/uint64"), filler, 0, func(op ...dist.Option) (*dist.Array[uint64], error) {
				return dist.UniformInts[uint64](c, shape, seed, draw, 7, 1<<63+12345, op...)
			}, w64, o...)
		}
	}
}

// TestDeviceRandom checks that the random constructors fill a fake-device
// array on the device (the fake device's backend.RandomFiller: no copy,
// rng's values bit for bit, normal deviates included), and that on a
// device backend without a RandomFiller they fill on the host and record
// the one copy to the device.
func TestDeviceRandom(t *testing.T) {
	c := mpitest.World(t)
	setAware(t, aware)
	t.Run("filler", func(t *testing.T) { testDeviceRandom(t, c, fakedev.Default, true, 0) })
	t.Run("plain", func(t *testing.T) { testDeviceRandom(t, c, noSorter{fakedev.Default}, false, 0) })
}

// TestConstructorChecking: FromFunc and a random constructor called on a
// device on rank 0 and on the host elsewhere (a program error: the ranks
// must choose the backend alike) fail, in the checking mode, on every rank
// with a *mpi.MismatchError, and leave nothing allocated, instead of
// leaving the device rank waiting in its agreement on the copy to the
// device while the others go on. Both kinds of device: one that fills the
// random block there (the fake device) and one that fills it on the host
// and copies it.
func TestConstructorChecking(t *testing.T) {
	c := mpitest.World(t)
	if c.Size() == 1 {
		t.Skip("one rank: no other rank to differ from")
	}
	defer mpi.SetChecking(mpi.SetChecking(true))
	stop, err := mpi.StartWatchdog(c, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, dev := range []backend.Backend{fakedev.Default, noSorter{fakedev.Default}} {
		var b backend.Backend = cpu.Default
		if c.Rank() == 0 {
			b = dev
		}
		for _, mk := range []struct {
			name string
			f    func(on dist.Option) (*dist.Array[float64], error)
		}{
			{"FromFunc", func(on dist.Option) (*dist.Array[float64], error) {
				return dist.FromFunc(c, []int{7}, func(idx []int) float64 { return float64(idx[0]) }, on)
			}},
			{"Uniform", func(on dist.Option) (*dist.Array[float64], error) {
				return dist.Uniform[float64](c, []int{7}, 1, 0, on)
			}},
		} {
			before := fakedev.Stats().LiveBytes
			x, err := mk.f(dist.OnBackend(b))
			var mm *mpi.MismatchError
			ok := x == nil && errors.As(err, &mm)
			if x != nil {
				x.Free()
			}
			after := fakedev.Stats().LiveBytes
			mpitest.Check(t, c, ok && after == before, "%s on %T at rank 0, the CPU elsewhere: %v, %v, device bytes live %d before, %d after; want a collective mismatch and nothing left", mk.name, dev, x, err, before, after)
		}
	}
}

// TestConstructorMixedBackends: outside the checking mode, FromFunc and
// the random constructors called on a device on rank 0 and on the host
// elsewhere make the array every rank would make alike, and a device
// fault on rank 0's copy fails the call on every rank and leaves nothing
// allocated. Before, the device rank waited in its agreement on the copy
// for ranks that did not make one (a hang the watchdog ends).
func TestConstructorMixedBackends(t *testing.T) {
	c := mpitest.World(t)
	defer mpi.SetChecking(mpi.SetChecking(false))
	stop, err := mpi.StartWatchdog(c, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	const n = 7
	want := make([]float64, n)
	rng.FillUniform(want, 1, 0, 0)
	mks := []struct {
		name string
		f    func(on dist.Option) (*dist.Array[float64], error)
		want func(g int) float64
	}{
		{"FromFunc", func(on dist.Option) (*dist.Array[float64], error) {
			return dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0]) }, on)
		}, func(g int) float64 { return float64(g) }},
		{"Uniform", func(on dist.Option) (*dist.Array[float64], error) {
			return dist.Uniform[float64](c, []int{n}, 1, 0, on)
		}, func(g int) float64 { return want[g] }},
	}
	for _, dev := range []backend.Backend{fakedev.Default, noSorter{fakedev.Default}} {
		var b backend.Backend = cpu.Default
		if c.Rank() == 0 {
			b = dev
		}
		for _, mk := range mks {
			x, err := mk.f(dist.OnBackend(b))
			ok := err == nil
			if ok {
				got, gerr := dist.Gather(x, 0)
				ok = gerr == nil
				for g := range got {
					ok = ok && got[g] == mk.want(g)
				}
				x.Free()
			}
			mpitest.Check(t, c, ok, "%s on %T at rank 0, the CPU elsewhere: %v", mk.name, dev, err)

			// A fault on rank 0's copy to the device (the fake device
			// fills Uniform there: no copy).
			if _, fills := dev.(backend.RandomFiller); fills && mk.name != "FromFunc" {
				continue
			}
			before := fakedev.Stats().LiveBytes
			if c.Rank() == 0 {
				fakedev.Default.InjectFault(errFault)
			}
			x, err = mk.f(dist.OnBackend(b))
			if x != nil {
				x.Free()
			}
			after := fakedev.Stats().LiveBytes
			ok = x == nil && errors.Is(err, backend.ErrDevice) && (c.Rank() != 0 || errors.Is(err, errFault))
			mpitest.Check(t, c, ok && after == before, "%s on %T at rank 0 with a fault there, the CPU elsewhere: %v, %v, device bytes live %d before, %d after; want the fault on every rank and nothing left", mk.name, dev, x, err, before, after)
		}
	}
}
