//go:build hdf5 && mpi && !mpich

package h5

import (
	"math"
	"strings"
	"testing"
)

// TestCompareBox: the read-back check finds a changed element inside the
// box, at its global index, and ignores what lies outside the box; NaNs
// compare by their bits.
func TestCompareBox(t *testing.T) {
	host := []float64{0, 1, 2, 3, 4, 5, math.NaN(), 7, 8, 9, 10, 11} // 3 x 4
	back := []float64{5, math.NaN(), 9, 10}                          // the box [1:3, 1:3]
	if err := compareBox(host, []int{3, 4}, []int{1, 1}, back, []int{2, 2}, []int{1, 1}); err != nil {
		t.Fatal(err)
	}
	back[2] = -9
	err := compareBox(host, []int{3, 4}, []int{1, 1}, back, []int{2, 2}, []int{1, 1})
	if err == nil || !strings.Contains(err.Error(), "element [2 1] reads back as -9, written as 9") {
		t.Fatalf("got %v", err)
	}
	back[2], back[3] = 9, -10
	err = compareBox(host, []int{3, 4}, []int{1, 1}, back, []int{2, 2}, []int{1, 1})
	if err == nil || !strings.Contains(err.Error(), "element [2 2] reads back as -10, written as 10") {
		t.Fatalf("second in its row: got %v", err)
	}
}
