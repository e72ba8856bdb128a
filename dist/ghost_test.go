package dist_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
)

// ghostCase is an exchange of the ghost layers of an array split along
// axis 0.
type ghostCase struct {
	shape    []int
	w        int
	periodic bool
	counts   []int // block sizes, or nil for the even split
}

func (gc ghostCase) String() string {
	s := fmt.Sprintf("%v/w%d", gc.shape, gc.w)
	if gc.periodic {
		s += "/periodic"
	}
	if gc.counts != nil {
		s += fmt.Sprintf("/counts%v", gc.counts)
	}
	return s
}

func (gc ghostCase) options(extra ...dist.Option) []dist.Option {
	opts := append([]dist.Option{dist.Ghosts(gc.w)}, extra...)
	if gc.periodic {
		opts = append(opts, dist.Periodic())
	}
	if gc.counts != nil {
		opts = append(opts, dist.BlockSizes(gc.counts))
	}
	return opts
}

// ghostCases are exchanges with empty blocks, fewer rows than ranks, widths
// larger than a neighbour's block (and than the whole axis, periodic), and
// uneven blocks with empty ranks inside.
func ghostCases(p int) []ghostCase {
	var cs []ghostCase
	for _, shape := range [][]int{{0}, {1}, {3}, {7}, {13}, {5, 3}, {2, 4}, {3, 4, 2}, {4, 0, 3}} {
		for _, w := range []int{0, 1, 2, 3, 5} {
			for _, per := range []bool{false, true} {
				cs = append(cs, ghostCase{shape: shape, w: w, periodic: per})
			}
		}
	}
	if p >= 3 {
		counts := make([]int, p)
		counts[0], counts[2] = 4, 1
		counts[p-1] += 3
		for _, per := range []bool{false, true} {
			cs = append(cs, ghostCase{shape: []int{8}, w: 2, periodic: per, counts: counts},
				ghostCase{shape: []int{8, 3}, w: 5, periodic: per, counts: counts})
		}
	}
	return cs
}

// wantGhosted returns the ghosted storage of rank me after an exchange,
// computed element by element from the global array of ref values: the
// block, the ghosts inside the array (or wrapped, periodic), and mark
// where nothing is written (outside the array, or an empty block).
func wantGhosted(gc ghostCase, lo, hi int, mark func(k int) float64) []float64 {
	n := gc.shape[0]
	post := prod(gc.shape[1:])
	rows := hi - lo + 2*gc.w
	out := make([]float64, rows*post)
	for j := 0; j < rows; j++ {
		g := lo + j - gc.w
		for k := 0; k < post; k++ {
			i := j*post + k
			switch {
			case g >= lo && g < hi:
				out[i] = ref(g*post + k)
			case hi == lo:
				out[i] = mark(i)
			case g >= 0 && g < n:
				out[i] = ref(g*post + k)
			case gc.periodic:
				out[i] = ref(((g%n+n)%n)*post + k)
			default:
				out[i] = mark(i)
			}
		}
	}
	return out
}

func TestGhostExchange(t *testing.T) {
	c := mpitest.World(t)
	for _, gc := range ghostCases(c.Size()) {
		t.Run(gc.String(), func(t *testing.T) {
			shape := gc.shape
			x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, gc.options()...)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Free()
			lo, hi := x.Range()
			gs := x.GhostedShape()
			if want := append([]int{hi - lo + 2*gc.w}, shape[1:]...); !slices.Equal(gs, want) || x.Ghosts() != gc.w || x.IsPeriodic() != gc.periodic {
				t.Fatalf("GhostedShape %v Ghosts %d IsPeriodic %v, want %v %d %v", gs, x.Ghosts(), x.IsPeriodic(), want, gc.w, gc.periodic)
			}
			post := prod(shape[1:])
			storage := x.Ghosted().Data()
			mark := func(i int) float64 { return -1e300 - float64(i) }
			for i := range storage {
				if j := i / post; j < gc.w || j >= gc.w+hi-lo {
					storage[i] = mark(i)
				}
			}
			for round := range 2 {
				var err error
				if round == 0 {
					err = x.Exchange()
				} else if err = x.Start(); err == nil {
					err = x.Finish()
				}
				if err != nil {
					t.Fatal(err)
				}
				want := wantGhosted(gc, lo, hi, mark)
				ok := slices.Equal(storage, want)
				mpitest.Check(t, c, ok, "exchange %d: storage %v, want %v", round+1, storage, want)
			}
			// Every other operation sees the block alone.
			if got, want := x.LocalShape(), append([]int{hi - lo}, shape[1:]...); !slices.Equal(got, want) || x.Local().Len() != prod(want) {
				t.Fatalf("block of shape %v and %d elements, want %v", got, x.Local().Len(), want)
			}
			s, err := dist.Sum(x)
			if err != nil {
				t.Fatal(err)
			}
			want := 0.0
			for i := range prod(shape) {
				want += ref(i)
			}
			if d := s - want; d > 1e-9 || d < -1e-9 {
				t.Errorf("Sum %v, want %v", s, want)
			}
			y, err := dist.ZerosLike(x)
			if err != nil {
				t.Fatal(err)
			}
			defer y.Free()
			if y.Ghosts() != x.Ghosts() || y.IsPeriodic() != x.IsPeriodic() {
				t.Errorf("ZerosLike: Ghosts %d periodic %v", y.Ghosts(), y.IsPeriodic())
			}
			dist.Copy(y, x)
			dist.Axpy(1, x, y)
			if d, _ := dist.Dot(x, y); d < 0 {
				t.Errorf("Dot(x, 2x) = %v < 0", d)
			}
		})
	}
}

// TestGhostBoundary checks FillBoundary: the ghosts outside the array, and
// only those, take the values; an exchange leaves them.
func TestGhostBoundary(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{0, 1, 2, 5, 9} {
		for _, w := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("n%d/w%d", n, w), func(t *testing.T) {
				shape := []int{n, 2}
				gc := ghostCase{shape: shape, w: w}
				x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, gc.options()...)
				if err != nil {
					t.Fatal(err)
				}
				defer x.Free()
				dist.FillBoundary(x, 7, -3)
				if err := x.Exchange(); err != nil {
					t.Fatal(err)
				}
				lo, hi := x.Range()
				want := wantGhosted(gc, lo, hi, func(i int) float64 {
					if hi == lo {
						return 0
					}
					if i/2 < w {
						return 7
					}
					return -3
				})
				got := x.Ghosted().Data()
				mpitest.Check(t, c, slices.Equal(got, want), "storage %v, want %v", got, want)
			})
		}
	}
}

func TestGhostOptionPanics(t *testing.T) {
	c := mpitest.World(t)
	// Three cases make an array (collective) before they panic: the cases
	// run in the same order on every rank (a map's order differs from rank
	// to rank).
	cases := map[string]func(){
		"split axis 1":   func() { dist.Zeros[float64](c, []int{3, 4}, dist.SplitAxis(1), dist.Ghosts(1)) },
		"replicated":     func() { dist.Zeros[float64](c, []int{3}, dist.SplitAxis(dist.Replicated), dist.Ghosts(1)) },
		"negative width": func() { dist.Ghosts(-1) },
		"Exchange plain": func() {
			x, _ := dist.Zeros[float64](c, []int{3})
			defer x.Free()
			x.Exchange()
		},
		"Boundary plain": func() {
			x, _ := dist.Zeros[float64](c, []int{3})
			defer x.Free()
			dist.FillBoundary(x, 1, 1)
		},
		"Finish no Start": func() {
			x, _ := dist.Zeros[float64](c, []int{3}, dist.Ghosts(1))
			defer x.Free()
			x.Finish()
		},
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		f := cases[name]
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

// ghostMessages returns the number of non-empty messages and elements
// that rank me sends and receives in an exchange of case gc, worked out
// index by index: each ghost index of each rank comes from the rank that
// holds it (wrapped, periodic), and consecutive indices from one rank's
// consecutive indices make one message.
func ghostMessages(l dist.Layout, gc ghostCase, me int) (sends, recvs, sendN, recvN int) {
	n := l.Shape()[0]
	post := prod(gc.shape[1:])
	owner := func(g int) int {
		for r := 0; r < l.Ranks(); r++ {
			if lo, hi := l.Range(r); lo <= g && g < hi {
				return r
			}
		}
		return -1
	}
	for r := 0; r < l.Ranks(); r++ {
		lo, hi := l.Range(r)
		if lo == hi || gc.w == 0 || post == 0 {
			continue
		}
		for _, side := range [][2]int{{lo - gc.w, lo}, {hi, hi + gc.w}} {
			prevOwner, prevSrc := -2, -2
			for g := side[0]; g < side[1]; g++ {
				if !gc.periodic && (g < 0 || g >= n) {
					prevOwner = -2
					continue
				}
				src := (g%n + n) % n
				o := owner(src)
				if o == me {
					sendN += post
				}
				if r == me {
					recvN += post
				}
				if o != prevOwner || src != prevSrc+1 {
					if o == me {
						sends++
					}
					if r == me {
						recvs++
					}
				}
				prevOwner, prevSrc = o, src
			}
		}
	}
	return
}

// TestDeviceGhostExchange exchanges the ghosts of arrays on the fake
// device, staged and CUDA-aware, and checks the storage and that the only
// copies are the staged messages', one to the host per message sent and
// one to the device per message received.
func TestDeviceGhostExchange(t *testing.T) {
	c := mpitest.World(t)
	slowDevice(t)
	for _, mode := range []awareMode{staged, aware} {
		t.Run(mode.String(), func(t *testing.T) {
			setAware(t, mode)
			for _, gc := range ghostCases(c.Size()) {
				t.Run(gc.String(), func(t *testing.T) { checkDeviceGhosts(t, c, gc, mode == aware) })
			}
		})
	}
}

func checkDeviceGhosts(t *testing.T, c mpi.Comm, gc ghostCase, aware bool) {
	shape := gc.shape
	x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, gc.options(dist.OnBackend(fakedev.Default))...)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	if x.Ghosted().Device() != fakedev.Default.Device() || x.Local().Device() != fakedev.Default.Device() {
		t.Fatalf("on %v", x.Ghosted().Device())
	}
	lo, hi := x.Range()
	post := prod(shape[1:])
	mark := func(int) float64 { return ghostMark }
	marks := wantGhosted(gc, lo, hi, mark)
	for i := range marks {
		if j := i / post; j < gc.w || j >= gc.w+hi-lo {
			marks[i] = ghostMark
		}
	}
	if err := backend.CopyFromHostSlice(x.Ghosted(), marks); err != nil {
		t.Fatal(err)
	}
	sends, recvs, sendN, recvN := ghostMessages(x.Layout(), gc, c.Rank())
	want := transfers{}
	if aware {
		want.syncs = sends + recvs
	} else {
		want.toHost, want.toHostBytes = sends, int64(8*sendN)
		want.toDevice, want.toDeviceBytes = recvs, int64(8*recvN)
	}
	for round := range 2 {
		cnt := profiling.Count()
		err := x.Exchange()
		cnt.Stop()
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, x.Ghosted().Len())
		if err := backend.CopyToHostSlice(got, x.Ghosted()); err != nil {
			t.Fatal(err)
		}
		w := wantGhosted(gc, lo, hi, mark)
		mpitest.Check(t, c, slices.Equal(got, w), "exchange %d: storage %v, want %v", round+1, got, w)
		if g := got2(cnt); g != want {
			t.Errorf("exchange %d: recorded %+v, want %+v", round+1, g, want)
		}
	}
}

// got2 is got without the pinned count, which an exchange does not record.
func got2(c *profiling.Counter) transfers { return got(c) }
