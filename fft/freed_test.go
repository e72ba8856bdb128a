package fft

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestFreed checks that every transform of a freed array returns at once,
// on every rank, an error wrapping dist.ErrFreed that names it.
func TestFreed(t *testing.T) {
	c := mpitest.World(t)
	for _, opts := range [][]dist.Option{nil, {dist.SplitAxis(1)}, {dist.ProcessGrid(0, 0)}} {
		a, err := dist.Zeros[complex128](c, []int{4, 6}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		a.Free()
		for _, op := range []struct {
			name string
			f    func() (*dist.Array[complex128], error)
		}{
			{"FFT", func() (*dist.Array[complex128], error) { return FFT(a, 1) }},
			{"IFFT", func() (*dist.Array[complex128], error) { return IFFT(a, 0) }},
			{"FFT2", func() (*dist.Array[complex128], error) { return FFT2(a) }},
			{"IFFT2", func() (*dist.Array[complex128], error) { return IFFT2(a, TransposedOut()) }},
			{"FFTN", func() (*dist.Array[complex128], error) { return FFTN(a, nil, Overwrite()) }},
			{"IFFTN", func() (*dist.Array[complex128], error) { return IFFTN(a, []int{-1}) }},
		} {
			y, err := op.f()
			ok := y == nil && errors.Is(err, dist.ErrFreed) && err.Error() == fmt.Sprintf("fft: %s of a freed array: array used after Free", op.name)
			mpitest.Check(t, c, ok, "%s of a freed array (%v): %v, %v", op.name, a.Layout(), y, err)
		}
	}
}

// TestNegativeAxes checks that FFT, IFFT, FFTN and IFFTN read a negative
// axis as NumPy does, from the end.
func TestNegativeAxes(t *testing.T) {
	c := mpitest.World(t)
	a, err := dist.FromFunc(c, []int{3, 4, 5}, func(idx []int) complex128 {
		return complex(float64(idx[0]*20+idx[1]*5+idx[2]), float64(idx[2]))
	}, dist.SplitAxis(0))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	same := func(x, y *dist.Array[complex128], errx, erry error) bool {
		if errx != nil || erry != nil {
			return false
		}
		defer x.Free()
		defer y.Free()
		gx, err1 := dist.Allgather(x)
		gy, err2 := dist.Allgather(y)
		return err1 == nil && err2 == nil && slices.Equal(gx, gy)
	}
	for axis := 1; axis < 3; axis++ {
		x, errx := FFT(a, axis)
		y, erry := FFT(a, axis-3)
		mpitest.Check(t, c, same(x, y, errx, erry), "FFT along %d and %d differ", axis, axis-3)
	}
	x, errx := IFFTN(a, []int{0, 2})
	y, erry := IFFTN(a, []int{-3, -1})
	mpitest.Check(t, c, same(x, y, errx, erry), "IFFTN over [0 2] and [-3 -1] differ")
}
