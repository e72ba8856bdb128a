package cuda

import (
	_ "embed"
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CUDA backend compares, selects, compacts and converts elements on
// its device, as a driver.Converter, with the kernels of convert.cu (and
// complex.cu's for complex buffers, which Where, Compress and Convert
// take: driver.ComplexKernels). The results are exact: the CPU backend's,
// bit for bit.
var _ driver.Converter = (*Backend)(nil)

// convertSource is convert.cu, which KernelSource appends after stats.cu.
//
//go:embed convert.cu
var convertSource string

// cpTile is the tile of Compress: convert.cu's XP_CP_TILE.
const cpTile = reduceBlock * 4

// The operations of convert.cu that every element type has; besides them,
// xp_cvt_<dst>_<src> for every pair of types, and convertPlain.
var (
	convertOps   = []string{"cmp", "cmps", "where", "cpscatter"}
	convertPlain = []string{"xp_cpcount_u8", "xp_cpscan_u64"}
)

// convertEntries returns the names of the entries of convert.cu.
func convertEntries() []string {
	var out []string
	for dt := backend.DType(0); int(dt) < len(typeSuffix); dt++ {
		for _, op := range convertOps {
			out = append(out, kernelName(op, dt))
		}
		for st := backend.DType(0); int(st) < len(typeSuffix); st++ {
			out = append(out, cvtName(dt, st))
		}
	}
	return append(out, convertPlain...)
}

// cvtName returns the entry that converts src elements to dst's type:
// convert.cu's between real types, complex.cu's where one is complex. It
// panics, naming them, for types without kernels (and for a complex type
// to itself, which Convert copies).
func cvtName(dst, src backend.DType) string {
	suffix := func(dt backend.DType) string {
		switch {
		case dt == backend.Complex64:
			return "c64"
		case dt == backend.Complex128:
			return "c128"
		case dt >= 0 && int(dt) < len(typeSuffix):
			return typeSuffix[dt]
		}
		return ""
	}
	ds, ss := suffix(dst), suffix(src)
	if ds == "" || ss == "" || (dst == src && dst.IsComplex()) {
		panic(fmt.Sprintf("cuda: no Convert kernel from %v to %v", src, dst))
	}
	return "xp_cvt_" + ds + "_" + ss
}

// checkMask panics unless mask is a Uint8 buffer of n elements.
func checkMask(op string, mask *devBuffer, n int) {
	if mask.DT != backend.Uint8 || mask.N != n {
		panic(fmt.Sprintf("cuda: %s: mask of %d %v for %d elements (want uint8)", op, mask.N, mask.DT, n))
	}
}

// checkCompare panics for an invalid CompareOp.
func checkCompare(op driver.CompareOp) {
	if op < driver.Less || op > driver.NotEqual {
		panic(fmt.Sprintf("cuda: invalid CompareOp %d", int(op)))
	}
}

// Compare sets mask[i] (Uint8) to 1 where x[i] op y[i] holds and to 0
// elsewhere (a comparison with a NaN is false, except NotEqual).
func (b *Backend) Compare(op driver.CompareOp, mask, x, y driver.Buffer) {
	checkCompare(op)
	dm, dx, dy := b.buf("Compare", mask), b.buf("Compare", x), b.buf("Compare", y)
	sameShape("Compare", dx, dy)
	checkMask("Compare", dm, dx.N)
	if dx.N == 0 {
		return
	}
	b.launch("Compare", kernelName("cmp", dx.DT), elemGrid(dx.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dx.N)).Int32(int32(op)).Buffer(dm).Buffer(dx).Buffer(dy))
}

// CompareScalar sets mask[i] to 1 where x[i] op s holds (s converted to
// x's type) and to 0 elsewhere.
func (b *Backend) CompareScalar(op driver.CompareOp, mask, x driver.Buffer, s driver.Scalar) {
	checkCompare(op)
	dm, dx := b.buf("CompareScalar", mask), b.buf("CompareScalar", x)
	checkMask("CompareScalar", dm, dx.N)
	if dx.N == 0 {
		return
	}
	b.launch("CompareScalar", kernelName("cmps", dx.DT), elemGrid(dx.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dx.N)).Int32(int32(op)).Buffer(dm).Buffer(dx).Scalar(convert(s, dx.DT)))
}

// Where sets dst[i] to a[i] where mask[i] is nonzero and to b[i]
// elsewhere; dst may be a or b. It takes every element type, complex
// included.
func (b *Backend) Where(dst, mask, a, c driver.Buffer) {
	dd, dm, da, dc := b.buf("Where", dst), b.buf("Where", mask), b.buf("Where", a), b.buf("Where", c)
	sameShape("Where", dd, da, dc)
	checkMask("Where", dm, dd.N)
	if dd.N == 0 {
		return
	}
	b.launch("Where", entryName("where", dd.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(dm).Buffer(da).Buffer(dc))
}

// Compress copies the elements x[i] whose mask[i] is nonzero, in order, to
// the start of dst and returns their count: a count per tile of 1024
// elements, their exclusive scan, and an ordered scatter per tile, all on
// the device; the count comes back to the host (it waits for the work
// queued before it). It panics if dst is too short for the count. It
// takes every element type, complex included.
func (b *Backend) Compress(dst, x, mask driver.Buffer) int {
	dd, dx, dm := b.buf("Compress", dst), b.buf("Compress", x), b.buf("Compress", mask)
	checkMask("Compress", dm, dx.N)
	if dd.DT != dx.DT {
		panic(fmt.Sprintf("cuda: Compress of %v into %v", dx.DT, dd.DT))
	}
	if dx.N == 0 {
		return 0
	}
	nb := (dx.N + cpTile - 1) / cpTile
	t := b.temp("Compress", backend.Uint64, nb+1)
	defer b.Free(t)
	b.launch("Compress", "xp_cpcount_u8", Dim3{X: nb}, Dim3{X: reduceBlock},
		(&Args{}).Int64(int64(dx.N)).Buffer(dm).Buffer(t))
	b.launch("Compress", "xp_cpscan_u64", Dim3{X: 1}, Dim3{X: 1}, (&Args{}).Int64(int64(nb)).Buffer(t))
	var total [1]uint64
	b.read("Compress", total[:], b.Slice(t, nb, nb+1))
	if int(total[0]) > dd.N {
		panic(fmt.Sprintf("cuda: Compress of %d selected elements into a buffer of %d", total[0], dd.N))
	}
	if total[0] > 0 {
		b.launch("Compress", entryName("cpscatter", dx.DT), Dim3{X: nb}, Dim3{X: reduceBlock},
			(&Args{}).Int64(int64(dx.N)).Buffer(dd).Buffer(dx).Buffer(dm).Buffer(t))
	}
	return int(total[0])
}

// Convert sets dst[i] to src[i] converted to dst's type by the rules of
// driver.ConvertValue (x86-64's results where C leaves a float-to-integer
// conversion undefined); dst and src have one length and any two element
// types, and do not overlap unless they are the same buffer. A real value
// becomes a complex one's real part (rounded once to its part type, the
// imaginary part +0), complex converts to complex part by part, and
// complex to real converts the real part as a float of its part type
// converts: the CPU backend's rules and bits.
func (b *Backend) Convert(dst, src driver.Buffer) {
	dd, ds := b.buf("Convert", dst), b.buf("Convert", src)
	if dd.N != ds.N {
		panic(fmt.Sprintf("cuda: Convert of %d elements into %d", ds.N, dd.N))
	}
	if dd.N == 0 {
		return
	}
	if dd.DT == ds.DT {
		b.Copy(dd, ds)
		return
	}
	b.launch("Convert", cvtName(dd.DT, ds.DT), elemGrid(dd.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(dd.N)).Buffer(dd).Buffer(ds))
}
