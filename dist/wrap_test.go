package dist_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// FromLocal makes an array over blocks that exist, sharing their memory,
// for every shape and axis; a block of the wrong length panics.
func TestFromLocal(t *testing.T) {
	c := mpitest.World(t)
	for _, shape := range shapes {
		for _, axis := range axes(shape) {
			l := dist.NewLayout(shape, axis, c.Size())
			mem := make([]float64, l.LocalLen(c.Rank()))
			a := dist.FromLocal(c, l, backend.Wrap(mem))
			if !a.Layout().Equal(l) {
				t.Fatalf("%v axis %d: layout %v", shape, axis, a.Layout())
			}
			ref := refArray(t, c, shape, axis)
			copy(mem, ref.LocalData())
			if len(mem) > 0 && &a.LocalData()[0] != &mem[0] {
				t.Fatalf("%v axis %d: the block is a copy", shape, axis)
			}
			got, err := dist.Allgather(a)
			if err != nil {
				t.Fatal(err)
			}
			want, err := dist.Allgather(ref)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%v axis %d: gathered %v, want %v", shape, axis, got, want)
			}
			// Free releases nothing of the caller's memory.
			a.Free()
			if len(mem) > 0 {
				mem[0]++
			}
		}
	}
	l := dist.NewLayout([]int{7}, 0, c.Size())
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(fmt.Sprint(r), "dist: FromLocal") {
				t.Errorf("a block of the wrong length: recovered %v, want a dist: FromLocal panic", r)
			}
		}()
		dist.FromLocal(c, l, backend.Wrap(make([]float64, l.LocalLen(c.Rank())+1)))
	}()
}
