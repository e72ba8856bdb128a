package zarr

import (
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
)

// TestAlignedLayout checks, for split and grid layouts of many sizes, rank
// counts and chunk lengths, that the aligned layout's blocks are unions of
// whole chunks, so that every chunk lies in exactly one block, and that a
// layout already aligned is kept.
func TestAlignedLayout(t *testing.T) {
	for p := 1; p <= 5; p++ {
		for n := 0; n <= 13; n++ {
			for c := 1; c <= n+2; c++ {
				var ls []dist.Layout
				ls = append(ls, dist.NewLayout([]int{n, 3}, 0, p), dist.NewLayout([]int{3, n}, 1, p))
				counts := make([]int, p)
				counts[p-1] = n
				ls = append(ls, dist.NewLayoutCounts([]int{n, 2}, 0, counts))
				if p > 1 {
					counts = make([]int, p)
					counts[0] = n / 2
					counts[p/2] = n - n/2
					ls = append(ls, dist.NewLayoutCounts([]int{n, 2}, 0, counts))
				}
				dims := []int{p, 1}
				if p == 4 {
					dims = []int{2, 2}
				}
				ls = append(ls, dist.NewGridLayout([]int{n, n + 1}, dims))
				for _, l := range ls {
					chunks := []int{c, c}
					a, same := alignedLayout(l, chunks)
					if msg := wholeChunks(a, chunks); msg != "" {
						t.Fatalf("%v with chunks %v: aligned %v: %s", l, chunks, a, msg)
					}
					if msg := wholeChunks(l, chunks); (msg == "") != same || (same && !a.Equal(l)) {
						t.Fatalf("%v with chunks %v: same=%v, but aligned already: %q", l, chunks, same, msg)
					}
				}
			}
		}
	}
}

// wholeChunks says how l's blocks fail to be unions of whole chunks.
func wholeChunks(l dist.Layout, chunks []int) string {
	shape := l.Shape()
	lo := make([]int, len(shape))
	hi := make([]int, len(shape))
	for a := range shape {
		hi[a] = (shape[a] + chunks[a] - 1) / chunks[a]
	}
	msg := ""
	eachIndex(lo, hi, func(idx []int) error {
		owners := 0
		for r := 0; r < l.Ranks(); r++ {
			start, bshape := l.Block(r)
			inside, meets := true, true
			for a := range idx {
				cs, ce := idx[a]*chunks[a], min((idx[a]+1)*chunks[a], shape[a])
				bs, be := start[a], start[a]+bshape[a]
				if ce <= bs || cs >= be {
					meets = false
				}
				if cs < bs || ce > be {
					inside = false
				}
			}
			if meets && !inside {
				msg = fmt.Sprintf("chunk %v is shared by rank %d's block", idx, r)
			}
			if inside {
				owners++
			}
		}
		if owners != 1 && msg == "" {
			msg = fmt.Sprintf("chunk %v lies in %d blocks", idx, owners)
		}
		return nil
	})
	return msg
}

func TestFillAs(t *testing.T) {
	if v, ok := fillAs[int64](1 << 60); !ok || v != 1<<60 {
		t.Errorf("int64 from 1<<60: %v %v", v, ok)
	}
	if v, ok := fillAs[uint64](1 << 62); !ok || v != 1<<62 {
		t.Errorf("uint64 from 1<<62: %v %v", v, ok)
	}
	if _, ok := fillAs[uint8](256); ok {
		t.Error("uint8 from 256")
	}
	if _, ok := fillAs[int8](-129); ok {
		t.Error("int8 from -129")
	}
	if v, ok := fillAs[int8](-128); !ok || v != -128 {
		t.Errorf("int8 from -128: %v %v", v, ok)
	}
	if _, ok := fillAs[uint32](-1); ok {
		t.Error("uint32 from -1")
	}
	if _, ok := fillAs[float32](0.1); ok {
		t.Error("float32 from 0.1, which it does not hold exactly")
	}
	if v, ok := fillAs[float32](0.5); !ok || v != 0.5 {
		t.Errorf("float32 from 0.5: %v %v", v, ok)
	}
	if v, ok := fillAs[complex64](complex(1, 2)); !ok || v != complex(1, 2) {
		t.Errorf("complex64 from 1+2i: %v %v", v, ok)
	}
	if _, ok := fillAs[int32](2.5); ok {
		t.Error("int32 from 2.5")
	}
}
