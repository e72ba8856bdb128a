package backendtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

func testConverter(t *testing.T, b driver.Backend) {
	c := b.(driver.Converter)
	t.Run("float64", func(t *testing.T) { convSuite[float64](t, b, c) })
	t.Run("float32", func(t *testing.T) { convSuite[float32](t, b, c) })
	t.Run("int64", func(t *testing.T) { convSuite[int64](t, b, c) })
	t.Run("uint8", func(t *testing.T) { convSuite[uint8](t, b, c) })
	t.Run("int16", func(t *testing.T) { convSuite[int16](t, b, c) })
	t.Run("Convert", func(t *testing.T) {
		convert[float64, int32](t, b, c)
		convert[int32, float64](t, b, c)
		convert[float64, float32](t, b, c)
		convert[uint8, int64](t, b, c)
		convert[int16, uint16](t, b, c)
	})
}

// compareRef is Go's comparison, NumPy's rule for NaN included.
func compareRef[T backend.Element](op driver.CompareOp, a, b T) uint8 {
	var r bool
	switch op {
	case driver.Less:
		r = a < b
	case driver.LessEqual:
		r = a <= b
	case driver.Greater:
		r = a > b
	case driver.GreaterEqual:
		r = a >= b
	case driver.Equal:
		r = a == b
	case driver.NotEqual:
		r = a != b
	}
	if r {
		return 1
	}
	return 0
}

func convSuite[T backend.Element](t *testing.T, b driver.Backend, c driver.Converter) {
	float := backend.DTypeOf[T]().IsFloat()
	for _, n := range capSizesOf[T]() {
		r := rng(t, n)
		x, y := randSmall[T](r, n, 0, 5), randSmall[T](r, n, 0, 5)
		if float && n > 4 {
			x[0], y[1], x[2], y[2] = T(math.NaN()), T(math.NaN()), T(math.Inf(1)), T(math.Inf(1))
		}
		bx, by, bm := up(t, b, x), up(t, b, y), zeros[uint8](t, b, n)
		want := make([]uint8, n)
		for op := driver.Less; op <= driver.NotEqual; op++ {
			for i := range x {
				want[i] = compareRef(op, x[i], y[i])
			}
			c.Compare(op, bm, bx, by)
			checkSame(t, fmt.Sprintf("Compare(%v) of %d elements", op, n), down[uint8](t, b, bm), want)
			for _, s := range []T{2, T(math.NaN())} {
				if !float && s != s {
					continue
				}
				for i := range x {
					want[i] = compareRef(op, x[i], s)
				}
				c.CompareScalar(op, bm, bx, driver.ScalarOf(s))
				checkSame(t, fmt.Sprintf("CompareScalar(%v, %v) of %d elements", op, s, n), down[uint8](t, b, bm), want)
			}
		}
		// A mask with bytes other than 0 and 1: any nonzero byte is true.
		mask := randSmall[uint8](r, n, 0, 3)
		for i := range mask {
			mask[i] *= 100
		}
		freeAll(b, bm)
		bm = up(t, b, mask)
		bd := zeros[T](t, b, n)
		wantW := make([]T, n)
		var kept []T
		for i := range x {
			wantW[i] = y[i]
			if mask[i] != 0 {
				wantW[i] = x[i]
				kept = append(kept, x[i])
			}
		}
		c.Where(bd, bm, bx, by)
		checkSame(t, fmt.Sprintf("Where of %d elements", n), down[T](t, b, bd), wantW)
		// dst is a: in place.
		c.Where(bx, bm, bx, by)
		checkSame(t, fmt.Sprintf("Where in place of %d elements", n), down[T](t, b, bx), wantW)
		freeAll(b, bx)
		bx = up(t, b, x)
		bc := zeros[T](t, b, n)
		k := c.Compress(bc, bx, bm)
		if k != len(kept) {
			t.Errorf("Compress of %d elements kept %d, want %d", n, k, len(kept))
		} else {
			checkSame(t, fmt.Sprintf("Compress of %d elements", n), down[T](t, b, bc)[:k], kept)
		}
		freeAll(b, bx, by, bm, bd, bc)
	}
}

// convert checks Convert from S to D on values that both types hold
// exactly (out-of-range conversions are undefined in NumPy too).
func convert[S, D backend.Element](t *testing.T, b driver.Backend, c driver.Converter) {
	for _, n := range capSizesOf[S]() {
		r := rng(t, n)
		x := randSmall[S](r, n, 0, 100)
		want := make([]D, n)
		for i, v := range x {
			want[i] = D(v)
		}
		bx, bd := up(t, b, x), zeros[D](t, b, n)
		c.Convert(bd, bx)
		checkSame(t, fmt.Sprintf("Convert %v to %v of %d elements", backend.DTypeOf[S](), backend.DTypeOf[D](), n), down[D](t, b, bd), want)
		freeAll(b, bx, bd)
	}
}
