package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// TestGPUStats checks the CUDA backend's AxisReducer and StatsReducer
// (stats.cu) against the CPU backend's, which dist's tests check against
// NumPy: every element type, odd shapes, empty lines and buffers, one
// element, and NaN, ±Inf and -0 among float inputs. The kernels take the
// CPU backend's order of operations, so the results must be its bits (two
// NaNs match whatever their payloads).
func TestGPUStats(t *testing.T) {
	b := gpu(t)
	t.Run("float32", func(t *testing.T) { gpuStats[float32](t, b) })
	t.Run("float64", func(t *testing.T) { gpuStats[float64](t, b) })
	t.Run("int8", func(t *testing.T) { gpuStats[int8](t, b) })
	t.Run("int16", func(t *testing.T) { gpuStats[int16](t, b) })
	t.Run("int32", func(t *testing.T) { gpuStats[int32](t, b) })
	t.Run("int64", func(t *testing.T) { gpuStats[int64](t, b) })
	t.Run("uint8", func(t *testing.T) { gpuStats[uint8](t, b) })
	t.Run("uint16", func(t *testing.T) { gpuStats[uint16](t, b) })
	t.Run("uint32", func(t *testing.T) { gpuStats[uint32](t, b) })
	t.Run("uint64", func(t *testing.T) { gpuStats[uint64](t, b) })
	t.Run("ratio", func(t *testing.T) { gpuRatio(t, b) })
	t.Run("combine moments", func(t *testing.T) { gpuCombineMoments(t, b) })
}

// statsInputs returns n values of T: for floats, random values of mixed
// magnitudes with NaN, ±Inf, 0 and -0 among them if special; for
// integers, random bits with zeros, ones and the extremes among them.
func statsInputs[T backend.Element](n int, special bool, seed uint64) []T {
	dt := backend.DTypeOf[T]()
	r := rand.New(rand.NewPCG(seed, uint64(dt)))
	x := make([]T, n)
	for i := range x {
		if dt.IsFloat() {
			x[i] = T((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(20)-6))
		} else {
			x[i] = T(r.Uint64())
		}
	}
	var sp []T
	if dt.IsFloat() {
		if special {
			sp = []T{T(math.NaN()), T(math.Inf(1)), T(math.Inf(-1)), 0, T(math.Copysign(0, -1)), 1}
		}
	} else {
		ones, top := ^uint64(0), uint64(1)<<(8*dt.Size()-1) // variables: conversions to T keep the low bits
		sp = []T{0, 1, T(ones), T(top)}
	}
	for i, v := range sp {
		if n > 0 {
			x[(i*7919+3)%n] = v
		}
	}
	return x
}

// sameBits reports whether a and b have the same bits, or are two NaNs.
func sameBits[T backend.Element](a, b T) bool {
	return driver.ScalarOf(a).Bits() == driver.ScalarOf(b).Bits() || (a != a && b != b)
}

// compareBuf checks that the device buffer d holds the host buffer h's
// elements, bit for bit.
func compareBuf[T backend.Element](t *testing.T, b *cuda.Backend, what string, d, h driver.Buffer) {
	t.Helper()
	got, want := download[T](t, b, d), driver.HostSlice[T](h)
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Errorf("%s: element %d: %v on the GPU, %v on the CPU", what, i, got[i], want[i])
			return
		}
	}
}

// pair is a buffer on the host and its copy on the device.
type pair struct{ h, d driver.Buffer }

func newPair[T backend.Numeric](t *testing.T, b *cuda.Backend, x []T) pair {
	return pair{driver.HostBufferOf(append([]T(nil), x...)), upload(t, b, x)}
}

// filled returns a pair of n elements of T, all v (the CPU backend writes
// every element of its results, so prior contents must not matter).
func filled[T backend.Numeric](t *testing.T, b *cuda.Backend, n int, v T) pair {
	x := make([]T, n)
	for i := range x {
		x[i] = v
	}
	return newPair(t, b, x)
}

// statsShapes are the pre x n x post views of the axis tests.
var statsShapes = [][3]int{{1, 0, 1}, {0, 3, 2}, {3, 0, 2}, {1, 1, 1}, {1, 7, 1}, {3, 5, 7}, {2, 1, 9}, {1, 300, 1}, {4, 33, 3}}

func gpuStats[T backend.Element](t *testing.T, b *cuda.Backend) {
	dt := backend.DTypeOf[T]()
	var c backend.Backend = cpu.Default
	hostAR, devAR := c.(driver.AxisReducer), backend.Backend(b).(driver.AxisReducer)
	hostSR, devSR := c.(driver.StatsReducer), backend.Backend(b).(driver.StatsReducer)
	acc := dt
	if dt.IsFloat() {
		acc = backend.Float64
	}
	for si, sh := range statsShapes {
		pre, n, post := sh[0], sh[1], sh[2]
		m := pre * post
		for _, special := range []bool{false, true} {
			src := newPair(t, b, statsInputs[T](pre*n*post, special, uint64(si)))
			name := fmt.Sprintf("%v %dx%dx%d special %v", dt, pre, n, post, special)

			// SumAxis, and CastSums of its float sums.
			for _, sq := range []bool{false, true} {
				var dst pair
				if dt.IsFloat() {
					dst = filled[float64](t, b, m, 42)
				} else {
					dst = filled[T](t, b, m, 42)
				}
				hostAR.SumAxis(dst.h, src.h, pre, n, post, sq)
				devAR.SumAxis(dst.d, src.d, pre, n, post, sq)
				if acc == backend.Float64 {
					compareBuf[float64](t, b, name+fmt.Sprintf(" SumAxis squares %v", sq), dst.d, dst.h)
					for _, root := range []bool{false, true} {
						res := filled[T](t, b, m, 7)
						hostAR.CastSums(res.h, dst.h, root)
						devAR.CastSums(res.d, dst.d, root)
						compareBuf[T](t, b, name+fmt.Sprintf(" CastSums squares %v sqrt %v", sq, root), res.d, res.h)
					}
				} else {
					compareBuf[T](t, b, name+fmt.Sprintf(" SumAxis squares %v", sq), dst.d, dst.h)
				}
			}

			// ExtremeAxis, and CombineExtremes of three parts: this one,
			// an empty one and a shuffled copy.
			for _, max := range []bool{false, true} {
				vals, idx := filled[T](t, b, m, 9), filled[int64](t, b, m, 9)
				hostAR.ExtremeAxis(vals.h, idx.h, src.h, pre, n, post, 10, max)
				devAR.ExtremeAxis(vals.d, idx.d, src.d, pre, n, post, 10, max)
				what := name + fmt.Sprintf(" ExtremeAxis max %v", max)
				compareBuf[T](t, b, what+" values", vals.d, vals.h)
				compareBuf[int64](t, b, what+" indices", idx.d, idx.h)

				hv, hi := driver.HostSlice[T](vals.h), driver.HostSlice[int64](idx.h)
				av := append(append(append([]T(nil), hv...), make([]T, m)...), hv...)
				ai := append(append([]int64(nil), hi...), make([]int64, m)...)
				for j := range hi {
					ai[m+j] = -1
				}
				ai = append(ai, hi...)
				r := rand.New(rand.NewPCG(uint64(si), 5))
				for j := 0; j < m; j++ { // the third part: another row's values with smaller and larger indices
					k := r.IntN(m)
					av[2*m+j], ai[2*m+j] = hv[k], hi[k]+int64(r.IntN(5)-2)
					if hi[k] < 0 {
						ai[2*m+j] = -1
					}
				}
				for _, p := range []int{1, 3} {
					allV, allI := newPair(t, b, av[:p*m]), newPair(t, b, ai[:p*m])
					cv, ci := filled[T](t, b, m, 3), filled[int64](t, b, m, 3)
					hostAR.CombineExtremes(cv.h, ci.h, allV.h, allI.h, p, max)
					devAR.CombineExtremes(cv.d, ci.d, allV.d, allI.d, p, max)
					what := name + fmt.Sprintf(" CombineExtremes of %d parts, max %v", p, max)
					compareBuf[T](t, b, what+" values", cv.d, cv.h)
					compareBuf[int64](t, b, what+" indices", ci.d, ci.h)
				}
			}

			// MomentsAxis.
			mom := filled[float64](t, b, 3*m, 5)
			hostSR.MomentsAxis(mom.h, src.h, pre, n, post)
			devSR.MomentsAxis(mom.d, src.d, pre, n, post)
			compareBuf[float64](t, b, name+" MomentsAxis", mom.d, mom.h)

			// ScanAxis, every combination of dst, last and carry, sums and
			// products.
			carry := newPair(t, b, statsInputs[T](m, special, uint64(si)+100))
			for _, prod := range []bool{false, true} {
				for _, withDst := range []bool{false, true} {
					for _, withLast := range []bool{false, true} {
						for _, withCarry := range []bool{false, true} {
							if !withDst && !withLast {
								continue
							}
							var hd, dd, hl, dl, hc, dc driver.Buffer
							var dst, last pair
							if withDst {
								dst = filled[T](t, b, pre*n*post, 11)
								hd, dd = dst.h, dst.d
							}
							if withLast {
								last = filled[T](t, b, m, 11)
								hl, dl = last.h, last.d
							}
							if withCarry {
								hc, dc = carry.h, carry.d
							}
							hostSR.ScanAxis(hd, hl, src.h, hc, pre, n, post, prod)
							devSR.ScanAxis(dd, dl, src.d, dc, pre, n, post, prod)
							what := name + fmt.Sprintf(" ScanAxis prod %v dst %v last %v carry %v", prod, withDst, withLast, withCarry)
							if withDst {
								compareBuf[T](t, b, what+" dst", dd, hd)
							}
							if withLast {
								compareBuf[T](t, b, what+" last", dl, hl)
							}
						}
					}
				}
			}
		}
	}

	// Lines of one value that float types do not hold exactly (0.1), whose
	// deviations from the rounded mean the correction m2 -= dev*dev/n
	// matters for.
	if dt.IsFloat() {
		tenth := 0.1
		for _, sh := range [][3]int{{2, 3, 4}, {1, 7, 3}, {3, 10, 1}} {
			x := make([]T, sh[0]*sh[1]*sh[2])
			for i := range x {
				x[i] = T(tenth * float64(1+i%sh[2]))
			}
			src := newPair(t, b, x)
			mom := filled[float64](t, b, 3*sh[0]*sh[2], 5)
			hostSR.MomentsAxis(mom.h, src.h, sh[0], sh[1], sh[2])
			devSR.MomentsAxis(mom.d, src.d, sh[0], sh[1], sh[2])
			compareBuf[float64](t, b, fmt.Sprintf("%v MomentsAxis of constant lines %v", dt, sh), mom.d, mom.h)
		}
	}

	// The statistics of a whole buffer, at sizes across Moments' chunks of
	// 4096 elements (16000 is four chunks, pairwise's base case; 20000 five
	// and 41000 ten: its recursion).
	for _, n := range []int{0, 1, 2, 7, 4096, 4097, 16000, 20000, 41000} {
		for _, special := range []bool{false, true} {
			x := statsInputs[T](n, special, uint64(n))
			if !special && dt.IsFloat() && n > 0 {
				big := 1e6
				x[0] += T(big) // a large mean, whose deviations the correction keeps
			}
			if special && dt.IsFloat() && n > 0 && n < 5000 { // one value, not held exactly: the correction matters
				tenth := 0.1
				for i := range x {
					x[i] = T(tenth)
				}
			}
			xs := newPair(t, b, x)
			name := fmt.Sprintf("%v n=%d special %v", dt, n, special)

			s0, d0, q0 := hostSR.Moments(xs.h)
			s1, d1, q1 := devSR.Moments(xs.d)
			if !sameBits(s0, s1) || !sameBits(d0, d1) || !sameBits(q0, q1) {
				t.Errorf("%s Moments: %v %v %v on the GPU, %v %v %v on the CPU", name, s1, d1, q1, s0, d0, q0)
			}

			if got, want := devSR.CountNonzero(xs.d), hostSR.CountNonzero(xs.h); got != want {
				t.Errorf("%s CountNonzero: %d on the GPU, %d on the CPU", name, got, want)
			}

			// Prod of floats near 1 (a product that neither overflows nor
			// vanishes), and of the inputs themselves (integers wrap).
			px := append([]T(nil), x...)
			if dt.IsFloat() && !special {
				for i := range px {
					px[i] = T(1 + float64(px[i])/1e7)
				}
			}
			ps := newPair(t, b, px)
			if got, want := devSR.Prod(ps.d), hostSR.Prod(ps.h); got.DType() != want.DType() || !sameBits(got.Bits(), want.Bits()) &&
				!(math.IsNaN(driver.ValueOf[float64](got)) && math.IsNaN(driver.ValueOf[float64](want))) {
				t.Errorf("%s Prod: %v (%v) on the GPU, %v (%v) on the CPU", name, got, got.DType(), want, want.DType())
			}

			// Histogram over ranges that cut the values, with values on
			// the edges.
			hx := make([]T, n)
			r := rand.New(rand.NewPCG(uint64(n), 11))
			for i := range hx {
				if dt.IsFloat() {
					hx[i] = T(float64(r.IntN(300)-40) / 4)
				} else {
					hx[i] = T(int64(r.IntN(300) - 40))
				}
			}
			if special && dt.IsFloat() && n > 3 {
				hx[1], hx[2], hx[3] = T(math.NaN()), T(math.Inf(1)), T(math.Inf(-1))
			}
			hists := []struct {
				bins   int
				lo, hi float64
			}{{7, -3, 50.5}, {1, 0, 1}, {10, 0, 100}, {13, -1e-3, 256}, {3, 0.1, 0.7}, {3, -2.2, 3.3}, {7, 0, 100}, {0, 0, 1}}
			if dt.IsFloat() && n > 0 {
				// The edges and their neighbours, where the bin from
				// (v-lo)*norm needs the correction up or down.
				for _, h := range hists {
					for _, e := range driver.HistogramEdges(h.bins, h.lo, h.hi) {
						hx = append(hx, T(e), T(math.Nextafter(e, math.Inf(1))), T(math.Nextafter(e, math.Inf(-1))))
					}
				}
			}
			hs := newPair(t, b, hx)
			for _, h := range hists {
				want, got := make([]int64, h.bins), make([]int64, h.bins)
				for i := range want {
					want[i], got[i] = int64(i), int64(i) // Histogram adds to the counts
				}
				hostSR.Histogram(want, hs.h, h.lo, h.hi)
				devSR.Histogram(got, hs.d, h.lo, h.hi)
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s Histogram of %d bins over [%v, %v]: %v on the GPU, %v on the CPU", name, h.bins, h.lo, h.hi, got, want)
						break
					}
				}
			}
		}
	}
}

// gpuRatio checks Ratio, with and without the square root, on negative
// numerators, zeros and a zero denominator.
func gpuRatio(t *testing.T, b *cuda.Backend) {
	var c backend.Backend = cpu.Default
	hostSR, devSR := c.(driver.StatsReducer), backend.Backend(b).(driver.StatsReducer)
	for _, n := range []int{0, 1, 301} {
		num := statsInputs[float64](n, true, 77)
		for _, den := range []float64{3, 0.1, 0, -2, math.Inf(1)} {
			for _, sq := range []bool{false, true} {
				x := newPair(t, b, num)
				dst := filled[float64](t, b, n, 4)
				hostSR.Ratio(dst.h, x.h, den, sq)
				devSR.Ratio(dst.d, x.d, den, sq)
				compareBuf[float64](t, b, fmt.Sprintf("Ratio of %d by %v, sqrt %v", n, den, sq), dst.d, dst.h)
			}
		}
	}
}

// gpuCombineMoments checks CombineMoments on parts whose moments the CPU
// backend computed, with empty parts (first, in the middle and all of
// them) and large means.
func gpuCombineMoments(t *testing.T, b *cuda.Backend) {
	var c backend.Backend = cpu.Default
	hostSR, devSR := c.(driver.StatsReducer), backend.Backend(b).(driver.StatsReducer)
	const m = 5
	for _, counts := range [][]int{{}, {0}, {4}, {3, 0, 7}, {0, 2, 1, 0, 9}, {1, 1, 1, 1}} {
		var all []float64
		for q, nq := range counts {
			x := statsInputs[float64](nq*m, false, uint64(q))
			for i := range x {
				x[i] += 1e5 * float64(q+1)
			}
			mom := make([]float64, 3*m)
			hostSR.MomentsAxis(driver.HostBufferOf(mom), driver.HostBufferOf(x), 1, nq, m)
			all = append(all, mom...)
		}
		a := newPair(t, b, all)
		mom := filled[float64](t, b, 3*m, 6)
		hostSR.CombineMoments(mom.h, a.h, counts)
		devSR.CombineMoments(mom.d, a.d, counts)
		compareBuf[float64](t, b, fmt.Sprintf("CombineMoments of parts of %v", counts), mom.d, mom.h)
	}
}
