package backendtest

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

func testAxisReducer(t *testing.T, b driver.Backend) {
	a := b.(driver.AxisReducer)
	t.Run("float64", func(t *testing.T) { axisFloat[float64](t, b, a); extremes[float64](t, b, a) })
	t.Run("float32", func(t *testing.T) { axisFloat[float32](t, b, a); extremes[float32](t, b, a) })
	t.Run("int32", func(t *testing.T) { axisInt[int32](t, b, a); extremes[int32](t, b, a) })
	t.Run("uint8", func(t *testing.T) { axisInt[uint8](t, b, a); extremes[uint8](t, b, a) })
	t.Run("int64", func(t *testing.T) { axisInt[int64](t, b, a); extremes[int64](t, b, a) })
}

func shapeName(s [3]int) string { return fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]) }

func axisFloat[T backend.Float](t *testing.T, b driver.Backend, a driver.AxisReducer) {
	for _, s := range axisShapes {
		pre, n, post := s[0], s[1], s[2]
		r := rng(t, pre*n*post)
		x := randFloats[T](r, pre*n*post)
		bx, bd := up(t, b, x), zeros[float64](t, b, pre*post)
		for _, squares := range []bool{false, true} {
			want := make([]float64, pre*post)
			abs := make([]float64, pre*post)
			for i := 0; i < pre; i++ {
				for j := 0; j < post; j++ {
					var acc, sa float64
					for k := 0; k < n; k++ {
						v := float64(x[(i*n+k)*post+j])
						if squares {
							v *= v
						}
						acc += v
						sa += math.Abs(v)
					}
					want[i*post+j], abs[i*post+j] = acc, sa
				}
			}
			a.SumAxis(bd, bx, pre, n, post, squares)
			got := down[float64](t, b, bd)
			for i := range got {
				// In the order of k in float64: bitwise for sums, and within
				// an ulp per term for squares (a device may fuse the
				// multiply-add).
				tol := 0.0
				if squares {
					tol = 2 * eps[float64]() * abs[i]
				}
				if !(math.Abs(got[i]-want[i]) <= tol) {
					t.Errorf("SumAxis(%s, squares %v)[%d] = %v, want %v", shapeName(s), squares, i, got[i], want[i])
					break
				}
			}
			// CastSums of the float64 sums, with and without the square root.
			for _, sq := range []bool{false, true} {
				bc := zeros[T](t, b, pre*post)
				a.CastSums(bc, bd, sq)
				wc := make([]T, pre*post)
				for i, v := range got {
					if sq {
						v = math.Sqrt(v)
					}
					wc[i] = T(v)
				}
				checkSame(t, fmt.Sprintf("CastSums(%s, sqrt %v)", shapeName(s), sq), down[T](t, b, bc), wc)
				freeAll(b, bc)
			}
		}
		freeAll(b, bx, bd)
	}
}

func axisInt[T backend.Element](t *testing.T, b driver.Backend, a driver.AxisReducer) {
	for _, s := range axisShapes {
		pre, n, post := s[0], s[1], s[2]
		r := rng(t, pre*n*post)
		x := make([]T, pre*n*post)
		for i := range x {
			x[i] = T(r.Uint64())
		}
		bx, bd := up(t, b, x), zeros[T](t, b, pre*post)
		for _, squares := range []bool{false, true} {
			want := make([]T, pre*post)
			for i := 0; i < pre; i++ {
				for j := 0; j < post; j++ {
					var acc T
					for k := 0; k < n; k++ {
						v := x[(i*n+k)*post+j]
						if squares {
							v *= v
						}
						acc += v
					}
					want[i*post+j] = acc
				}
			}
			a.SumAxis(bd, bx, pre, n, post, squares)
			checkSame(t, fmt.Sprintf("SumAxis(%s, squares %v)", shapeName(s), squares), down[T](t, b, bd), want)
		}
		freeAll(b, bx, bd)
	}
}

// extremeRef returns the first best of the values and its index in the
// order of algorithms.Better: -1 and a zero value where there are none.
func extremeRef[T backend.Element](vals []T, idx []int64, max bool) (T, int64) {
	var bv T
	bi := int64(-1)
	for k, v := range vals {
		if algorithms.Better(v, idx[k], bv, bi, max) {
			bv, bi = v, idx[k]
		}
	}
	if bi < 0 {
		var z T
		return z, -1
	}
	return bv, bi
}

func extremes[T backend.Element](t *testing.T, b driver.Backend, a driver.AxisReducer) {
	const offset = 1000
	for _, s := range axisShapes {
		pre, n, post := s[0], s[1], s[2]
		r := rng(t, pre*n*post)
		x := randSmall[T](r, pre*n*post, 0, 4) // many ties: the first wins
		if backend.DTypeOf[T]().IsFloat() && len(x) > 7 {
			x[3], x[7] = T(math.NaN()), T(math.NaN())
		}
		bx := up(t, b, x)
		vals, idx := zeros[T](t, b, pre*post), zeros[int64](t, b, pre*post)
		for _, max := range []bool{false, true} {
			wv, wi := make([]T, pre*post), make([]int64, pre*post)
			line, li := make([]T, n), make([]int64, n)
			for i := 0; i < pre; i++ {
				for j := 0; j < post; j++ {
					for k := 0; k < n; k++ {
						line[k], li[k] = x[(i*n+k)*post+j], offset+int64(k)
					}
					wv[i*post+j], wi[i*post+j] = extremeRef(line, li, max)
				}
			}
			a.ExtremeAxis(vals, idx, bx, pre, n, post, offset, max)
			what := fmt.Sprintf("ExtremeAxis(%s, max %v)", shapeName(s), max)
			checkSame(t, what+" values", down[T](t, b, vals), wv)
			checkSame(t, what+" indices", down[int64](t, b, idx), wi)
		}
		freeAll(b, bx, vals, idx)
	}
	// CombineExtremes of p parts of m results, some parts empty (-1).
	for _, pm := range [][2]int{{1, 1}, {3, 4}, {4, 1}, {2, 0}} {
		p, m := pm[0], pm[1]
		r := rng(t, p*m)
		av := randSmall[T](r, p*m, 0, 3)
		ai := make([]int64, p*m)
		for i := range ai {
			ai[i] = int64(r.IntN(50)) - 5 // some below 0: no value
			if ai[i] < 0 {
				ai[i] = -1
			}
		}
		bav, bai := up(t, b, av), up(t, b, ai)
		vals, idx := zeros[T](t, b, m), zeros[int64](t, b, m)
		for _, max := range []bool{false, true} {
			wv, wi := make([]T, m), make([]int64, m)
			for j := 0; j < m; j++ {
				col, ci := make([]T, p), make([]int64, p)
				for q := 0; q < p; q++ {
					col[q], ci[q] = av[q*m+j], ai[q*m+j]
				}
				wv[j], wi[j] = extremeRef(col, ci, max)
			}
			a.CombineExtremes(vals, idx, bav, bai, p, max)
			gv, gi := down[T](t, b, vals), down[int64](t, b, idx)
			for j := range wi {
				// Where no part has a value, the value is unspecified.
				if wi[j] < 0 {
					gv[j] = wv[j]
				}
			}
			what := fmt.Sprintf("CombineExtremes(p=%d, m=%d, max %v)", p, m, max)
			checkSame(t, what+" values", gv, wv)
			checkSame(t, what+" indices", gi, wi)
		}
		freeAll(b, bav, bai, vals, idx)
	}
}

func testStatsReducer(t *testing.T, b driver.Backend) {
	s := b.(driver.StatsReducer)
	t.Run("Moments", func(t *testing.T) { moments[float64](t, b, s); moments[float32](t, b, s); moments[int32](t, b, s) })
	t.Run("Prod", func(t *testing.T) {
		prodFloat[float64](t, b, s)
		prodFloat[float32](t, b, s)
		prodInt[int32](t, b, s)
		prodInt[uint16](t, b, s)
	})
	t.Run("CountNonzero", func(t *testing.T) { countNonzero[float64](t, b, s); countNonzero[int8](t, b, s) })
	t.Run("Histogram", func(t *testing.T) {
		histogram[float64](t, b, s)
		histogram[float32](t, b, s)
		histogram[int32](t, b, s)
	})
	t.Run("ScanAxis", func(t *testing.T) {
		scan[float64](t, b, s)
		scan[float32](t, b, s)
		scan[int32](t, b, s)
		scan[uint8](t, b, s)
	})
	t.Run("Ratio", func(t *testing.T) { ratio(t, b, s) })
}

// refMoments returns the sum, the sum of squared deviations from the mean
// and the sum of absolute values of x.
func refMoments(x []float64) (sum, m2, abs float64) {
	for _, v := range x {
		sum += v
		abs += math.Abs(v)
	}
	if len(x) == 0 {
		return 0, 0, 0
	}
	mean := sum / float64(len(x))
	for _, v := range x {
		m2 += (v - mean) * (v - mean)
	}
	return sum, m2, abs
}

func closeTo(got, want, scale float64) bool { return math.Abs(got-want) <= 1e-12*scale }

func moments[T backend.Element](t *testing.T, b driver.Backend, s driver.StatsReducer) {
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x := randSmall[T](r, n, 1, 100)
		f := make([]float64, n)
		for i, v := range x {
			f[i] = float64(v) + 1e6 // a large mean costs no precision
			x[i] = T(f[i])
		}
		for i := range f {
			f[i] = float64(x[i])
		}
		bx := up(t, b, x)
		sum, dev, m2 := s.Moments(bx)
		ws, wm2, abs := refMoments(f)
		if !closeTo(sum, ws, abs) || !closeTo(m2, wm2, wm2+1) || !closeTo(dev, 0, abs) {
			t.Errorf("Moments of %d %v: sum %v dev %v m2 %v, want sum %v dev ~0 m2 %v", n, backend.DTypeOf[T](), sum, dev, m2, ws, wm2)
		}
		freeAll(b, bx)
	}
	for _, sh := range axisShapes {
		pre, n, post := sh[0], sh[1], sh[2]
		r := rng(t, pre*n*post)
		x := randSmall[T](r, pre*n*post, 1, 100)
		bx, bm := up(t, b, x), zeros[float64](t, b, 3*pre*post)
		s.MomentsAxis(bm, bx, pre, n, post)
		got := down[float64](t, b, bm)
		m := pre * post
		line := make([]float64, n)
		for i := 0; i < pre; i++ {
			for j := 0; j < post; j++ {
				for k := range line {
					line[k] = float64(x[(i*n+k)*post+j])
				}
				ws, wm2, abs := refMoments(line)
				q := i*post + j
				if !closeTo(got[q], ws, abs) || !closeTo(got[2*m+q], wm2, wm2+1) {
					t.Errorf("MomentsAxis(%s)[%d]: sum %v m2 %v, want %v and %v", shapeName(sh), q, got[q], got[2*m+q], ws, wm2)
				}
			}
		}
		// CombineMoments: split each line's n elements into parts of
		// counts (an empty part among them), take each part's moments
		// here, and combine them.
		counts := []int{n / 3, 0, n - n/3}
		all := make([]float64, 0, 3*m*len(counts))
		start := 0
		for _, c := range counts {
			row := make([]float64, 3*m)
			part := make([]float64, c)
			for i := 0; i < pre; i++ {
				for j := 0; j < post; j++ {
					for k := range part {
						part[k] = float64(x[(i*n+start+k)*post+j])
					}
					ps, pm2, _ := refMoments(part)
					row[i*post+j], row[2*m+i*post+j] = ps, pm2
				}
			}
			all = append(all, row...)
			start += c
		}
		ba, bc := up(t, b, all), zeros[float64](t, b, 3*m)
		s.CombineMoments(bc, ba, counts)
		comb := down[float64](t, b, bc)
		for q := 0; q < m; q++ {
			if !closeTo(comb[q], got[q], math.Abs(got[q])+1) || !closeTo(comb[2*m+q], got[2*m+q], got[2*m+q]+1) {
				t.Errorf("CombineMoments(%s, counts %v)[%d]: sum %v m2 %v, want %v and %v", shapeName(sh), counts, q, comb[q], comb[2*m+q], got[q], got[2*m+q])
			}
		}
		freeAll(b, bx, bm, ba, bc)
	}
}

func prodFloat[T backend.Float](t *testing.T, b driver.Backend, s driver.StatsReducer) {
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x := make([]T, n)
		want := 1.0
		for i := range x {
			x[i] = T(0.75 + 0.5*r.Float64())
			want *= float64(x[i])
		}
		bx := up(t, b, x)
		got := s.Prod(bx)
		// Taken in order in float64: bitwise.
		if got.DType() != backend.Float64 || got.Float64() != want {
			t.Errorf("Prod of %d %v = %v (%v), want %v", n, backend.DTypeOf[T](), got, got.DType(), want)
		}
		freeAll(b, bx)
	}
}

func prodInt[T backend.Element](t *testing.T, b driver.Backend, s driver.StatsReducer) {
	signed := backend.DTypeOf[T]().IsSigned()
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x := randSmall[T](r, n, 1, 7) // the product wraps
		var wi int64 = 1
		var wu uint64 = 1
		for _, v := range x {
			wi *= int64(v)
			wu *= uint64(v)
		}
		bx := up(t, b, x)
		got := s.Prod(bx)
		ok := got.DType() == backend.Int64 && got.Int64() == wi
		if !signed {
			ok = got.DType() == backend.Uint64 && got.Uint64() == wu
		}
		if !ok {
			t.Errorf("Prod of %d %v = %v (%v), want %v or %v", n, backend.DTypeOf[T](), got, got.DType(), wi, wu)
		}
		freeAll(b, bx)
	}
}

func countNonzero[T backend.Element](t *testing.T, b driver.Backend, s driver.StatsReducer) {
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x := randSmall[T](r, n, 0, 3)
		if backend.DTypeOf[T]().IsFloat() && n > 3 {
			x[0], x[1] = T(math.NaN()), T(math.Copysign(0, -1)) // NaN counts; -0 does not
		}
		want := 0
		for _, v := range x {
			if v != 0 {
				want++
			}
		}
		bx := up(t, b, x)
		if got := s.CountNonzero(bx); got != want {
			t.Errorf("CountNonzero of %d %v = %d, want %d", n, backend.DTypeOf[T](), got, want)
		}
		freeAll(b, bx)
	}
}

func histogram[T backend.Element](t *testing.T, b driver.Backend, s driver.StatsReducer) {
	float := backend.DTypeOf[T]().IsFloat()
	for _, bins := range []int{1, 3, 10} {
		lo, hi := -2.0, 7.0
		edges := driver.HistogramEdges(bins, lo, hi)
		for _, n := range capSizesOf[T]() {
			r := rng(t, n)
			x := make([]T, n)
			for i := range x {
				if float {
					x[i] = T(lo - 1 + (hi-lo+2)*r.Float64())
				} else {
					x[i] = T(r.IntN(12) - 3)
				}
			}
			// The edges themselves, hi (in the last bin) and NaN.
			for i := 0; i < n && i < len(edges); i++ {
				x[i] = T(edges[i])
			}
			if float && n > len(edges) {
				x[len(edges)] = T(math.NaN())
			}
			want := make([]int64, bins)
			for i := range want {
				want[i] = 1 // Histogram adds to the counts
			}
			for _, v := range x {
				f := float64(v)
				if f != f || f < lo || f > hi {
					continue
				}
				k := sort.Search(bins, func(i int) bool { return f < edges[i+1] })
				if k == bins {
					k = bins - 1 // hi
				}
				want[k]++
			}
			got := make([]int64, bins)
			for i := range got {
				got[i] = 1
			}
			bx := up(t, b, x)
			s.Histogram(got, bx, lo, hi)
			if err := b.Synchronize(); err != nil {
				t.Fatal(err)
			}
			checkSame(t, fmt.Sprintf("Histogram(%d bins) of %d %v", bins, n, backend.DTypeOf[T]()), got, want)
			freeAll(b, bx)
		}
	}
}

func scan[T backend.Element](t *testing.T, b driver.Backend, s driver.StatsReducer) {
	for _, sh := range axisShapes {
		pre, n, post := sh[0], sh[1], sh[2]
		r := rng(t, pre*n*post)
		x := randSmall[T](r, pre*n*post, 1, 3)
		carry := randSmall[T](r, pre*post, 1, 3)
		bx := up(t, b, x)
		for _, prod := range []bool{false, true} {
			for _, withCarry := range []bool{false, true} {
				want, wlast := make([]T, len(x)), make([]T, pre*post)
				for i := 0; i < pre; i++ {
					for j := 0; j < post; j++ {
						var acc T
						if prod {
							acc = 1
						}
						if withCarry {
							acc = carry[i*post+j]
						}
						for k := 0; k < n; k++ {
							q := (i*n+k)*post + j
							if prod {
								acc *= x[q]
							} else {
								acc += x[q]
							}
							want[q] = acc
						}
						wlast[i*post+j] = acc
					}
				}
				var bc driver.Buffer
				if withCarry {
					bc = up(t, b, carry)
				}
				bd, bl := zeros[T](t, b, len(x)), zeros[T](t, b, pre*post)
				s.ScanAxis(bd, bl, bx, bc, pre, n, post, prod)
				what := fmt.Sprintf("ScanAxis(%s, prod %v, carry %v)", shapeName(sh), prod, withCarry)
				checkSame(t, what, down[T](t, b, bd), want)
				checkSame(t, what+" last", down[T](t, b, bl), wlast)
				// dst nil: last alone.
				freeAll(b, bl)
				bl = zeros[T](t, b, pre*post)
				s.ScanAxis(nil, bl, bx, bc, pre, n, post, prod)
				checkSame(t, what+" last without dst", down[T](t, b, bl), wlast)
				freeAll(b, bd, bl, bc)
			}
		}
		freeAll(b, bx)
	}
}

func ratio(t *testing.T, b driver.Backend, s driver.StatsReducer) {
	for _, n := range capSizesOf[float64]() {
		r := rng(t, n)
		num := make([]float64, n)
		for i := range num {
			num[i] = 100 * r.Float64()
		}
		bn, bd := up(t, b, num), zeros[float64](t, b, n)
		for _, sq := range []bool{false, true} {
			want := make([]float64, n)
			for i, v := range num {
				want[i] = v / 7
				if sq {
					want[i] = math.Sqrt(want[i])
				}
			}
			s.Ratio(bd, bn, 7, sq)
			checkSame(t, fmt.Sprintf("Ratio(sqrt %v) of %d", sq, n), down[float64](t, b, bd), want)
		}
		freeAll(b, bn, bd)
	}
}
