package chunks

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
)

func TestDefault(t *testing.T) {
	for _, tc := range []struct {
		l     dist.Layout
		limit int64
		want  []int
	}{
		{dist.NewLayout([]int{7, 5}, 0, 2), MaxBytes, []int{4, 5}},
		{dist.NewLayout([]int{7, 5}, 1, 3), MaxBytes, []int{7, 2}},
		{dist.NewLayout([]int{0, 5}, 0, 3), MaxBytes, []int{1, 5}},
		{dist.NewLayout([]int{7, 5}, dist.Replicated, 3), MaxBytes, []int{7, 5}},
		{dist.NewGridLayout([]int{9, 10}, []int{2, 2}), MaxBytes, []int{5, 5}},
		{dist.NewGridLayout([]int{9, 10}, []int{1, 2}), MaxBytes, []int{9, 5}},
		// 128 MiB of float64 per block: the axis that is not split halved
		// first, to 64 MiB under a 64 MiB limit, to 16 MiB under 16 MiB.
		{dist.NewLayout([]int{1 << 12, 1 << 13}, 0, 2), 64 << 20, []int{2048, 4096}},
		{dist.NewLayout([]int{1 << 12, 1 << 13}, 0, 2), MaxBytes, []int{2048, 1024}},
		// Then the split one, once the others are down to 1.
		{dist.NewLayout([]int{1 << 22, 2}, 0, 1), MaxBytes, []int{1 << 21, 1}},
	} {
		if got := Default(tc.l, 8, tc.limit); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%v, limit %d: chunks %v, want %v", tc.l, tc.limit, got, tc.want)
		}
	}
}
