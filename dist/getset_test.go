package dist_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// Set then Get every element of arrays split on each axis and replicated,
// with sizes that leave blocks empty at 3 and 4 ranks.
func TestSetGet(t *testing.T) {
	c := mpitest.World(t)
	for _, shape := range [][]int{{7, 5}, {2, 3}, {1, 4}, {5}} {
		axes := []int{dist.Replicated}
		for a := range shape {
			axes = append(axes, a)
		}
		for _, axis := range axes {
			x, err := dist.Zeros[float64](c, shape, dist.SplitAxis(axis))
			if err != nil {
				t.Fatal(err)
			}
			n := x.Len()
			for i := 0; i < n; i++ {
				if err := dist.Set(x, float64(i)+0.5, dist.Unravel(i, shape)...); err != nil {
					t.Fatal(err)
				}
			}
			all, err := dist.Gather(x, 0)
			if err != nil {
				t.Fatal(err)
			}
			if c.Rank() == 0 {
				for i, v := range all {
					if v != float64(i)+0.5 {
						t.Fatalf("shape %v axis %d: element %d = %v after Set", shape, axis, i, v)
					}
				}
			}
			for i := 0; i < n; i++ {
				v, err := dist.Get(x, dist.Unravel(i, shape)...)
				if err != nil || v != float64(i)+0.5 {
					t.Fatalf("shape %v axis %d: Get %d = %v, %v", shape, axis, i, v, err)
				}
			}
		}
	}
}

// A wrong index panics on every rank with a dist: message, before any
// indexing (Get(x, 3) on a 7x5 array was an index-out-of-range runtime
// error).
func TestGetSetBadIndex(t *testing.T) {
	c := mpitest.World(t)
	x, err := dist.Zeros[int32](c, []int{7, 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		idx  []int
		want string
	}{
		{[]int{3}, "1 indices [3] for an array of shape [7 5]"},
		{[]int{3, 1, 0}, "3 indices"},
		{[]int{7, 0}, "index 7 of dimension 0 out of range [-7, 7)"},
		{[]int{0, -6}, "index -6 of dimension 1 out of range [-5, 5)"}, // -1 is the last, as in NumPy
	} {
		for _, op := range []string{"Get", "Set"} {
			msg := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				if op == "Get" {
					dist.Get(x, tc.idx...)
				} else {
					dist.Set(x, 1, tc.idx...)
				}
				return "no panic"
			}()
			if !strings.HasPrefix(msg, "dist: "+op+": ") || !strings.Contains(msg, tc.want) {
				t.Errorf("%s%v: %q, want a dist: panic with %q", op, tc.idx, msg, tc.want)
			}
		}
	}
}

func TestZeroLayout(t *testing.T) {
	c := mpitest.World(t)
	var l dist.Layout
	if !l.IsZero() || l.Len() != 0 {
		t.Fatalf("zero Layout: IsZero %v, Len %d; want true, 0", l.IsZero(), l.Len())
	}
	if dist.NewLayout([]int{3}, 0, 2).IsZero() {
		t.Fatal("a real layout IsZero")
	}
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		dist.New[float64](c, l)
		return "no panic"
	}()
	if !strings.Contains(msg, "zero Layout") {
		t.Fatalf("New with the zero Layout: %q", msg)
	}
}

// New and NewHalo take the backend as an option, as every constructor does;
// the options that make a layout from a shape are refused there.
func TestNewOptions(t *testing.T) {
	c := mpitest.World(t)
	l := dist.NewLayout([]int{5, 3}, 0, c.Size())
	x, err := dist.New[float64](c, l, dist.OnBackend(fakedev.Default))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	if x.Device() != fakedev.Default.Device() || !x.Layout().Equal(l) {
		t.Errorf("New with OnBackend: %v on %v", x.Layout(), x.Device())
	}
	h, err := dist.NewHalo[float64](c, l, 1, dist.OnBackend(fakedev.Default))
	if err != nil {
		t.Fatal(err)
	}
	if h.Local().Device() != fakedev.Default.Device() {
		t.Errorf("NewHalo with OnBackend: on %v", h.Local().Device())
	}
	h.Free()
	for name, f := range map[string]func(){
		"New with SplitAxis":     func() { dist.New[float64](c, l, dist.SplitAxis(1)) },
		"New with BlockSizes":    func() { dist.New[float64](c, l, dist.BlockSizes(make([]int, c.Size()))) },
		"NewHalo with SplitAxis": func() { dist.NewHalo[float64](c, l, 1, dist.SplitAxis(0)) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, "dist: New") || !strings.Contains(s, "only OnBackend applies") {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			f()
		}()
	}
}

// Lend: Free panics while an array's memory is lent, and works once every
// loan has ended; ending a loan twice panics.
func TestLend(t *testing.T) {
	c := mpitest.World(t)
	x, err := dist.Zeros[float64](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := x.Lend(), x.Lend()
	mustPanicWith := func(want string, f func()) {
		t.Helper()
		defer func() {
			if s, _ := recover().(string); !strings.Contains(s, want) {
				t.Errorf("panic %q, want %q", s, want)
			}
		}()
		f()
	}
	mustPanicWith("lent", x.Free)
	r1()
	mustPanicWith("lent", x.Free)
	r2()
	mustPanicWith("ended twice", r2)
	x.Free()
}
