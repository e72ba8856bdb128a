package algkern

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

// allKernels are the package's kernels.
var allKernels = []*kernels.Kernel{mortonKeys2Kernel, mortonKeys3Kernel, segmentSum32Kernel, segmentSum64Kernel,
	maskCountKernel, maskScanKernel, maskIndexKernel, compactKernel}

// backends are where the API tests run: host arrays, and the fake device
// (device memory that package kernels' fallback runs the host
// implementations on).
func backends(t *testing.T) []backend.Backend {
	cpu, err := backend.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	return []backend.Backend{cpu, fakedev.Default}
}

// put returns vs on b (host arrays are vs itself).
func put[T backend.Numeric](t *testing.T, b backend.Backend, vs []T) *backend.Array[T] {
	t.Helper()
	a, err := backend.ToDevice(backend.Wrap(slices.Clone(vs)), b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// get returns a's elements on the host.
func get[T backend.Numeric](t *testing.T, a *backend.Array[T]) []T {
	t.Helper()
	out := make([]T, a.Len())
	if err := backend.CopyToHostSlice(out, a); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCatalog(t *testing.T) {
	for _, k := range allKernels {
		if c, ok := kernels.Lookup(k.Name()); !ok || c != k {
			t.Errorf("%s is not in kernels.Default", k.Name())
		}
		if !k.HasHost() || !k.HasCUDA() || len(k.ParityCases()) == 0 {
			t.Errorf("%s: host %v, CUDA %v, %d parity cases", k.Name(), k.HasHost(), k.HasCUDA(), len(k.ParityCases()))
		}
	}
	if err := kernels.Default.Check(); err != nil {
		t.Error(err)
	}
}

// TestParity runs every kernel's parity cases on the host and on the
// CUDA source (a GPU, or the fake CUDA driver built once for all of them).
func TestParity(t *testing.T) {
	kerneltest.Parity(t, allKernels...)
}

// TestCompile compiles every variant with NVRTC (skipped without it).
func TestCompile(t *testing.T) {
	kerneltest.NeedNVRTC(t)
	for _, k := range allKernels {
		for _, v := range k.Variants() {
			ptx, err := k.CompilePTX(v)
			if err != nil {
				t.Errorf("%s: %v", k.Name(), err)
				continue
			}
			if !strings.Contains(string(ptx), ".entry "+k.Name()+"(") {
				t.Errorf("%s (%v): no entry in the PTX", k.Name(), v)
			}
		}
	}
}

// TestMortonKeysExact checks keys worked out by hand.
func TestMortonKeysExact(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, b := range backends(t) {
		// Unit box, 4 cells per axis: x = 0.5 is cell 2 (a boundary goes
		// up), y = 0.25 cell 1; key bits y1 x1 y0 x0 = 0 1 1 0.
		xs := []float64{0.5, 0, 1, -3, nan, 0.99, inf, 0.3}
		ys := []float64{0.25, 0, 1, 7, 0.75, -inf, nan, 0.3}
		want := []uint64{6, 0, 15, 10, 10, 5, 5, 3}
		dst := put(t, b, make([]uint64, len(xs)))
		if err := MortonKeys2(dst, put(t, b, xs), put(t, b, ys), [2]float64{0, 0}, [2]float64{1, 1}, 2); err != nil {
			t.Fatal(err)
		}
		if got := get(t, dst); !slices.Equal(got, want) {
			t.Errorf("%v: MortonKeys2 = %v, want %v", b.Device(), got, want)
		}
		// A reversed x axis: x = 1 is cell 0, x = 0 the last; 3-D with
		// 2 cells per axis, z = 0.5 is cell 1: key bits z y x.
		x3 := []float64{1, 0, 0.75, 0.25}
		y3 := []float64{0, 1, 0.5, 0.49}
		z3 := []float64{0.5, 0, 0.5, 0.1}
		want3 := []uint64{4, 3, 6, 1}
		dst3 := put(t, b, make([]uint64, len(x3)))
		if err := MortonKeys3(dst3, put(t, b, x3), put(t, b, y3), put(t, b, z3), [3]float64{1, 0, 0}, [3]float64{0, 1, 1}, 1); err != nil {
			t.Fatal(err)
		}
		if got := get(t, dst3); !slices.Equal(got, want3) {
			t.Errorf("%v: MortonKeys3 = %v, want %v", b.Device(), got, want3)
		}
	}
}

// TestMortonKeys compares with algorithms.MortonKeys2 and MortonKeys3
// (float32 coordinates converted to float64 first) over sizes around the
// host implementation's chunk, boundaries, points outside the box, NaN
// and infinities, reversed axes, and levels 0 and the most.
func TestMortonKeys(t *testing.T) {
	for _, b := range backends(t) {
		for _, n := range []int{0, 1, 7, chunk - 1, chunk + 1, 2*chunk + 333} {
			for _, levels := range []int{0, 5, 21, 32} {
				lower := [3]float64{-1, 2, 0}
				upper := [3]float64{3, -2, 0.125}
				var c [3][]float64
				for a := range c {
					c[a] = coords(n, lower[a], upper[a], levels, 3*a)
				}
				name := fmt.Sprintf("%v n=%d levels=%d", b.Device(), n, levels)
				want := make([]uint64, n)
				algorithms.MortonKeys2(want, c[0], c[1], [2]float64(lower[:2]), [2]float64(upper[:2]), levels)
				dst := put(t, b, make([]uint64, n))
				if err := MortonKeys2(dst, put(t, b, c[0]), put(t, b, c[1]), [2]float64(lower[:2]), [2]float64(upper[:2]), levels); err != nil {
					t.Fatal(err)
				}
				if got := get(t, dst); !slices.Equal(got, want) {
					t.Errorf("%s: MortonKeys2 differs from algorithms.MortonKeys2", name)
				}
				// float32 coordinates: algorithms on their float64 values.
				var c32 [3][]float32
				var c64 [3][]float64
				for a := range c {
					c32[a] = make([]float32, n)
					c64[a] = make([]float64, n)
					for i, v := range c[a] {
						c32[a][i] = float32(v)
						c64[a][i] = float64(c32[a][i])
					}
				}
				algorithms.MortonKeys2(want, c64[0], c64[1], [2]float64(lower[:2]), [2]float64(upper[:2]), levels)
				if err := MortonKeys2(dst, put(t, b, c32[0]), put(t, b, c32[1]), [2]float64(lower[:2]), [2]float64(upper[:2]), levels); err != nil {
					t.Fatal(err)
				}
				if got := get(t, dst); !slices.Equal(got, want) {
					t.Errorf("%s: MortonKeys2 of float32 differs", name)
				}
				if levels > algorithms.MaxLevels3 {
					continue
				}
				algorithms.MortonKeys3(want, c[0], c[1], c[2], lower, upper, levels)
				if err := MortonKeys3(dst, put(t, b, c[0]), put(t, b, c[1]), put(t, b, c[2]), lower, upper, levels); err != nil {
					t.Fatal(err)
				}
				if got := get(t, dst); !slices.Equal(got, want) {
					t.Errorf("%s: MortonKeys3 differs from algorithms.MortonKeys3", name)
				}
				algorithms.MortonKeys3(want, c64[0], c64[1], c64[2], lower, upper, levels)
				if err := MortonKeys3(dst, put(t, b, c32[0]), put(t, b, c32[1]), put(t, b, c32[2]), lower, upper, levels); err != nil {
					t.Fatal(err)
				}
				if got := get(t, dst); !slices.Equal(got, want) {
					t.Errorf("%s: MortonKeys3 of float32 differs", name)
				}
			}
		}
	}
}

// segmentData returns n sorted keys over nseg segments (negative keys
// first, empty segments, keys past the last segment at the end) and
// n*width values whose float sums depend on the order.
func segmentData(n, nseg, width int) ([]int64, []float64) {
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = int64(i*(nseg+4)/max(n, 1)) - 2
		if keys[i] >= 0 && keys[i]%4 == 1 {
			keys[i]-- // segments 1, 5, 9, ... are empty
		}
	}
	vals := make([]float64, n*width)
	for i := range vals {
		vals[i] = math.Pow(-1.3, float64(i%37)) * (1 + 1e-9*float64(i))
	}
	return keys, vals
}

// inRange returns the rows whose key is in [0, nseg): algorithms.SegmentSum
// panics for keys past the last segment, which SegmentSum drops.
func inRange[T any](keys []int64, vals []T, nseg, width int) ([]int64, []T) {
	var ks []int64
	var vs []T
	for i, k := range keys {
		if k < int64(nseg) {
			ks = append(ks, k)
			vs = append(vs, vals[i*width:(i+1)*width]...)
		}
	}
	return ks, vs
}

func testSegmentSum[T Number, K Key](t *testing.T, b backend.Backend) {
	for _, c := range []struct{ n, nseg, width int }{
		{0, 3, 1}, {1, 1, 1}, {1, 4, 2}, {1001, 77, 1}, {333, 40, 3}, {64, 1, 5}, {50, 200, 1},
	} {
		keys64, fvals := segmentData(c.n, c.nseg, c.width)
		vals := make([]T, len(fvals))
		dt := backend.DTypeOf[T]()
		for i, v := range fvals {
			if dt == backend.Float32 || dt == backend.Float64 {
				vals[i] = T(v)
			} else {
				vals[i] = T(int64(v * 1e9)) // wraps in 32 bits, and unsigned
			}
		}
		ks, vs := inRange(keys64, vals, c.nseg, c.width)
		want := make([]T, c.nseg*c.width)
		algorithms.SegmentSum(want, ks, vs, c.width)
		keys := make([]K, c.n)
		for i, k := range keys64 {
			keys[i] = K(k)
		}
		out := put(t, b, slices.Repeat([]T{7}, c.nseg*c.width))
		if err := SegmentSum(out, put(t, b, keys), put(t, b, vals), c.width); err != nil {
			t.Fatal(err)
		}
		got := get(t, out)
		if err := kerneltest.Compare(want, got, 0); err != nil {
			t.Errorf("%v %v keys %v, %d rows of %d, %d segments: %v", b.Device(), backend.DTypeOf[T](), backend.DTypeOf[K](), c.n, c.width, c.nseg, err)
		}
	}
}

// TestSegmentSum compares with algorithms.SegmentSum, bit for bit, for
// every value and key type.
func TestSegmentSum(t *testing.T) {
	for _, b := range backends(t) {
		testSegmentSum[float64, int64](t, b)
		testSegmentSum[float64, int32](t, b)
		testSegmentSum[float32, int64](t, b)
		testSegmentSum[float32, int32](t, b)
		testSegmentSum[int32, int64](t, b)
		testSegmentSum[int64, int32](t, b)
		testSegmentSum[uint32, int32](t, b)
		testSegmentSum[uint64, int64](t, b)
	}
}

// TestSegmentSumOrder checks that the sum is the row-order one: 1e16, 1,
// -1e16 in one segment is 0 added in order ((1e16 + 1) - 1e16), where a
// pairwise sum would give 1.
func TestSegmentSumOrder(t *testing.T) {
	for _, b := range backends(t) {
		out := put(t, b, []float64{5, 5})
		err := SegmentSum(out, put(t, b, []int32{1, 1, 1}), put(t, b, []float64{1e16, 1, -1e16}), 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := get(t, out); got[0] != 0 || got[1] != 0 {
			t.Errorf("%v: %v, want [0 0]", b.Device(), got)
		}
		// -0 alone sums to +0, as algorithms' sum from zero does.
		out = put(t, b, []float64{5})
		if err := SegmentSum(out, put(t, b, []int64{0}), put(t, b, []float64{math.Copysign(0, -1)}), 1); err != nil {
			t.Fatal(err)
		}
		if got := get(t, out); math.Signbit(got[0]) {
			t.Errorf("%v: sum of -0 is -0, want +0", b.Device())
		}
	}
}

func TestMaskIndexCompact(t *testing.T) {
	for _, b := range backends(t) {
		for _, n := range []int{0, 1, 2, compactTile - 1, compactTile, compactTile + 1, 3*compactTile + 7} {
			for _, kind := range []string{"all", "none", "random", "last"} {
				mask := make([]uint8, n)
				bools := make([]bool, n)
				for i := range mask {
					switch kind {
					case "all":
						mask[i] = 1
					case "random":
						if h := uint32(i) * 2654435761; h>>30 == 1 {
							mask[i] = uint8(h>>20) | 1
						}
					case "last":
						if i == n-1 {
							mask[i] = 255
						}
					}
					bools[i] = mask[i] != 0
				}
				name := fmt.Sprintf("%v n=%d mask %s", b.Device(), n, kind)
				want := algorithms.MaskIndex(bools)
				idx := put(t, b, slices.Repeat([]int64{-1}, n+1))
				m, err := MaskIndex(idx, put(t, b, mask))
				if err != nil {
					t.Fatal(err)
				}
				got := get(t, idx)
				if m != len(want) || got[n] != -1 {
					t.Errorf("%s: MaskIndex %d elements (idx[n] = %d), want %d", name, m, got[n], len(want))
					continue
				}
				for k, i := range want {
					if got[k] != int64(i) {
						t.Errorf("%s: idx[%d] = %d, want %d", name, k, got[k], i)
						break
					}
				}
				xs := make([]float32, n)
				for i := range xs {
					xs[i] = float32(i) + 0.5
				}
				wantX := slices.Clone(xs)
				wm := algorithms.Compact(bools, wantX)
				dst := put(t, b, make([]float32, max(m, 1)))
				m2, err := Compact(dst, put(t, b, xs), put(t, b, mask))
				if err != nil {
					t.Fatal(err)
				}
				if gx := get(t, dst); m2 != wm || !slices.Equal(gx[:m2], wantX[:wm]) {
					t.Errorf("%s: Compact %d elements %v, want %d", name, m2, gx[:min(m2, 8)], wm)
				}
			}
		}
	}
}

// TestPanics checks the argument errors that panic.
func TestPanics(t *testing.T) {
	f := backend.Wrap[float64]
	u := func(n int) *backend.Array[uint64] { return backend.Wrap(make([]uint64, n)) }
	for _, c := range []struct {
		name, want string
		f          func()
	}{
		{"morton lengths", "algkern: MortonKeys2 lengths differ", func() {
			MortonKeys2(u(2), f([]float64{1, 2}), f([]float64{1}), [2]float64{0, 0}, [2]float64{1, 1}, 3)
		}},
		{"morton levels", "algkern: MortonKeys2 levels 33 outside [0, 32]", func() {
			MortonKeys2(u(1), f([]float64{1}), f([]float64{1}), [2]float64{0, 0}, [2]float64{1, 1}, 33)
		}},
		{"morton3 levels", "algkern: MortonKeys3 levels 22 outside [0, 21]", func() {
			MortonKeys3(u(1), f([]float64{1}), f([]float64{1}), f([]float64{1}), [3]float64{}, [3]float64{1, 1, 1}, 22)
		}},
		{"morton bounds", "algkern: MortonKeys3 bounds [1, 1] of axis 2", func() {
			MortonKeys3(u(0), f(nil), f(nil), f(nil), [3]float64{0, 0, 1}, [3]float64{1, 1, 1}, 2)
		}},
		{"morton NaN bound", "algkern: MortonKeys2 bounds [NaN, 1] of axis 0", func() {
			MortonKeys2(u(0), f(nil), f(nil), [2]float64{math.NaN(), 0}, [2]float64{1, 1}, 2)
		}},
		{"segment width", "algkern: SegmentSum width 0 < 1", func() {
			SegmentSum(f([]float64{0}), backend.Wrap([]int32{0}), f([]float64{1}), 0)
		}},
		{"segment out", "algkern: SegmentSum out length 3 is not a multiple of width 2", func() {
			SegmentSum(f(make([]float64, 3)), backend.Wrap([]int32{0}), f([]float64{1, 2}), 2)
		}},
		{"segment values", "algkern: SegmentSum values length 3 != 1 keys * width 2", func() {
			SegmentSum(f(make([]float64, 2)), backend.Wrap([]int32{0}), f([]float64{1, 2, 3}), 2)
		}},
		{"segment unsorted", "algkern: SegmentSum keys not sorted at 2: 3 > 1", func() {
			SegmentSum(f(make([]float64, 4)), backend.Wrap([]int64{0, 3, 1}), f([]float64{1, 2, 3}), 1)
		}},
		{"segment overlap", "algkern: SegmentSum out and values share memory", func() {
			v := f([]float64{1, 2})
			SegmentSum(v.Slice(0, 1), backend.Wrap([]int64{0, 0}), v, 1)
		}},
		{"compact lengths", "algkern: Compact mask length 2 != array length 3", func() {
			Compact(f(make([]float64, 3)), f(make([]float64, 3)), backend.Wrap([]uint8{1, 1}))
		}},
		{"compact overlap", "algkern: Compact dst and x share memory", func() {
			x := f([]float64{1, 2, 3})
			Compact(x, x, backend.Wrap([]uint8{1, 0, 1}))
		}},
		{"compact short", "algkern: Compact of 2 selected elements into 1", func() {
			Compact(f(make([]float64, 1)), f([]float64{1, 2, 3}), backend.Wrap([]uint8{1, 0, 1}))
		}},
		{"mask index short", "algkern: MaskIndex of 3 selected elements into 2", func() {
			MaskIndex(backend.Wrap(make([]int64, 2)), backend.Wrap([]uint8{1, 2, 3}))
		}},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, c.want) {
					t.Errorf("%s: panic %v, want %q", c.name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}

// TestMixedDevices checks that a host array with device arrays is an
// error naming the argument, not a panic.
func TestMixedDevices(t *testing.T) {
	xs := put(t, fakedev.Default, []float64{1, 2})
	err := MortonKeys2(backend.Wrap(make([]uint64, 2)), xs, xs, [2]float64{0, 0}, [2]float64{1, 1}, 3)
	if err == nil || !strings.Contains(err.Error(), "morton_keys2") {
		t.Errorf("mixed devices: %v", err)
	}
}
