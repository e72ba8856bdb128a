package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestGPUSort checks the CUDA backend's driver.Sorter (sort.cu) against
// the CPU backend's, which dist's and algorithms' tests check against
// slices.SortStableFunc with cmp.Compare: SortByKey (with and without the
// index), Cut and MergeRuns must give the CPU's results bit for bit (NaN
// payloads and the sign of zeros included, which shows their stability),
// for every key type, sizes around the tile of 1024 keys and the block of
// 256 threads, all-equal, sorted, reversed, few distinct and narrow keys
// (which skip passes), NaN, ±0, ±Inf and the integer extremes; Take must
// gather every element type, complex ones too, with repeated and
// out-of-order positions.
func TestGPUSort(t *testing.T) {
	b := gpu(t)
	t.Run("float64", func(t *testing.T) { gpuSort[float64](t, b) })
	t.Run("float32", func(t *testing.T) { gpuSort[float32](t, b) })
	t.Run("int64", func(t *testing.T) { gpuSort[int64](t, b) })
	t.Run("int32", func(t *testing.T) { gpuSort[int32](t, b) })
	t.Run("uint64", func(t *testing.T) { gpuSort[uint64](t, b) })
	t.Run("uint32", func(t *testing.T) { gpuSort[uint32](t, b) })
	t.Run("int8", func(t *testing.T) { gpuSort[int8](t, b) })
	t.Run("int16", func(t *testing.T) { gpuSort[int16](t, b) })
	t.Run("uint8", func(t *testing.T) { gpuSort[uint8](t, b) })
	t.Run("uint16", func(t *testing.T) { gpuSort[uint16](t, b) })
	t.Run("take", func(t *testing.T) {
		gpuTake[float64](t, b)
		gpuTake[float32](t, b)
		gpuTake[int16](t, b)
		gpuTake[uint8](t, b)
		gpuTake[complex64](t, b)
		gpuTake[complex128](t, b)
	})
	t.Run("panics", func(t *testing.T) { gpuSortPanics(t, b) })
}

// sortSizes are the sizes of the sort tests: empty, one and two keys,
// around a block of 256 threads, a tile of 1024 keys, and several tiles.
// On the fake driver, which runs each thread of a block as a fiber on the
// host, the last is 4 tiles and a part (4099), not 9 and a part (10007):
// the same paths (several tiles, their counts' scan and scatter), and
// TestGPUSort there takes 10% less processor time (17.5 s, not 19.3 s).
var sortSizes = []int{0, 1, 2, 255, 256, 257, 1024, 10007}

// sortSizesOn returns sortSizes, with 4099 for 10007 on the fake driver.
func sortSizesOn(b *cuda.Backend) []int {
	if !emulated(b) {
		return sortSizes
	}
	s := slices.Clone(sortSizes)
	s[len(s)-1] = 4*1024 + 3
	return s
}

// bitsOf returns the bits of v (both words of a complex128).
func bitsOf[T backend.Numeric](v T) [2]uint64 {
	s := driver.ScalarOf(v)
	return [2]uint64{s.Bits(), s.HiBits()}
}

// sameSlices reports the first index at which a and b differ in their
// bits, or -1.
func sameSlices[T backend.Numeric](a, b []T) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if bitsOf(a[i]) != bitsOf(b[i]) {
			return i
		}
	}
	return -1
}

// sortPatterns returns the named inputs of n keys of type T.
func sortPatterns[T backend.Element](n int, seed uint64) map[string][]T {
	dt := backend.DTypeOf[T]()
	r := rand.New(rand.NewPCG(seed, uint64(dt)))
	gen := func(f func(i int) T) []T {
		x := make([]T, n)
		for i := range x {
			x[i] = f(i)
		}
		return x
	}
	var special []T // NaNs of two payloads and both signs, ±0, ±Inf, extremes
	var lo, hi T
	if dt.IsFloat() {
		if dt == backend.Float32 {
			for _, b := range []uint32{0x7fc00000, 0xffc00001, 0x7f800001} {
				special = append(special, T(math.Float32frombits(b)))
			}
			m := float32(math.MaxFloat32)
			lo, hi = T(-m), T(m)
		} else {
			for _, b := range []uint64{0x7ff8000000000000, 0xfff8000000000001, 0x7ff0000000000001} {
				special = append(special, T(math.Float64frombits(b)))
			}
			m := math.MaxFloat64
			lo, hi = T(-m), T(m)
		}
		special = append(special, T(math.Inf(1)), T(math.Inf(-1)), 0, T(math.Copysign(0, -1)), 1, T(math.Copysign(1, -1)), lo, hi)
	} else {
		w := 8 * dt.Size()
		if dt.IsSigned() {
			lo, hi = T(int64(-1)<<(w-1)), T(int64(1)<<(w-1)-1)
		} else {
			lo, hi = 0, T(^uint64(0)>>(64-w))
		}
		special = []T{lo, hi, 0, 1, lo + 1, hi - 1}
	}
	random := func(int) T {
		if dt.IsFloat() {
			return T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(40)-20))
		}
		return T(r.Uint64())
	}
	p := map[string][]T{
		"random":   gen(random),
		"equal":    gen(func(int) T { return 7 }),
		"sorted":   gen(func(i int) T { return T(i % 100) }),
		"reversed": gen(func(i int) T { return T(99 - i%100) }),
		"few":      gen(func(int) T { return special[r.IntN(len(special))] }),
		"narrow":   gen(func(int) T { return T(r.IntN(50)) + 3 }), // few digits differ
	}
	if dt.IsFloat() { // ±0 and NaNs only: equal under cmp.Compare, different bits
		p["zeros"] = gen(func(i int) T {
			if r.IntN(2) == 0 {
				return special[r.IntN(3)] // a NaN
			}
			return special[5+r.IntN(2)] // +0 or -0
		})
	}
	return p
}

func gpuSort[T backend.Element](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	var host driver.Sorter = cpu.Default
	dev := backend.Backend(b).(driver.Sorter)
	for si, n := range sortSizesOn(b) {
		if n > 2*1024 && emulated(b) && dt.Size() < 8 && dt != backend.Float32 {
			// The emulation's time: several tiles are sorted for the
			// 64-bit types and float32 (the most digit passes); the
			// narrower integers take the smaller sizes.
			continue
		}
		pats := sortPatterns[T](n, uint64(si))
		names := make([]string, 0, len(pats))
		for name := range pats {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if n > 2*1024 && name != "random" && name != "few" && name != "zeros" {
				continue // the emulation's time: the others at the smaller sizes
			}
			in := pats[name]
			what := fmt.Sprintf("%v n=%d %s", dt, n, name)

			// SortByKey without and with the index.
			want := slices.Clone(in)
			host.SortByKey(driver.HostBufferOf(want), nil, 0)
			d := upload(t, b, in)
			dev.SortByKey(d, nil, 0)
			if i := sameSlices(download[T](t, b, d), want); i >= 0 {
				t.Errorf("%s: SortByKey: element %d: %v on the GPU, %v on the CPU", what, i, download[T](t, b, d)[i], want[i])
			}
			b.Free(d)
			const base = -3
			wantIdx := make([]int64, n)
			want = slices.Clone(in)
			host.SortByKey(driver.HostBufferOf(want), driver.HostBufferOf(wantIdx), base)
			d, di := upload(t, b, in), upload(t, b, make([]int64, n))
			dev.SortByKey(d, di, base)
			if i := sameSlices(download[T](t, b, d), want); i >= 0 {
				t.Errorf("%s: SortByKey with index: element %d: %v on the GPU, %v on the CPU", what, i, download[T](t, b, d)[i], want[i])
			}
			if got := download[int64](t, b, di); !slices.Equal(got, wantIdx) {
				t.Errorf("%s: SortByKey: index %v on the GPU, %v on the CPU", what, head(got), head(wantIdx))
			}

			// Cut of the sorted keys (d, di) at splitters taken from them,
			// with indices at, before and after theirs, and beyond both ends.
			if n > 0 {
				var sk []backend.Scalar
				var sx []int64
				add := func(k T, idx int64) { sk, sx = append(sk, driver.ScalarOf(k)), append(sx, idx) }
				add(want[0], math.MinInt64)
				for j := 0; j < 7; j++ {
					i := j * n / 7
					add(want[i], wantIdx[i]+base-1)
					add(want[i], wantIdx[i]+base)
					add(want[i], wantIdx[i]+base+1)
				}
				add(want[n-1], math.MaxInt64)
				// The splitters must ascend in (key, index) order.
				ord := make([]int, len(sk))
				for i := range ord {
					ord[i] = i
				}
				keyOf := func(i int) T { return driver.ValueOf[T](sk[i]) }
				slices.SortStableFunc(ord, func(x, y int) int {
					if c := compareKeys(keyOf(x), keyOf(y)); c != 0 {
						return c
					}
					return compareInts(sx[x], sx[y])
				})
				sk2, sx2 := make([]backend.Scalar, len(ord)), make([]int64, len(ord))
				for i, o := range ord {
					sk2[i], sx2[i] = sk[o], sx[o]
				}
				hc := host.Cut(driver.HostBufferOf(want), 5, sk2, sx2)
				dc := dev.Cut(d, 5, sk2, sx2)
				if !slices.Equal(hc, dc) {
					t.Errorf("%s: Cut %v on the GPU, %v on the CPU", what, dc, hc)
				}
			}
			b.Free(d)
			b.Free(di)

			// MergeRuns of sorted runs of in, some empty.
			r := rand.New(rand.NewPCG(uint64(n), 7))
			bounds := []int{0}
			for bounds[len(bounds)-1] < n {
				bounds = append(bounds, min(n, bounds[len(bounds)-1]+r.IntN(n/3+2)))
				if r.IntN(4) == 0 {
					bounds = append(bounds, bounds[len(bounds)-1]) // an empty run
				}
			}
			if n == 0 {
				bounds = append(bounds, 0)
			}
			runs := slices.Clone(in)
			idx := make([]int64, n)
			for k := 0; k+1 < len(bounds); k++ {
				run := driver.HostBufferOf(runs[bounds[k]:bounds[k+1]])
				host.SortByKey(run, driver.HostBufferOf(idx[bounds[k]:bounds[k+1]]), int64(1000*k))
			}
			for _, withIndex := range []bool{false, true} {
				hk, hi := slices.Clone(runs), slices.Clone(idx)
				hd, hdi := make([]T, n), make([]int64, n)
				dk, dix := upload(t, b, runs), upload(t, b, idx)
				dd, ddi := upload(t, b, make([]T, n)), upload(t, b, make([]int64, n))
				if withIndex {
					host.MergeRuns(driver.HostBufferOf(hd), driver.HostBufferOf(hdi), driver.HostBufferOf(hk), driver.HostBufferOf(hi), bounds)
					dev.MergeRuns(dd, ddi, dk, dix, bounds)
				} else {
					host.MergeRuns(driver.HostBufferOf(hd), nil, driver.HostBufferOf(hk), nil, bounds)
					dev.MergeRuns(dd, nil, dk, nil, bounds)
				}
				got := download[T](t, b, dd)
				if i := sameSlices(got, hd); i >= 0 {
					t.Errorf("%s: MergeRuns (index %v) of runs %v: element %d: %v on the GPU, %v on the CPU", what, withIndex, bounds, i, got[i], hd[i])
				}
				if gi := download[int64](t, b, ddi); withIndex && !slices.Equal(gi, hdi) {
					t.Errorf("%s: MergeRuns of runs %v: index %v on the GPU, %v on the CPU", what, bounds, head(gi), head(hdi))
				}
				for _, x := range []driver.Buffer{dk, dix, dd, ddi} {
					b.Free(x)
				}
			}
		}
	}
}

// head returns the first 20 elements of s, for messages.
func head[T any](s []T) []T { return s[:min(len(s), 20)] }

// compareKeys is cmp.Compare for keys, which the splitters of Cut follow.
func compareKeys[T backend.Element](a, b T) int {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareInts(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// gpuTake checks Take against the CPU's for sizes of src and positions
// that repeat and come in any order, into a dst longer than pos (its tail
// must stay as it was).
func gpuTake[T backend.Numeric](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	r := rand.New(rand.NewPCG(uint64(dt), 11))
	for _, n := range []int{1, 2, 255, 257, 10007} {
		src := make([]T, n)
		for i := range src {
			var v T
			p := (*[16]byte)(unsafe.Pointer(&v))
			for k := range dt.Size() {
				p[k] = byte(r.Uint32())
			}
			src[i] = v
		}
		for _, m := range []int{0, 1, 3, n, 2*n + 5} {
			pos := make([]int, m)
			for j := range pos {
				pos[j] = r.IntN(n)
			}
			if m >= 3 {
				pos[1] = pos[0] // repeated
				pos[2] = n - 1  // the last
			}
			want := make([]T, m+2)
			dstInit := make([]T, m+2)
			for i := range dstInit {
				dstInit[i] = src[i%n]
			}
			copy(want, dstInit)
			cpu.Default.Take(driver.HostBufferOf(want), driver.HostBufferOf(src), pos)
			ds, dd := upload(t, b, src), upload(t, b, dstInit)
			b.Take(dd, ds, pos)
			got := download[T](t, b, dd)
			if i := sameSlices(got, want); i >= 0 {
				t.Errorf("%v: Take of %d from %d: element %d: %v on the GPU, %v on the CPU", dt, m, n, i, got[i], want[i])
			}
			b.Free(ds)
			b.Free(dd)
		}
	}
}

// gpuSortPanics checks the Sorter's argument panics.
func gpuSortPanics(t *testing.T, b *cuda.Backend) {
	f := upload(t, b, []float64{3, 1, 2})
	c := upload(t, b, []complex128{1, 2})
	i32 := upload(t, b, []int32{1, 2, 3})
	i64 := upload(t, b, []int64{0, 0})
	dst := upload(t, b, []float64{0, 0, 0})
	defer func() {
		for _, x := range []driver.Buffer{f, c, i32, i64, dst} {
			b.Free(x)
		}
	}()
	cases := []struct {
		name, want string
		f          func()
	}{
		{"complex keys", "cuda: SortByKey of complex128 keys", func() { b.SortByKey(c, nil, 0) }},
		{"short index", "cuda: SortByKey: index of 2 int64 for 3 keys", func() { b.SortByKey(f, i64, 0) }},
		{"index type", "cuda: SortByKey: index of 3 int32", func() { b.SortByKey(f, i32, 0) }},
		{"take types", "cuda: Take of int32 into float64", func() { b.Take(dst, i32, []int{0}) }},
		{"take range", "cuda: Take: position 3 (pos[1]) out of range [0, 3)", func() { b.Take(dst, f, []int{0, 3}) }},
		{"take negative", "cuda: Take: position -1", func() { b.Take(dst, f, []int{-1}) }},
		{"take long", "cuda: Take of 4 positions into 3 elements", func() { b.Take(dst, f, []int{0, 0, 0, 0}) }},
		{"take overlap", "cuda: Take with dst and src in the same memory", func() { b.Take(f, f, []int{2, 1}) }},
		{"cut lengths", "cuda: Cut with 1 splitter keys and 0 indices", func() { b.Cut(f, 0, []backend.Scalar{driver.ScalarOf(1.0)}, nil) }},
		{"merge bounds", "cuda: MergeRuns with bounds [0 2] for 3 keys", func() { b.MergeRuns(dst, nil, f, nil, []int{0, 2}) }},
		{"merge descending", "cuda: MergeRuns with bounds [0 2 1 3]", func() { b.MergeRuns(dst, nil, f, nil, []int{0, 2, 1, 3}) }},
		{"merge index", "cuda: MergeRuns of 3 float64 keys and 2 indices into 3 float64 and 0", func() { b.MergeRuns(dst, nil, f, i64, []int{0, 3}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.HasPrefix(fmt.Sprint(r), c.want) {
					t.Errorf("panic %v, want one starting %q", r, c.want)
				}
			}()
			c.f()
		})
	}
}
