package cuda_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/profiling"
)

// gemmCase is a product of an m x k A and a k x n B, with the leading
// dimensions' padding beyond the columns, the offset of each matrix in its
// buffer, and whether it accumulates into C.
type gemmCase struct {
	m, n, k          int
	padA, padB, padC int
	off              int
	accumulate       bool
}

func (c gemmCase) String() string {
	return fmt.Sprintf("%dx%dx%d pad %d,%d,%d off %d acc %v", c.m, c.n, c.k, c.padA, c.padB, c.padC, c.off, c.accumulate)
}

// gemmCases are the products of TestGPUGemm: sizes 0, 1, 7, 63, 65 and 130
// (one tile, a tile less or more one, two tiles and a bit; panels of 16
// along k cut unevenly), k == 0, leading dimensions above the columns and
// matrices that start inside their buffers. big marks those run for the
// float types only (the emulation is slow).
var gemmCases = []struct {
	gemmCase
	big bool
}{
	{gemmCase{m: 0, n: 5, k: 3}, false},
	{gemmCase{m: 5, n: 0, k: 3}, false},
	{gemmCase{m: 0, n: 0, k: 0, accumulate: true}, false},
	{gemmCase{m: 4, n: 3, k: 0}, false},
	{gemmCase{m: 4, n: 3, k: 0, padC: 2, accumulate: true}, false},
	{gemmCase{m: 1, n: 1, k: 1}, false},
	{gemmCase{m: 1, n: 1, k: 1, accumulate: true}, false},
	{gemmCase{m: 7, n: 7, k: 7}, false},
	{gemmCase{m: 7, n: 7, k: 7, padA: 3, padB: 1, padC: 5, off: 2, accumulate: true}, false},
	{gemmCase{m: 1, n: 65, k: 17}, false},
	{gemmCase{m: 65, n: 1, k: 33, padA: 1, padC: 3}, false},
	{gemmCase{m: 63, n: 65, k: 7, padB: 2, accumulate: true}, false},
	{gemmCase{m: 65, n: 63, k: 130, padA: 2, padC: 1, off: 1}, true},
	{gemmCase{m: 130, n: 130, k: 63, accumulate: true}, true},
	{gemmCase{m: 130, n: 7, k: 130, padA: 1, padB: 4, padC: 2}, true},
}

// TestGPUGemm checks the CUDA backend's Gemm (gemm.cu) for every real
// element type: bit for bit against a loop in this test in the order the
// package documents (each product rounded, added in the order of l, from
// +0 or C), NaN and ±Inf among the float inputs; integers bit for bit
// against the CPU backend (their products wrap); floats within the bound
// the package documents of the CPU backend's (OpenBLAS or gonum), and bit
// for bit against gonum's where A has no zero; complex64 and complex128 as
// gpuGemmComplex says. The padding of the leading dimensions holds markers
// that must be neither read nor written.
func TestGPUGemm(t *testing.T) {
	b := gpu(t)
	t.Run("float32", func(t *testing.T) { gpuGemm[float32](t, b) })
	t.Run("float64", func(t *testing.T) { gpuGemm[float64](t, b) })
	t.Run("int8", func(t *testing.T) { gpuGemm[int8](t, b) })
	t.Run("int16", func(t *testing.T) { gpuGemm[int16](t, b) })
	t.Run("int32", func(t *testing.T) { gpuGemm[int32](t, b) })
	t.Run("int64", func(t *testing.T) { gpuGemm[int64](t, b) })
	t.Run("uint8", func(t *testing.T) { gpuGemm[uint8](t, b) })
	t.Run("uint16", func(t *testing.T) { gpuGemm[uint16](t, b) })
	t.Run("uint32", func(t *testing.T) { gpuGemm[uint32](t, b) })
	t.Run("uint64", func(t *testing.T) { gpuGemm[uint64](t, b) })
	t.Run("gonum", func(t *testing.T) {
		lib := cpu.GEMMLibrary()
		if err := cpu.SetGEMM(cpu.GEMMGonum); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if strings.HasPrefix(lib, "openblas") {
				cpu.SetGEMM(cpu.GEMMOpenBLAS)
			}
		}()
		gpuGemmGonum[float32](t, b)
		gpuGemmGonum[float64](t, b)
	})
	t.Run("complex128", func(t *testing.T) { gpuGemmComplex[complex128](t, b) })
	t.Run("complex64", func(t *testing.T) { gpuGemmComplex[complex64](t, b) })
	t.Run("panics", func(t *testing.T) { gpuGemmPanics(t, b) })
}

// gemmMarker is what the padding of the matrices holds: NaN for floats.
func gemmMarker[T backend.Element]() T {
	if backend.DTypeOf[T]().IsFloat() {
		nan := math.NaN()
		return T(nan)
	}
	return T(77)
}

// gemmMatrix returns the rows x cols matrix with leading dimension
// cols+pad at offset off of its buffer, the rest of the buffer markers:
// the values of statsInputs (with NaN and ±Inf if special).
func gemmMatrix[T backend.Element](rows, cols, pad, off int, special bool, seed uint64) []T {
	return gemmLayout(rows, cols, pad, off, gemmMarker[T](), statsInputs[T](rows*cols, special, seed))
}

// gemmLayout returns the rows x cols matrix v (row-major, packed) with
// leading dimension cols+pad at offset off of a buffer whose other
// elements are marker.
func gemmLayout[T backend.Numeric](rows, cols, pad, off int, marker T, v []T) []T {
	ld := cols + pad
	n := off
	if rows > 0 && cols > 0 {
		n += (rows-1)*ld + cols
	}
	x := make([]T, n)
	for i := range x {
		x[i] = marker
	}
	for i := 0; i < rows && cols > 0; i++ {
		copy(x[off+i*ld:off+i*ld+cols], v[i*cols:(i+1)*cols])
	}
	return x
}

// gemmRef is the product in the order gemm.cu documents, computed here:
// c[i][j] = (((c or +0) + a[i][0]*b[0][j]) + a[i][1]*b[1][j]) + ..., each
// product rounded (the conversion T(...) keeps Go from fusing it).
func gemmRef[T backend.Element](c, a, b []T, cs gemmCase) {
	lda, ldb, ldc := max(cs.k+cs.padA, 1), max(cs.n+cs.padB, 1), max(cs.n+cs.padC, 1)
	if cs.k == 0 && cs.accumulate {
		return
	}
	for i := 0; i < cs.m; i++ {
		for j := 0; j < cs.n; j++ {
			var s T
			if cs.accumulate {
				s = c[cs.off+i*ldc+j]
			}
			for l := 0; l < cs.k; l++ {
				s += T(a[cs.off+i*lda+l] * b[cs.off+l*ldb+j])
			}
			c[cs.off+i*ldc+j] = s
		}
	}
}

// gemmRun runs cs on the device and on the CPU backend from the same
// inputs, and returns the device's C, the CPU's C and the reference's C
// (whole buffers).
func gemmRun[T backend.Element](t *testing.T, b *cuda.Backend, cs gemmCase, special bool, seed uint64) (dev, host, ref, a, bm, c0 []T) {
	t.Helper()
	a = gemmMatrix[T](cs.m, cs.k, cs.padA, cs.off, special, seed)
	bm = gemmMatrix[T](cs.k, cs.n, cs.padB, cs.off, special, seed+1)
	c0 = gemmMatrix[T](cs.m, cs.n, cs.padC, cs.off, special, seed+2)
	lda, ldb, ldc := max(cs.k+cs.padA, 1), max(cs.n+cs.padB, 1), max(cs.n+cs.padC, 1)
	view := func(x []T) driver.Buffer {
		d := upload(t, b, x)
		return b.Slice(d, min(cs.off, len(x)), len(x))
	}
	da, db, dc := view(a), view(bm), view(c0)
	b.Gemm(dc, da, db, cs.m, cs.n, cs.k, lda, ldb, ldc, cs.accumulate)
	dev = download[T](t, b, dc)
	ha, hb := driver.HostBufferOf(append([]T(nil), a[min(cs.off, len(a)):]...)), driver.HostBufferOf(append([]T(nil), bm[min(cs.off, len(bm)):]...))
	hc := driver.HostBufferOf(append([]T(nil), c0[min(cs.off, len(c0)):]...))
	cpu.Default.Gemm(hc, ha, hb, cs.m, cs.n, cs.k, lda, ldb, ldc, cs.accumulate)
	host = driver.HostSlice[T](hc)
	ref = append([]T(nil), c0...)
	gemmRef(ref, a, bm, cs)
	ref = ref[min(cs.off, len(ref)):]
	for _, x := range []driver.Buffer{da, db, dc} {
		b.Free(x)
	}
	return dev, host, ref, a, bm, c0
}

func gpuGemm[T backend.Element](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	for ci, tc := range gemmCases {
		if tc.big && !dt.IsFloat() && dt != backend.Int64 {
			continue
		}
		cs := tc.gemmCase
		for _, special := range []bool{false, true} {
			if special && !dt.IsFloat() {
				continue
			}
			name := fmt.Sprintf("%v %v special %v", dt, cs, special)
			dev, host, ref, a, bm, c0 := gemmRun[T](t, b, cs, special, uint64(100*ci))
			for i := range ref {
				if !sameBits(dev[i], ref[i]) {
					t.Errorf("%s: element %d: %v on the GPU, %v in the documented order", name, i, dev[i], ref[i])
					break
				}
			}
			if !dt.IsFloat() {
				for i := range host {
					if dev[i] != host[i] {
						t.Errorf("%s: element %d: %v on the GPU, %v on the CPU", name, i, dev[i], host[i])
						break
					}
				}
				continue
			}
			if special {
				continue // OpenBLAS's NaNs and infinities are its own (0*Inf)
			}
			gemmWithinBound(t, name, dev, host, a, bm, c0, cs)
		}
	}
}

// gemmWithinBound checks that the floats dev and host (C from the offset
// on) differ by at most 2γ(|C| + |A||B|) elementwise, γ = (k+1)u/(1-(k+1)u),
// and that their padding is the markers.
func gemmWithinBound[T backend.Element](t *testing.T, name string, dev, host, a, bm, c0 []T, cs gemmCase) {
	t.Helper()
	u := 0x1p-53
	if backend.DTypeOf[T]() == backend.Float32 {
		u = 0x1p-24
	}
	kk := float64(cs.k + 1)
	gamma := kk * u / (1 - kk*u)
	lda, ldb, ldc := max(cs.k+cs.padA, 1), max(cs.n+cs.padB, 1), max(cs.n+cs.padC, 1)
	inside := make([]bool, len(dev))
	for i := 0; i < cs.m; i++ {
		for j := 0; j < cs.n; j++ {
			p := i*ldc + j
			inside[p] = true
			bound := 0.0
			if cs.accumulate {
				bound = math.Abs(float64(c0[cs.off+p]))
			}
			for l := 0; l < cs.k; l++ {
				bound += math.Abs(float64(a[cs.off+i*lda+l])) * math.Abs(float64(bm[cs.off+l*ldb+j]))
			}
			bound *= 2 * gamma
			if d := math.Abs(float64(dev[p]) - float64(host[p])); !(d <= bound) {
				t.Errorf("%s: C[%d][%d]: %v on the GPU, %v on the CPU (%s): difference %g, bound %g",
					name, i, j, dev[p], host[p], cpu.GEMMLibrary(), d, bound)
				return
			}
		}
	}
	for p := range dev {
		if !inside[p] && !sameBits(dev[p], gemmMarker[T]()) {
			t.Errorf("%s: element %d of C's padding: %v, want the marker", name, p, dev[p])
			return
		}
	}
}

// gpuGemmGonum checks the float products bit for bit against the CPU
// backend with gonum, which sums in the same order (A has no zero here).
func gpuGemmGonum[T backend.Element](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	for ci, tc := range gemmCases {
		cs := tc.gemmCase
		name := fmt.Sprintf("%v %v", dt, cs)
		dev, host, _, a, _, _ := gemmRun[T](t, b, cs, false, uint64(100*ci+7))
		for _, v := range a {
			if v == 0 {
				t.Fatalf("%s: a zero in A: gonum would skip its terms", name)
			}
		}
		for i := range host {
			if !sameBits(dev[i], host[i]) {
				t.Errorf("%s: element %d: %v on the GPU, %v on the CPU with %s", name, i, dev[i], host[i], cpu.GEMMLibrary())
				break
			}
		}
	}
}

// gpuGemmComplex checks complex products (gemm.cu's kernel over
// complex.cu's complex type) on gemmCases: bit for bit against the naive loop in Go
// (each product Go's complex product, rounded to T, added in the order of
// l from +0 or C), NaN and ±Inf parts among the inputs too; without them,
// each part of each element within the bound Backend.Gemm states of the
// CPU backend's (OpenBLAS's or gonum's cgemm and zgemm): 4(k+1)·u·(|C| +
// |A|·|B|)ij with the elements' moduli. No copy to or from the host is
// recorded, and C's padding is neither read nor written.
func gpuGemmComplex[T complex64 | complex128](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	u := 0x1p-53
	if dt == backend.Complex64 {
		u = 0x1p-24
	}
	marker := T(complex(math.NaN(), math.NaN()))
	matrix := func(rows, cols, pad, off int, special bool, seed uint64) []T {
		return gemmLayout(rows, cols, pad, off, marker, complexInputs[T](rows*cols, special, true, seed))
	}
	for ci, tc := range gemmCases {
		cs := tc.gemmCase
		lda, ldb, ldc := max(cs.k+cs.padA, 1), max(cs.n+cs.padB, 1), max(cs.n+cs.padC, 1)
		for _, special := range []bool{false, true} {
			name := fmt.Sprintf("%v %v special %v", dt, cs, special)
			seed := uint64(100*ci + 50)
			a, bm, c0 := matrix(cs.m, cs.k, cs.padA, cs.off, special, seed), matrix(cs.k, cs.n, cs.padB, cs.off, special, seed+1),
				matrix(cs.m, cs.n, cs.padC, cs.off, special, seed+2)
			view := func(x []T) driver.Buffer {
				return b.Slice(upload(t, b, x), min(cs.off, len(x)), len(x))
			}
			da, db, dc := view(a), view(bm), view(c0)
			cnt := profiling.Counting(func() { b.Gemm(dc, da, db, cs.m, cs.n, cs.k, lda, ldb, ldc, cs.accumulate) })
			if h, d := cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice); h != 0 || d != 0 {
				t.Errorf("%s: recorded %d copies to the host and %d to the device, want none", name, h, d)
			}
			dev := download[T](t, b, dc)
			for _, x := range []driver.Buffer{da, db, dc} {
				b.Free(x)
			}
			// The naive loop; T(...) rounds each product (and keeps Go
			// from fusing a multiply and an add).
			ref := append([]T(nil), c0[min(cs.off, len(c0)):]...)
			ao, bo := a[min(cs.off, len(a)):], bm[min(cs.off, len(bm)):]
			if !(cs.k == 0 && cs.accumulate) {
				for i := 0; i < cs.m; i++ {
					for j := 0; j < cs.n; j++ {
						var s T
						if cs.accumulate {
							s = ref[i*ldc+j]
						}
						for l := 0; l < cs.k; l++ {
							s += T(ao[i*lda+l] * bo[l*ldb+j])
						}
						ref[i*ldc+j] = s
					}
				}
			}
			for i := range ref {
				if !sameC(complex128(dev[i]), complex128(ref[i])) {
					t.Errorf("%s: element %d: %v on the GPU, %v from the naive loop", name, i, dev[i], ref[i])
					break
				}
			}
			if special {
				continue // BLAS's NaNs and infinities are its own
			}
			hc := driver.HostBufferOf(append([]T(nil), c0[min(cs.off, len(c0)):]...))
			cpu.Default.Gemm(hc, driver.HostBufferOf(append([]T(nil), ao...)), driver.HostBufferOf(append([]T(nil), bo...)),
				cs.m, cs.n, cs.k, lda, ldb, ldc, cs.accumulate)
			host := driver.HostSlice[T](hc)
			gamma := 4 * float64(cs.k+1) * u
		elements:
			for i := 0; i < cs.m; i++ {
				for j := 0; j < cs.n; j++ {
					p := i*ldc + j
					bound := 0.0
					if cs.accumulate {
						bound = cmplx.Abs(complex128(c0[cs.off+p]))
					}
					for l := 0; l < cs.k; l++ {
						bound += cmplx.Abs(complex128(ao[i*lda+l])) * cmplx.Abs(complex128(bo[l*ldb+j]))
					}
					bound *= gamma
					d := complex128(dev[p]) - complex128(host[p])
					if !(math.Abs(real(d)) <= bound && math.Abs(imag(d)) <= bound) {
						t.Errorf("%s: C[%d][%d]: %v on the GPU, %v on the CPU (%s): bound %g", name, i, j, dev[p], host[p], cpu.GEMMLibrary(), bound)
						break elements
					}
				}
			}
		}
	}
}

// gpuGemmPanics checks that Gemm panics, as driver.CheckGemm does, for
// arguments that do not describe the buffers' matrices, before any work.
func gpuGemmPanics(t *testing.T, b *cuda.Backend) {
	f := upload(t, b, make([]float64, 12))
	g := upload(t, b, make([]float32, 12))
	defer b.Free(f)
	defer b.Free(g)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"types", func() { b.Gemm(f, f, g, 2, 2, 2, 2, 2, 2, false) }},
		{"lda", func() { b.Gemm(f, f, f, 2, 2, 3, 2, 2, 2, false) }},
		{"short", func() { b.Gemm(f, f, f, 4, 4, 4, 4, 4, 4, false) }},
		{"negative", func() { b.Gemm(f, f, f, -1, 2, 2, 2, 2, 2, false) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "backend: Gemm") {
					t.Errorf("%s: recovered %v, want a panic of driver.CheckGemm", c.name, r)
				}
			}()
			c.f()
		}()
	}
}
