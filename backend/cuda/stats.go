package cuda

import (
	_ "embed"
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CUDA backend reduces along an axis and computes dist's statistics on
// its device, as a driver.AxisReducer and a driver.StatsReducer, with the
// kernels of stats.cu. Every result is the CPU backend's bit for bit: the
// kernels take their floating-point operations in the CPU backend's order
// (one thread per line along the axis, in the order of k; Moments by the
// CPU's chunks of 4096 elements, added pairwise; Prod of floats in order
// by one thread), and count and multiply integers exactly. No float is
// added with an atomic operation. SumAxis, CastSums and ScanAxis take
// complex buffers too (complex.cu's kernels, in the same order: the CPU's
// bits), as the backend is a driver.ComplexKernels.
var (
	_ driver.AxisReducer  = (*Backend)(nil)
	_ driver.StatsReducer = (*Backend)(nil)
)

// statsSource is stats.cu, which KernelSource appends after math.cu.
//
//go:embed stats.cu
var statsSource string

// momChunk is stats.cu's XP_MOM_CHUNK, the CPU backend's reduceChunk.
const momChunk = 4096

// The operations of stats.cu: every element type has statsOpsAll, floats
// statsOpsFloat, integers statsOpsInt; statsPlain have one entry each.
var (
	statsOpsAll   = []string{"sumaxis", "extaxis", "combext", "momaxis", "mom1", "mom2", "nnz", "hist", "scanaxis"}
	statsOpsFloat = []string{"prodf", "castsums"}
	statsOpsInt   = []string{"prodi"}
	statsPlain    = []string{"xp_momfin1_f64", "xp_momfin2_f64", "xp_combmom_f64", "xp_ratio_f64", "xp_prod2_u64"}
)

// statsEntries returns the names of the entries of stats.cu.
func statsEntries() []string {
	var out []string
	for dt := backend.DType(0); int(dt) < len(typeSuffix); dt++ {
		for _, op := range statsOpsAll {
			out = append(out, kernelName(op, dt))
		}
		ops := statsOpsInt
		if dt.IsFloat() {
			ops = statsOpsFloat
		}
		for _, op := range ops {
			out = append(out, kernelName(op, dt))
		}
	}
	return append(out, statsPlain...)
}

// flag returns 1 for true and 0 for false, a kernel's int argument.
func flag(v bool) int32 {
	if v {
		return 1
	}
	return 0
}

// ptrOrNil returns the device address of x, or 0 for a nil x.
func (b *Backend) ptrOrNil(op string, x driver.Buffer) uint64 {
	if x == nil {
		return 0
	}
	return addr(b.buf(op, x))
}

// temp allocates n elements of type dt on the device for an operation's
// intermediate results; it panics (as the operation has no error result)
// if the device is out of memory.
func (b *Backend) temp(op string, dt backend.DType, n int) driver.Buffer {
	t, err := b.Alloc(dt, n)
	if err != nil {
		fail(op, err)
	}
	return t
}

// read copies a device buffer of 8-byte elements to out, after the work
// queued before it.
func (b *Backend) read(op string, out []uint64, x driver.Buffer) {
	if len(out) == 0 {
		return
	}
	if err := b.CopyToHost(unsafe.Pointer(&out[0]), x); err != nil {
		fail(op, err)
	}
}

// lineBuf is a buffer of per-line values (nil: none) and its type.
type lineBuf struct {
	x  driver.Buffer
	dt backend.DType
}

// lines checks the pre x n x post view of src and the buffers of per-line
// results (pre*post elements of the given types), and returns src.
func (b *Backend) lines(op string, src driver.Buffer, pre, n, post int, outs ...lineBuf) *devBuffer {
	if pre < 0 || n < 0 || post < 0 {
		panic(fmt.Sprintf("cuda: %s of %d x %d x %d elements", op, pre, n, post))
	}
	s := b.buf(op, src)
	if s.N < pre*n*post {
		panic(fmt.Sprintf("cuda: %s of %d x %d x %d elements from a buffer of %d", op, pre, n, post, s.N))
	}
	for _, o := range outs {
		if o.x == nil {
			continue
		}
		d := b.buf(op, o.x)
		if d.DT != o.dt || d.N < pre*post {
			panic(fmt.Sprintf("cuda: %s of %d lines with %d %v, want %v", op, pre*post, d.N, d.DT, o.dt))
		}
	}
	return s
}

// SumAxis sets dst[i][j] to the sum over k of src[i][k][j] (of its square
// if squares), one thread per line in the order of k: in float64 into a
// Float64 dst for floating-point src (the CPU backend's bits), wrapping in
// src's type for integers, and for complex src into a Complex128 dst, each
// part in float64 (the CPU's bits; squares must be false).
func (b *Backend) SumAxis(dst, src driver.Buffer, pre, n, post int, squares bool) {
	dt := src.DType()
	acc := dt
	switch {
	case dt.IsComplex():
		if squares {
			panic(fmt.Sprintf("cuda: SumAxis of the squares of %v", dt))
		}
		acc = backend.Complex128
	case dt.IsFloat():
		acc = backend.Float64
	}
	s := b.lines("SumAxis", src, pre, n, post, lineBuf{dst, acc})
	if pre*post == 0 {
		return
	}
	b.launch("SumAxis", entryName("sumaxis", dt), elemGrid(pre*post), Dim3{X: blockSize},
		(&Args{}).Int64(int64(pre)).Int64(int64(n)).Int64(int64(post)).Buffer(dst).Buffer(s).Int32(flag(squares)))
}

// CastSums sets dst (float32 or float64) to the float64 sums of acc,
// rounded to dst's type, or to their square roots (correctly rounded) if
// sqrt; a complex dst to the Complex128 sums of acc rounded part by part
// (sqrt false). It panics for an integer dst.
func (b *Backend) CastSums(dst, acc driver.Buffer, sqrt bool) {
	d, a := b.buf("CastSums", dst), b.buf("CastSums", acc)
	want := backend.Float64
	if d.DT.IsComplex() {
		want = backend.Complex128
	}
	if !(d.DT.IsFloat() || (d.DT.IsComplex() && !sqrt)) || a.DT != want || a.N < d.N {
		panic(fmt.Sprintf("cuda: CastSums of %d %v into %d %v (sqrt %v)", a.N, a.DT, d.N, d.DT, sqrt))
	}
	if d.N == 0 {
		return
	}
	b.launch("CastSums", entryName("castsums", d.DT), elemGrid(d.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(d.N)).Buffer(d).Buffer(a).Int32(flag(sqrt)))
}

// ExtremeAxis sets vals[i][j] (src's type) and idx[i][j] (Int64) to the
// first smallest (largest, if max) of src[i][k][j] over k and offset+k, in
// the order of algorithms.Better (a NaN beats every number); -1 and a zero
// where n is 0. One thread runs each line.
func (b *Backend) ExtremeAxis(vals, idx, src driver.Buffer, pre, n, post int, offset int64, max bool) {
	dt := src.DType()
	s := b.lines("ExtremeAxis", src, pre, n, post, lineBuf{vals, dt}, lineBuf{idx, backend.Int64})
	if pre*post == 0 {
		return
	}
	b.launch("ExtremeAxis", kernelName("extaxis", dt), elemGrid(pre*post), Dim3{X: blockSize},
		(&Args{}).Int64(int64(pre)).Int64(int64(n)).Int64(int64(post)).Int64(offset).
			Buffer(vals).Buffer(idx).Buffer(s).Int32(flag(max)))
}

// CombineExtremes sets vals and idx (m elements each) to the best of p
// partial results, allVals and allIdx (p x m, one row per part), in the
// order of algorithms.Better. It panics if p < 1 or the buffers are short.
func (b *Backend) CombineExtremes(vals, idx, allVals, allIdx driver.Buffer, p int, max bool) {
	v, ix := b.buf("CombineExtremes", vals), b.buf("CombineExtremes", idx)
	av, ai := b.buf("CombineExtremes", allVals), b.buf("CombineExtremes", allIdx)
	m := v.N
	if ix.N != m || ix.DT != backend.Int64 || ai.DT != backend.Int64 || av.DT != v.DT || p < 1 || av.N < p*m || ai.N < p*m {
		panic(fmt.Sprintf("cuda: CombineExtremes of %d parts of %d %v and %d %v into %d %v and %d %v",
			p, av.N, av.DT, ai.N, ai.DT, m, v.DT, ix.N, ix.DT))
	}
	if m == 0 {
		return
	}
	b.launch("CombineExtremes", kernelName("combext", v.DT), elemGrid(m), Dim3{X: blockSize},
		(&Args{}).Int64(int64(m)).Int64(int64(p)).Buffer(v).Buffer(ix).Buffer(av).Buffer(ai).Int32(flag(max)))
}

// Moments returns the float64 sum of x, the sum of deviations from its
// mean and the corrected sum of squared deviations, summed as the CPU
// backend sums them (chunks of 4096 elements in order, one thread each,
// the chunks' sums added pairwise by one thread): the CPU's bits. The
// three results come back to the host together, after the work queued
// before.
func (b *Backend) Moments(x driver.Buffer) (sum, dev, m2 float64) {
	d := b.buf("Moments", x)
	if d.N == 0 {
		return 0, 0, 0
	}
	nc := (d.N + momChunk - 1) / momChunk
	t := b.temp("Moments", backend.Float64, 3*nc+3)
	defer b.Free(t)
	part := b.Slice(t, 0, nc)
	pdev, pm2 := b.Slice(t, nc, 2*nc), b.Slice(t, 2*nc, 3*nc)
	res := b.Slice(t, 3*nc, 3*nc+3)
	b.launch("Moments", kernelName("mom1", d.DT), elemGrid(nc), Dim3{X: blockSize},
		(&Args{}).Int64(int64(d.N)).Buffer(d).Buffer(part))
	b.launch("Moments", "xp_momfin1_f64", Dim3{X: 1}, Dim3{X: 1}, (&Args{}).Int64(int64(nc)).Buffer(part).Buffer(res))
	b.launch("Moments", kernelName("mom2", d.DT), elemGrid(nc), Dim3{X: blockSize},
		(&Args{}).Int64(int64(d.N)).Buffer(d).Buffer(res).Buffer(pdev).Buffer(pm2))
	b.launch("Moments", "xp_momfin2_f64", Dim3{X: 1}, Dim3{X: 1},
		(&Args{}).Int64(int64(nc)).Int64(int64(d.N)).Buffer(pdev).Buffer(pm2).Buffer(res))
	var r [3]uint64
	b.read("Moments", r[:], res)
	return math.Float64frombits(r[0]), math.Float64frombits(r[1]), math.Float64frombits(r[2])
}

// MomentsAxis sets mom (Float64, 3*pre*post elements: the sums, then the
// devs, then the m2s) to the Moments of each line src[i][.][j], one thread
// per line in the order of k, as the CPU backend computes them (its bits).
func (b *Backend) MomentsAxis(mom, src driver.Buffer, pre, n, post int) {
	s := b.lines("MomentsAxis", src, pre, n, post)
	md := b.buf("MomentsAxis", mom)
	if md.DT != backend.Float64 || md.N < 3*pre*post {
		panic(fmt.Sprintf("cuda: MomentsAxis of %d lines into %d %v", pre*post, md.N, md.DT))
	}
	if pre*post == 0 {
		return
	}
	b.launch("MomentsAxis", kernelName("momaxis", s.DT), elemGrid(pre*post), Dim3{X: blockSize},
		(&Args{}).Int64(int64(pre)).Int64(int64(n)).Int64(int64(post)).Buffer(md).Buffer(s))
}

// CombineMoments sets mom (Float64, 3*m elements) to the moments of the
// union of len(counts) parts whose moments are the rows of all, as the CPU
// backend combines them (its bits), one thread per line. The counts go to
// the device as kernel input (a small copy of len(counts) integers, not of
// the array's elements).
func (b *Backend) CombineMoments(mom, all driver.Buffer, counts []int) {
	md, ad := b.buf("CombineMoments", mom), b.buf("CombineMoments", all)
	p := len(counts)
	m := md.N / 3
	if md.DT != backend.Float64 || ad.DT != backend.Float64 || md.N%3 != 0 || ad.N < p*3*m {
		panic(fmt.Sprintf("cuda: CombineMoments of %d parts of %d %v into %d %v", p, ad.N, ad.DT, md.N, md.DT))
	}
	if m == 0 {
		return
	}
	if p == 0 {
		b.Fill(md, driver.ScalarOf(0.0))
		return
	}
	c := make([]int64, p)
	for i, v := range counts {
		c[i] = int64(v)
	}
	dc := b.temp("CombineMoments", backend.Int64, p)
	defer b.Free(dc)
	if err := b.CopyFromHost(dc, unsafe.Pointer(&c[0])); err != nil {
		fail("CombineMoments", err)
	}
	b.launch("CombineMoments", "xp_combmom_f64", elemGrid(m), Dim3{X: blockSize},
		(&Args{}).Int64(int64(m)).Int64(int64(p)).Buffer(md).Buffer(ad).Buffer(dc))
}

// Prod returns the product of x's elements: for floating-point x a Float64
// scalar, the product in float64 in order by one thread (the CPU backend's
// bits, overflows and NaNs included; the cost is serial); for integers an
// Int64 or Uint64 scalar that wraps, from a parallel product (exact in any
// order). 1 for an empty x. It waits for the work queued before it.
func (b *Backend) Prod(x driver.Buffer) driver.Scalar {
	d := b.buf("Prod", x)
	if d.N == 0 {
		return reduced(d.DT, oneBits(d.DT))
	}
	if !d.DT.IsFloat() {
		return reduced(d.DT, b.reduceWith("Prod", kernelName("prodi", d.DT), "xp_prod2_u64", d.N, d))
	}
	b.scratchMu.Lock()
	defer b.scratchMu.Unlock()
	p := b.scratchLocked("Prod")
	b.launch("Prod", kernelName("prodf", d.DT), Dim3{X: 1}, Dim3{X: 1}, (&Args{}).Int64(int64(d.N)).Buffer(d).DevicePtr(p))
	var r [1]uint64
	b.readScratch("Prod", p, r[:])
	return reduced(d.DT, r[0])
}

// oneBits returns the bits of Prod's 1 for elements of type dt.
func oneBits(dt backend.DType) uint64 {
	if dt.IsFloat() {
		return math.Float64bits(1)
	}
	return 1
}

// CountNonzero returns the number of elements of x that are not zero (a
// NaN is not zero), counted exactly on the device. It waits for the work
// queued before it.
func (b *Backend) CountNonzero(x driver.Buffer) int {
	d := b.buf("CountNonzero", x)
	if d.N == 0 {
		return 0
	}
	return int(b.reduceWith("CountNonzero", kernelName("nnz", d.DT), "xp_sum2_u64", d.N, d))
}

// Histogram adds to counts the number of elements of x in each of
// len(counts) equal-width bins over [lo, hi], with NumPy's rule (see
// driver.StatsReducer), counted on the device with 64-bit integer
// atomics (exact); the bins' counts come back to the host. It panics
// unless lo < hi, both finite.
func (b *Backend) Histogram(counts []int64, x driver.Buffer, lo, hi float64) {
	d := b.buf("Histogram", x)
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		panic(fmt.Sprintf("cuda: Histogram over [%v, %v]", lo, hi))
	}
	bins := len(counts)
	if bins == 0 || d.N == 0 {
		return
	}
	t := b.temp("Histogram", backend.Uint64, bins)
	defer b.Free(t)
	b.launch("Histogram", kernelName("hist", d.DT), elemGrid(d.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(d.N)).Buffer(d).Float64(lo).Float64(hi).Int64(int64(bins)).Buffer(t))
	r := make([]uint64, bins)
	b.read("Histogram", r, t)
	for i, v := range r {
		counts[i] += int64(v)
	}
}

// ScanAxis sets dst[i][k][j] (src's type) to the running sum (product, if
// prod) of src[i][0..k][j], from carry[i][j] (nil: 0, or 1 for products),
// in src's type in the order of k (integers wrap; complex sums part by
// part, complex products Go's), one thread per line: the CPU backend's
// bits. last (if not nil) gets the value at the end of each line; dst may
// be nil.
func (b *Backend) ScanAxis(dst, last, src, carry driver.Buffer, pre, n, post int, prod bool) {
	defer keep(dst, last, carry) // passed by address
	dt := src.DType()
	s := b.lines("ScanAxis", src, pre, n, post, lineBuf{last, dt}, lineBuf{carry, dt})
	if dst != nil {
		dd := b.buf("ScanAxis", dst)
		if dd.DT != dt || dd.N < pre*n*post {
			panic(fmt.Sprintf("cuda: ScanAxis of %d x %d x %d %v into %d %v", pre, n, post, dt, dd.N, dd.DT))
		}
	}
	if pre*post == 0 {
		return
	}
	b.launch("ScanAxis", entryName("scanaxis", dt), elemGrid(pre*post), Dim3{X: blockSize},
		(&Args{}).Int64(int64(pre)).Int64(int64(n)).Int64(int64(post)).
			DevicePtr(b.ptrOrNil("ScanAxis", dst)).DevicePtr(b.ptrOrNil("ScanAxis", last)).Buffer(s).
			DevicePtr(b.ptrOrNil("ScanAxis", carry)).Int32(flag(prod)))
}

// Ratio sets dst[i] (Float64) to num[i]/den (Float64), or to its square
// root (correctly rounded) if sqrt: the CPU backend's bits.
func (b *Backend) Ratio(dst, num driver.Buffer, den float64, sqrt bool) {
	d, x := b.buf("Ratio", dst), b.buf("Ratio", num)
	if d.DT != backend.Float64 || x.DT != backend.Float64 || x.N < d.N {
		panic(fmt.Sprintf("cuda: Ratio of %d %v into %d %v", x.N, x.DT, d.N, d.DT))
	}
	if d.N == 0 {
		return
	}
	b.launch("Ratio", "xp_ratio_f64", elemGrid(d.N), Dim3{X: blockSize},
		(&Args{}).Int64(int64(d.N)).Buffer(d).Buffer(x).Float64(den).Int32(flag(sqrt)))
}
