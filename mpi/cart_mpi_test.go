//go:build mpi || petsc

package mpi_test

import (
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
)

// checkCartLibrary compares g's coordinates and unit shifts with the
// library's MPI_Cart_coords and MPI_Cart_shift.
func checkCartLibrary(t *testing.T, g *mpi.Cart, name string) {
	t.Helper()
	coords, srcs, dsts, err := mpi.LibCartQuery(g, len(g.Dims()), 1)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for r, co := range coords {
		if !slices.Equal(co, g.Coords(r)) {
			t.Errorf("%s: Coords(%d) = %v, the library says %v", name, r, g.Coords(r), co)
		}
	}
	for d := range g.Dims() {
		s, dd := g.Shift(d, 1)
		if s != srcs[d] || dd != dsts[d] {
			t.Errorf("%s: Shift(%d, 1) = %d, %d; the library says %d, %d", name, d, s, dd, srcs[d], dsts[d])
		}
	}
}

// TestDimsCreateLibrary compares DimsCreate with the library's
// MPI_Dims_create: never less balanced (the spread between the largest and
// the smallest dimension), and the same grid wherever the library's is as
// balanced, except for ties it breaks another way.
func TestDimsCreateLibrary(t *testing.T) {
	differ := 0
	for n := 1; n <= 128; n++ {
		for nd := 1; nd <= 4; nd++ {
			want, err := mpi.LibDimsCreate(n, nd)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := mpi.DimsCreate(n, nd, nil)
			spread := func(d []int) int { return slices.Max(d) - slices.Min(d) }
			switch {
			case spread(got) > spread(want):
				t.Errorf("DimsCreate(%d, %d) = %v, less balanced than the library's %v", n, nd, got, want)
			case !slices.Equal(got, want):
				differ++
				if testing.Verbose() {
					t.Logf("DimsCreate(%d, %d) = %v, the library says %v", n, nd, got, want)
				}
			}
		}
	}
	t.Logf("%d of 512 grids differ from the library's, each more balanced", differ)
}
