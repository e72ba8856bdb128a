package dist_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// plainBackend is the fake device without its optional interfaces: a
// backend with no weighted stencils, as CUDA is.
type plainBackend struct{ backend.Backend }

// stencilCase is a stencil over an array of small integers, whose results
// are exact in any order of summation.
type stencilCase struct {
	shape    []int
	w        int
	periodic bool
}

func (sc stencilCase) String() string {
	return fmt.Sprintf("%v/w%d/periodic=%v", sc.shape, sc.w, sc.periodic)
}

func stencilCases(dims int) []stencilCase {
	var cs []stencilCase
	rows := []int{0, 1, 2, 3, 5, 7}
	others := [][]int{{1}, {3}, {4}}
	if dims == 3 {
		others = [][]int{{1, 3}, {3, 3}, {4, 5}}
	}
	for _, n := range rows {
		for _, o := range others {
			for _, w := range []int{1, 2} {
				for _, per := range []bool{false, true} {
					cs = append(cs, stencilCase{append([]int{n}, o...), w, per})
				}
			}
		}
	}
	return cs
}

// stencilValue is the element of the source array at a global index.
func stencilValue(idx []int) float64 {
	v := 0
	for d, i := range idx {
		v = v*13 + i*(2*d+3)
	}
	return float64(v%11 - 5)
}

// Boundary values of the ghosts outside the array, and the marker of
// elements a stencil must leave alone.
const (
	lowBoundary  = 3
	highBoundary = -2
	untouched    = 99
)

// at returns the source value at idx, whose first index may lie outside
// the array: wrapped (periodic) or a boundary value.
func (sc stencilCase) at(idx []int) float64 {
	n := sc.shape[0]
	i := idx[0]
	switch {
	case i >= 0 && i < n:
	case sc.periodic:
		idx = append([]int{(i%n + n) % n}, idx[1:]...)
	case i < 0:
		return lowBoundary
	default:
		return highBoundary
	}
	return stencilValue(idx)
}

// run makes src and dst for the case on backend b, exchanges src, applies
// op and checks dst's block against want (untouched where want says so).
func (sc stencilCase) run(t *testing.T, b backend.Backend, op func(dst, src *dist.Array[float64]) error, want func(idx []int) (float64, bool)) {
	t.Helper()
	c := mpitest.World(t)
	opts := []dist.Option{dist.Ghosts(sc.w), dist.OnBackend(b)}
	if sc.periodic {
		opts = append(opts, dist.Periodic())
	}
	src, err := dist.FromFunc(c, sc.shape, stencilValue, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Free()
	dst, err := dist.Full(c, sc.shape, float64(untouched), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Free()
	dist.FillBoundary(src, lowBoundary, highBoundary)
	if err := src.Exchange(); err != nil {
		t.Fatal(err)
	}
	if err := op(dst, src); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, dst.Local().Len())
	if err := backend.CopyToHostSlice(got, dst.Local()); err != nil {
		t.Fatal(err)
	}
	lo, _ := dst.Range()
	ls := dst.LocalShape()
	exp := make([]float64, len(got))
	for i := range exp {
		idx := dist.Unravel(i, ls)
		idx[0] += lo
		v, ok := want(idx)
		if !ok {
			v = untouched
		}
		exp[i] = v
	}
	mpitest.Check(t, c, slices.Equal(got, exp), "block %v, want %v", got, exp)
}

// interior reports whether idx is inside along every axis but the first.
func (sc stencilCase) interior(idx []int) bool {
	for d := 1; d < len(idx); d++ {
		if idx[d] < 1 || idx[d] >= sc.shape[d]-1 {
			return false
		}
	}
	return true
}

func (sc stencilCase) near(idx []int, d, k int) float64 {
	j := slices.Clone(idx)
	j[d] += k
	return sc.at(j)
}

var stencilBackends = map[string]backend.Backend{"cpu": cpu.Default, "fakedev": fakedev.Default}

func TestStencils5(t *testing.T) {
	for _, bname := range slices.Sorted(maps.Keys(stencilBackends)) { // the same order on every rank
		b := stencilBackends[bname]
		for _, sc := range stencilCases(2) {
			t.Run(bname+"/"+sc.String(), func(t *testing.T) {
				t.Run("Jacobi5", func(t *testing.T) {
					sc.run(t, b, func(d, s *dist.Array[float64]) error { dist.Jacobi5(d, s); return nil }, func(idx []int) (float64, bool) {
						return 0.25 * (sc.near(idx, 0, -1) + sc.near(idx, 0, 1) + sc.near(idx, 1, -1) + sc.near(idx, 1, 1)), sc.interior(idx)
					})
				})
				laplace := func(idx []int) (float64, bool) {
					return 4*sc.at(idx) - sc.near(idx, 0, -1) - sc.near(idx, 0, 1) - sc.near(idx, 1, -1) - sc.near(idx, 1, 1), sc.interior(idx)
				}
				t.Run("Laplace5", func(t *testing.T) {
					sc.run(t, b, func(d, s *dist.Array[float64]) error { dist.Laplace5(d, s); return nil }, laplace)
				})
				t.Run("ApplyStencil", func(t *testing.T) {
					sc.run(t, b, func(d, s *dist.Array[float64]) error {
						return dist.ApplyStencil(d, s, 1, func(dv, sv *backend.Array[float64], rows, cols int) error {
							return kernels.Laplace5Kernel.Call(kernels.Int(rows), kernels.Int(cols), kernels.Array(dv), kernels.Array(sv))
						})
					}, laplace)
				})
			})
		}
	}
}

func TestStencil9(t *testing.T) {
	w := [3][3]float64{{1, -2, 3}, {0.5, -4, 2}, {-1, 6, 0.25}}
	backends := map[string]backend.Backend{"cpu": cpu.Default, "fakedev": fakedev.Default, "plain": plainBackend{fakedev.Default}}
	for _, bname := range slices.Sorted(maps.Keys(backends)) { // the same order on every rank
		b := backends[bname]
		for _, sc := range stencilCases(2) {
			t.Run(bname+"/"+sc.String(), func(t *testing.T) {
				sc.run(t, b, func(d, s *dist.Array[float64]) error { return dist.Stencil9(d, s, w) }, func(idx []int) (float64, bool) {
					sum := 0.0
					for a := range 3 {
						for bb := range 3 {
							j := []int{idx[0] + a - 1, idx[1] + bb - 1}
							sum += w[a][bb] * sc.at(j)
						}
					}
					return sum, sc.interior(idx)
				})
			})
		}
	}
}

func TestStencil7(t *testing.T) {
	w := [7]float64{-6, 1, 2, 0.5, -1, 3, 0.25}
	backends := map[string]backend.Backend{"cpu": cpu.Default, "fakedev": fakedev.Default, "plain": plainBackend{fakedev.Default}}
	for _, bname := range slices.Sorted(maps.Keys(backends)) { // the same order on every rank
		b := backends[bname]
		for _, sc := range stencilCases(3) {
			t.Run(bname+"/"+sc.String(), func(t *testing.T) {
				sc.run(t, b, func(d, s *dist.Array[float64]) error { return dist.Stencil7(d, s, w) }, func(idx []int) (float64, bool) {
					v := w[0] * sc.at(idx)
					for d := range 3 {
						v += w[1+2*d]*sc.near(idx, d, -1) + w[2+2*d]*sc.near(idx, d, 1)
					}
					return v, sc.interior(idx)
				})
			})
		}
	}
}

// TestStencilFallbackCopies checks that a backend without weighted
// stencils has the blocks copied to the host and back, recorded, and that
// one with them copies nothing.
func TestStencilFallbackCopies(t *testing.T) {
	c := mpitest.World(t)
	for _, b := range []backend.Backend{fakedev.Default, plainBackend{fakedev.Default}} {
		x, err := dist.Full(c, []int{6, 4}, 1.0, dist.Ghosts(1), dist.OnBackend(b))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := dist.ZerosLike(x)
		cnt := profiling.Count()
		err = dist.Stencil9(y, x, [3][3]float64{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}})
		cnt.Stop()
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := x.Range()
		toHost, toDevice := 0, 0
		if _, plain := b.(plainBackend); plain && hi > lo {
			toHost, toDevice = 2, 1
		}
		if cnt.Count(profiling.ToHost) != toHost || cnt.Count(profiling.ToDevice) != toDevice {
			t.Errorf("%s: %d copies to the host, %d to the device, want %d and %d", b.Name(), cnt.Count(profiling.ToHost), cnt.Count(profiling.ToDevice), toHost, toDevice)
		}
		x.Free()
		y.Free()
	}
}

func TestStencilPanics(t *testing.T) {
	c := mpitest.World(t)
	g, _ := dist.Zeros[float64](c, []int{4, 4}, dist.Ghosts(1))
	g2, _ := dist.Zeros[float64](c, []int{4, 4}, dist.Ghosts(1))
	plain, _ := dist.Zeros[float64](c, []int{4, 4})
	three, _ := dist.Zeros[float64](c, []int{4, 4, 4}, dist.Ghosts(1))
	other, _ := dist.Zeros[float64](c, []int{5, 4}, dist.Ghosts(1))
	for name, f := range map[string]func(){
		"no ghosts":      func() { dist.Jacobi5(g, plain) },
		"dst no ghosts":  func() { dist.Laplace5(plain, g) },
		"same array":     func() { dist.Jacobi5(g, g) },
		"3-D Jacobi5":    func() { dist.Jacobi5(three, three) },
		"2-D Stencil7":   func() { dist.Stencil7(g, g2, [7]float64{}) },
		"layouts differ": func() { dist.Jacobi5(g, other) },
		"halo too wide":  func() { dist.ApplyStencil(g, g2, 2, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 6 || s[:6] != "dist: " {
					t.Errorf("panic %v, want one starting with dist:", r)
				}
			}()
			f()
		})
	}
}
