package backend_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
)

// gridValue is a small integer, so that the stencils' sums are exact.
func gridValue(i int) float64 { return float64((i*7)%13 - 6) }

func testWeighted[T backend.Float](t *testing.T, b backend.Backend) {
	w9 := [9]T{1, -2, 3, 0.5, -4, 2, -1, 6, 0.25}
	w7 := [7]T{-6, 1, 2, 0.5, -1, 3, 0.25}
	for _, g := range [][3]int{{0, 0, 0}, {2, 5, 1}, {3, 3, 3}, {5, 4, 6}, {4, 7, 2}} {
		n0, n1, n2 := g[0], g[1], g[2]
		n := n0 * n1 * n2
		host := make([]T, n)
		for i := range host {
			host[i] = T(gridValue(i))
		}
		src, _ := backend.NewOn[T](b, n)
		dst, _ := backend.NewOn[T](b, n)
		backend.CopyFromHostSlice(src, host)
		// 9-point, on the grid n0 x (n1*n2).
		rows, cols := n0, n1*n2
		backend.Fill(dst, 99)
		backend.Stencil9(dst, src, rows, cols, w9)
		got := make([]T, n)
		backend.CopyToHostSlice(got, dst)
		for i := range rows {
			for j := range cols {
				want := T(99)
				if i > 0 && i < rows-1 && j > 0 && j < cols-1 {
					want = 0
					for a := range 3 {
						for c := range 3 {
							want += w9[3*a+c] * host[(i+a-1)*cols+j+c-1]
						}
					}
				}
				if got[i*cols+j] != want {
					t.Fatalf("%v Stencil9 %d x %d: [%d][%d] = %v, want %v", b.Name(), rows, cols, i, j, got[i*cols+j], want)
				}
			}
		}
		// 7-point.
		backend.Fill(dst, 99)
		backend.Stencil7(dst, src, n0, n1, n2, w7)
		backend.CopyToHostSlice(got, dst)
		at := func(i, j, k int) T { return host[(i*n1+j)*n2+k] }
		for i := range n0 {
			for j := range n1 {
				for k := range n2 {
					want := T(99)
					if i > 0 && i < n0-1 && j > 0 && j < n1-1 && k > 0 && k < n2-1 {
						want = w7[0]*at(i, j, k) + w7[1]*at(i-1, j, k) + w7[2]*at(i+1, j, k) +
							w7[3]*at(i, j-1, k) + w7[4]*at(i, j+1, k) + w7[5]*at(i, j, k-1) + w7[6]*at(i, j, k+1)
					}
					if g := got[(i*n1+j)*n2+k]; g != want {
						t.Fatalf("%v Stencil7 %v: [%d][%d][%d] = %v, want %v", b.Name(), g, i, j, k, g, want)
					}
				}
			}
		}
		src.Free()
		dst.Free()
	}
}

func TestWeightedStencils(t *testing.T) {
	for _, b := range []backend.Backend{cpu.Default, fakedev.Default} {
		t.Run(fmt.Sprint(b.Name(), "/float64"), func(t *testing.T) { testWeighted[float64](t, b) })
		t.Run(fmt.Sprint(b.Name(), "/float32"), func(t *testing.T) { testWeighted[float32](t, b) })
	}
	// A backend without them panics, naming itself.
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "plain backend has no weighted stencils") {
			t.Errorf("panic %v", r)
		}
	}()
	x, _ := backend.NewOn[float64](plain{cpu.Default}, 9)
	y, _ := backend.NewOn[float64](plain{cpu.Default}, 9)
	backend.Stencil9(x, y, 3, 3, [9]float64{})
}
