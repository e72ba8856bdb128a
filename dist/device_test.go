package dist_test

// Tests of distributed arrays whose blocks live on a device: the fake device
// of backend/fakedev, which is host memory treated as device memory, so that
// every staging, synchronization and accounting step runs without a GPU.
// The package's TestMain (mpitest.Main) runs them at every rank count.

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// slowDevice makes the fake device's copies and operations slow for the
// test, so that a missing synchronization shows as a wrong result.
func slowDevice(t *testing.T) {
	if testing.Short() {
		// Each delay is a sleep of 60 us or more: seconds per test. The
		// suite's oversubscribed runs (-short) perturb the timing anyway;
		// the default build and 1-2 ranks run with the delays.
		return
	}
	fakedev.SetCopyDelay(20 * time.Microsecond)
	fakedev.SetKernelDelay(20 * time.Microsecond)
	t.Cleanup(func() {
		fakedev.SetCopyDelay(0)
		fakedev.SetKernelDelay(0)
	})
}

// awareMode is how a test answers "is MPI CUDA-aware?".
type awareMode int

const (
	staged  awareMode = iota // staging.SetCUDAAware(false)
	aware                    // staging.SetCUDAAware(true): MPI gets the fake device's memory
	library                  // no setting: the library's answer, or none
)

func (m awareMode) String() string { return [...]string{"staged", "aware", "library"}[m] }

// setAware sets the answer for the test and clears it afterwards.
func setAware(t *testing.T, m awareMode) staging.CUDAAwareness {
	t.Setenv("XPMPI_CUDA_AWARE", "")
	switch m {
	case staged:
		staging.SetCUDAAware(false)
	case aware:
		staging.SetCUDAAware(true)
	default:
		staging.ClearCUDAAware()
	}
	t.Cleanup(staging.ClearCUDAAware)
	return staging.CUDAAware()
}

// haloMessage is one message of a halo exchange, as the layout says.
type haloMessage struct{ peer, k int }

// haloPlan returns the messages that rank me sends and receives in a halo
// exchange of width w over layout l: rank r's ghost layers are the w
// indices of the split axis on each side of its block, clipped to the
// array (none for an empty block); me sends r the part of r's ghosts that
// me holds, and receives from r the part of its own ghosts that r holds.
func haloPlan(l dist.Layout, me, w int) (sends, recvs []haloMessage) {
	n := l.Shape()[l.Axis()]
	ghosts := func(r int) [][2]int {
		lo, hi := l.Range(r)
		if lo == hi || w == 0 {
			return nil
		}
		return [][2]int{{max(lo-w, 0), lo}, {hi, min(hi+w, n)}}
	}
	overlap := func(g [2]int, r int) int {
		lo, hi := l.Range(r)
		return max(0, min(g[1], hi)-max(g[0], lo))
	}
	for r := 0; r < l.Ranks(); r++ {
		if r == me {
			continue
		}
		for _, g := range ghosts(r) {
			if k := overlap(g, me); k > 0 {
				sends = append(sends, haloMessage{r, k})
			}
		}
		for _, g := range ghosts(me) {
			if k := overlap(g, r); k > 0 {
				recvs = append(recvs, haloMessage{r, k})
			}
		}
	}
	return sends, recvs
}

// transfers is what one exchange is expected to record.
type transfers struct {
	toHost, toDevice, deviceCopies, syncs       int
	toHostBytes, toDeviceBytes, deviceCopyBytes int64
	pinned                                      int // pinned buffers the first exchange allocates
}

// expectHalo derives the events of one exchange from the layout: one
// to_host per non-empty message sent and one to_device per non-empty
// message received when staged, none but a sync per non-empty message when
// MPI is CUDA-aware; a pack or unpack on the device per non-empty message
// when the split axis is not the first (the slabs are not contiguous).
func expectHalo(l dist.Layout, me, w int, aware bool) transfers {
	shape := l.LocalShape(me)
	pre, post := prod(shape[:l.Axis()]), prod(shape[l.Axis()+1:])
	sends, recvs := haloPlan(l, me, w)
	var e transfers
	for _, dir := range []struct {
		msgs []haloMessage
		send bool
	}{{sends, true}, {recvs, false}} {
		for _, m := range dir.msgs {
			n := int64(pre * m.k * post)
			if n == 0 {
				continue // an empty message moves nothing
			}
			switch {
			case aware:
				e.syncs++
			case dir.send:
				e.toHost++
				e.toHostBytes += 8 * n
				e.pinned++
			default:
				e.toDevice++
				e.toDeviceBytes += 8 * n
				e.pinned++
			}
			if pre > 1 {
				e.deviceCopies++
				e.deviceCopyBytes += 8 * n
			}
		}
	}
	return e
}

// got reads a counter as transfers.
func got(c *profiling.Counter) transfers {
	return transfers{
		toHost: c.Count(profiling.ToHost), toDevice: c.Count(profiling.ToDevice),
		deviceCopies: c.Count(profiling.DeviceCopy), syncs: c.Count(profiling.Sync),
		toHostBytes: c.Bytes(profiling.ToHost), toDeviceBytes: c.Bytes(profiling.ToDevice),
		deviceCopyBytes: c.Bytes(profiling.DeviceCopy),
	}
}

const ghostMark = -1e300

// exchanged makes a halo of width w for an array of ref values of the
// shape on backend b, marks its ghosts and exchanges, twice (the second
// time with 1000 added to the block, the first with Exchange, the second
// with Start and Finish), and returns the whole local storage after each
// exchange, on the host, with what each exchange recorded and what the
// device did meanwhile.
func exchanged(t *testing.T, c mpi.Comm, shape []int, axis, w int, counts []int, b backend.Backend) (local [2][]float64, rec [2]transfers, dev [2]fakedev.Counts, firstErr error) {
	t.Helper()
	opts := []dist.Option{dist.SplitAxis(axis), dist.OnBackend(b)}
	if counts != nil {
		opts = append(opts, dist.BlockSizes(counts))
	}
	x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) }, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	h, err := dist.HaloOf(x, w)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Free()
	if h.Local().Device() != b.Device() {
		t.Fatalf("halo on %v, want %v", h.Local().Device(), b.Device())
	}
	lshape := h.LocalShape()
	lo, hi := x.Range()
	for round := range 2 {
		if round == 1 {
			dist.AddScalar(x, x, 1000)
		}
		// Mark every ghost on the host, then put the block back on the
		// device, through Halo.CopyFrom (queued on the device after a slow
		// producer: the exchange must wait for it).
		marks := make([]float64, h.Local().Len())
		for i := range marks {
			idx := dist.Unravel(i, lshape)
			if k := idx[axis] - w; k < 0 || k >= hi-lo {
				marks[i] = ghostMark
			}
		}
		if err := backend.CopyFromHostSlice(h.Local(), marks); err != nil {
			t.Fatal(err)
		}
		if b == backend.Backend(fakedev.Default) {
			fakedev.Stall(time.Millisecond) // a slow producer
		}
		h.CopyFrom(x)
		before := fakedev.Stats()
		cnt := profiling.Count()
		var err error
		if round == 0 {
			err = h.Exchange()
		} else {
			if err = h.Start(); err == nil {
				err = h.Finish()
			}
		}
		cnt.Stop()
		dev[round] = fakedev.Stats().Sub(before)
		rec[round] = got(cnt)
		if err != nil {
			// Go on to the next round all the same, so that every rank
			// makes the same collective calls.
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		local[round] = make([]float64, h.Local().Len())
		if err := backend.CopyToHostSlice(local[round], h.Local()); err != nil {
			t.Fatal(err)
		}
	}
	return local, rec, dev, firstErr
}

// layoutOf returns the layout of a halo case on c.
func layoutOf(c mpi.Comm, hc haloCase) dist.Layout {
	if hc.counts != nil {
		return dist.NewLayoutCounts(hc.shape, hc.axis, hc.counts)
	}
	return dist.NewLayout(hc.shape, hc.axis, c.Size())
}

type haloCase struct {
	shape  []int
	axis   int
	w      int
	counts []int // block sizes, or nil for the even split
}

func (hc haloCase) String() string {
	s := fmt.Sprintf("%v/axis%d/w%d", hc.shape, hc.axis, hc.w)
	if hc.counts != nil {
		s += fmt.Sprintf("/counts%v", hc.counts)
	}
	return s
}

// haloCases are shapes, axes and widths of halo exchanges, with empty
// blocks, zero dimensions, blocks narrower than the width, and uneven
// blocks with empty ranks inside.
func haloCases(p int) []haloCase {
	var cs []haloCase
	for _, shape := range [][]int{{0}, {1}, {3}, {7}, {13}, {5, 3}, {2, 4}, {3, 4, 2}, {4, 0, 3}} {
		for axis := range shape {
			for _, w := range []int{0, 1, 2, 3} {
				cs = append(cs, haloCase{shape: shape, axis: axis, w: w})
			}
		}
	}
	if p >= 3 {
		counts := make([]int, p)
		counts[0], counts[2] = 4, 1
		counts[p-1] += 3
		cs = append(cs, haloCase{shape: []int{8}, axis: 0, w: 2, counts: counts},
			haloCase{shape: []int{3, 8, 2}, axis: 1, w: 2, counts: counts})
	}
	return cs
}

// TestDeviceHalo exchanges ghosts of blocks on the fake device, staged
// through pinned host memory and handed to a "CUDA-aware" MPI, and checks
// that the results are those of the CPU and that every copy is the one the
// layout calls for, recorded once.
func TestDeviceHalo(t *testing.T) {
	c := mpitest.World(t)
	slowDevice(t)
	for _, mode := range []awareMode{staged, aware, library} {
		t.Run(mode.String(), func(t *testing.T) {
			answer := setAware(t, mode)
			for _, hc := range haloCases(c.Size()) {
				t.Run(hc.String(), func(t *testing.T) { checkDeviceHalo(t, c, hc, fakedev.Default, answer) })
			}
		})
	}
}

// TestDeviceHaloCUDA is TestDeviceHalo on a GPU, staged through the host
// (scripts/gpu-check.sh runs it at 2 ranks on one GPU). It skips where any
// rank has no CUDA device.
func TestDeviceHaloCUDA(t *testing.T) {
	c := mpitest.World(t)
	b, err := backend.Lookup("cuda")
	all, aerr := mpi.AllTrue(c, err == nil)
	if aerr != nil {
		t.Fatal(aerr)
	}
	if !all {
		t.Skipf("no CUDA device on every rank (here: %v)", err)
	}
	answer := setAware(t, staged)
	for _, hc := range haloCases(c.Size()) {
		t.Run(hc.String(), func(t *testing.T) { checkDeviceHalo(t, c, hc, b, answer) })
	}
}

// checkDeviceHalo runs one halo case on device backend b and checks it
// against the CPU: the storage after each exchange, the events recorded,
// and on the fake device what the device did.
func checkDeviceHalo(t *testing.T, c mpi.Comm, hc haloCase, b backend.Backend, answer staging.CUDAAwareness) {
	if !answer.Known {
		// Nobody knows whether MPI takes device memory: dist stages.
		answer = staging.CUDAAwareness{Aware: false, Known: true, Source: answer.Source}
	}
	me := c.Rank()
	fake := b == backend.Backend(fakedev.Default)
	want, _, _, err := exchanged(t, c, hc.shape, hc.axis, hc.w, hc.counts, cpu.Default)
	if err != nil {
		t.Fatalf("on the CPU: %v", err)
	}
	l := layoutOf(c, hc)
	e := expectHalo(l, me, hc.w, answer.Aware)
	sends, recvs := haloPlan(l, me, hc.w)
	liveBefore := fakedev.Stats().PinnedLive
	local, rec, dev, err := exchanged(t, c, hc.shape, hc.axis, hc.w, hc.counts, b)
	// Halo.Free (in exchanged) frees the pinned memory.
	if live := fakedev.Stats().PinnedLive; live > liveBefore {
		t.Errorf("%d pinned buffers live after Halo.Free, %d before", live, liveBefore)
	}
	// One collective check per case on every rank.
	var ok bool
	msg := fmt.Sprint(err)
	if ok = err == nil; ok {
		for round := range 2 {
			if !slices.Equal(local[round], want[round]) {
				ok, msg = false, fmt.Sprintf("exchange %d: storage %v, on the CPU %v", round+1, local[round], want[round])
				break
			}
		}
	}
	mpitest.Check(t, c, ok, "%s", msg)
	if err != nil {
		return
	}
	for round := range 2 {
		g := rec[round]
		wantRound := e
		wantRound.pinned = 0
		if g != wantRound {
			t.Errorf("exchange %d (%s, %d sends %d receives): recorded %+v, want %+v", round+1, answer.Source, len(sends), len(recvs), g, wantRound)
		}
		if !fake {
			continue
		}
		d := dev[round]
		// What the device did is what was recorded (a pack or unpack is
		// one event for its pre copies).
		if d.ToHost != g.toHost || d.ToHostBytes != g.toHostBytes || d.ToDevice != g.toDevice ||
			d.ToDeviceBytes != g.toDeviceBytes || d.DeviceCopyBytes != g.deviceCopyBytes {
			t.Errorf("exchange %d: the device made %v, recorded %+v", round+1, d, g)
		}
		if d.PageableAsync != 0 {
			t.Errorf("exchange %d: %d async copies to pageable memory", round+1, d.PageableAsync)
		}
		// Pinned memory: allocated at the first exchange, once per staged
		// message, and reused.
		if wantPinned := []int{e.pinned, 0}[round]; d.PinnedAllocs != wantPinned {
			t.Errorf("exchange %d: %d pinned allocations, want %d", round+1, d.PinnedAllocs, wantPinned)
		}
	}
}

// expectCopies checks that f's copies between host and device, as the
// fake device counted them and as package profiling recorded them, are
// exactly want's (device copies and syncs are not compared).
func expectCopies(t *testing.T, what string, want transfers, f func() error) {
	t.Helper()
	before := fakedev.Stats()
	var err error
	cnt := profiling.Counting(func() { err = f() })
	d := fakedev.Stats().Sub(before)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	g := got(cnt)
	g.deviceCopies, g.deviceCopyBytes, g.syncs = 0, 0, 0
	if g != want {
		t.Errorf("%s: recorded %+v, want %+v", what, g, want)
	}
	if d.ToHost != g.toHost || d.ToHostBytes != g.toHostBytes || d.ToDevice != g.toDevice || d.ToDeviceBytes != g.toDeviceBytes {
		t.Errorf("%s: the device made %v, recorded %+v", what, d, g)
	}
}

// toHost and toDevice are the transfers of one copy of bytes bytes, none
// for zero bytes (an empty block is never copied).
func toHost(bytes int64) transfers {
	if bytes == 0 {
		return transfers{}
	}
	return transfers{toHost: 1, toHostBytes: bytes}
}

func toDevice(bytes int64) transfers {
	if bytes == 0 {
		return transfers{}
	}
	return transfers{toDevice: 1, toDeviceBytes: bytes}
}

// plus returns the sum of two sets of transfers.
func (a transfers) plus(b transfers) transfers {
	return transfers{toHost: a.toHost + b.toHost, toDevice: a.toDevice + b.toDevice,
		toHostBytes: a.toHostBytes + b.toHostBytes, toDeviceBytes: a.toDeviceBytes + b.toDeviceBytes}
}

// TestDeviceGatherScatter checks that Gather, Allgather, Scatter and Get of
// arrays on the fake device give the CPU's results and move, between host
// and device, only what staging needs: with a CUDA-aware MPI nothing (MPI
// is handed the device memory), and otherwise one copy of the block to the
// host (Gather, Allgather) or to the device (Scatter); Get copies one
// element on its owner either way, since its result is a host value.
func TestDeviceGatherScatter(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	slowDevice(t)
	for _, mode := range []awareMode{staged, aware} {
		t.Run(mode.String(), func(t *testing.T) {
			setAware(t, mode)
			forEachLayout(t, func(t *testing.T, shape []int, axis int) {
				testDeviceGatherScatter(t, c, me, mode, shape, axis)
			})
		})
	}
}

func testDeviceGatherScatter(t *testing.T, c mpi.Comm, me int, mode awareMode, shape []int, axis int) {
	want := make([]float64, prod(shape))
	for i := range want {
		want[i] = ref(i)
	}
	x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) },
		dist.SplitAxis(axis), dist.OnBackend(fakedev.Default))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	l := x.Layout()
	block := int64(8 * l.LocalLen(me))
	out, in := toHost(block), toDevice(block)
	if mode == aware {
		out, in = transfers{}, transfers{}
	}
	if axis == dist.Replicated {
		// No MPI call hands over the block: the host result is copied.
		out = toHost(block)
	}
	var gathered, all []float64
	gatherWant := out
	if axis == dist.Replicated && me != 0 {
		gatherWant = transfers{}
	}
	expectCopies(t, "Gather", gatherWant, func() (err error) {
		gathered, err = dist.Gather(x, 0)
		return err
	})
	expectCopies(t, "Allgather", out, func() (err error) {
		all, err = dist.Allgather(x)
		return err
	})
	ok := slices.Equal(all, want) && (me != 0 || slices.Equal(gathered, want))
	mpitest.Check(t, c, ok, "Gather %v, Allgather %v, want %v", gathered, all, want)

	root := c.Size() - 1
	var data []float64
	if me == root {
		data = want
	}
	scatterWant := in
	if axis == dist.Replicated && me == root {
		scatterWant = toDevice(block) // the root's own copy of its data
	}
	var y *dist.Array[float64]
	expectCopies(t, "Scatter", scatterWant, func() (err error) {
		y, err = dist.Scatter(c, root, data, shape, dist.SplitAxis(axis), dist.OnBackend(fakedev.Default))
		return err
	})
	defer y.Free()
	if y.Device() != fakedev.Default.Device() {
		t.Fatalf("Scatter made an array on %v", y.Device())
	}
	back, err := dist.Allgather(y)
	mpitest.Check(t, c, err == nil && slices.Equal(back, want), "Scatter then Allgather: %v (%v), want %v", back, err, want)

	if len(want) == 0 {
		return
	}
	for _, i := range []int{0, len(want) / 2, len(want) - 1} {
		idx := dist.Unravel(i, shape)
		owner := l.OwnerOf(idx)
		var w transfers
		if owner == me || owner == -1 {
			w = toHost(8)
		}
		var v float64
		expectCopies(t, fmt.Sprintf("Get%v", idx), w, func() (err error) {
			v, err = dist.Get(x, idx...)
			return err
		})
		mpitest.Check(t, c, v == want[i], "Get%v = %v, want %v", idx, v, want[i])
	}
}

// TestDeviceRedistribute checks Redistribute of fake-device arrays between
// every pair of layouts: the elements of the CPU's result, the new array on
// the device, and between host and device nothing with a CUDA-aware MPI,
// and exactly one staging copy each way (the packed send to the host, the
// packed receive to the device) when not and MPI is called (not where no
// element changes rank).
func TestDeviceRedistribute(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	slowDevice(t)
	for _, mode := range []awareMode{staged, aware} {
		t.Run(mode.String(), func(t *testing.T) {
			setAware(t, mode)
			for _, shape := range shapes {
				for _, from := range axes(shape) {
					for _, to := range axes(shape) {
						t.Run(fmt.Sprintf("%v/%d-%d", shape, from, to), func(t *testing.T) {
							want := make([]float64, prod(shape))
							for i := range want {
								want[i] = ref(i)
							}
							x, err := dist.FromFunc(c, shape, func(idx []int) float64 { return ref(flat(idx, shape)) },
								dist.SplitAxis(from), dist.OnBackend(fakedev.Default))
							if err != nil {
								t.Fatal(err)
							}
							defer x.Free()
							l := dist.NewLayout(shape, to, c.Size())
							// Staged through the host: the whole send and
							// receive buffers, when MPI is called at all: to a
							// replicated layout (an all-gather), or when some
							// element changes rank.
							var w transfers
							if mode == staged && from != dist.Replicated && (to == dist.Replicated || changesRank(x.Layout(), l)) {
								w = toHost(int64(8 * x.Layout().LocalLen(me))).plus(toDevice(int64(8 * l.LocalLen(me))))
							}
							var y *dist.Array[float64]
							expectCopies(t, "Redistribute", w, func() (err error) {
								y, err = dist.Redistribute(x, l)
								return err
							})
							defer y.Free()
							if y.Device() != fakedev.Default.Device() || !y.Layout().Equal(l) {
								t.Fatalf("Redistribute made %v on %v, want %v on the fake device", y.Layout(), y.Device(), l)
							}
							got, err := dist.Allgather(y)
							mpitest.Check(t, c, err == nil && slices.Equal(got, want), "Redistribute %d to %d: %v (%v), want %v", from, to, got, err, want)
						})
					}
				}
			}
		})
	}
}

// changesRank reports whether some element of the array is owned by
// different ranks in layouts a and b (both split).
func changesRank(a, b dist.Layout) bool {
	shape := a.Shape()
	idx := make([]int, len(shape))
	for i := range prod(shape) {
		for d, rem := len(shape)-1, i; d >= 0; d-- {
			idx[d] = rem % shape[d]
			rem /= shape[d]
		}
		if a.OwnerOf(idx) != b.OwnerOf(idx) {
			return true
		}
	}
	return false
}

// TestDeviceHaloUnknownAnswer checks an exchange of device blocks when
// nobody knows whether MPI is CUDA-aware (MPICH has no query): dist then
// stages through host memory, which is always correct. The serial stand-in
// has no messages, and Open MPI answers: there the staging package's own
// tests, with an injected answer, cover a Staging's error.
func TestDeviceHaloUnknownAnswer(t *testing.T) {
	c := mpitest.World(t)
	if aw := setAware(t, library); aw.Known {
		t.Skipf("the MPI library answers (aware %v, from %s)", aw.Aware, aw.Source)
	}
	if c.Size() == 1 {
		t.Skip("one rank exchanges nothing")
	}
	x, err := dist.FromFunc(c, []int{4 * c.Size()}, func(idx []int) float64 { return float64(idx[0]) }, dist.OnBackend(fakedev.Default))
	if err != nil {
		t.Fatal(err)
	}
	h, err := dist.HaloOf(x, 1)
	if err != nil {
		t.Fatal(err)
	}
	cnt := profiling.Count()
	err = h.Exchange()
	cnt.Stop()
	mpitest.Check(t, c, err == nil, "exchange with no answer: %v", err)
	staged, err := mpi.AllreduceValue(c, int64(cnt.Count(profiling.ToHost)), mpi.Sum)
	mpitest.Check(t, c, err == nil && staged > 0, "exchange with no answer staged %d copies (%v)", staged, err)
	h.Free()
}

// noSorter is the fake device without its optional interfaces (the sort,
// the axis reductions, random fills, ...): a backend that cannot do them
// on its device.
type noSorter struct{ backend.Backend }

// modeBackend sets the CUDA-aware answer of a test mode and returns the
// backend it runs on: "staged" (not aware) and "aware" on the fake device,
// "plain" (aware) on the fake device without its Sorter and AxisReducer.
func modeBackend(t *testing.T, mode string) backend.Backend {
	switch mode {
	case "staged":
		setAware(t, staged)
	case "aware":
		setAware(t, aware)
	default:
		setAware(t, aware)
		return noSorter{fakedev.Default}
	}
	return fakedev.Default
}

// TestDeviceSort checks the sort of fake-device arrays: the CPU's result,
// on the device, and between host and device nothing when MPI is
// CUDA-aware (the keys are sorted, cut and merged on the device, and MPI is
// handed device memory), exactly the staging copies of each MPI call when
// it is not, and, on a backend that cannot sort, one copy of the block to
// the host and one of each result to the device.
func TestDeviceSort(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	slowDevice(t)
	for _, mode := range []string{"staged", "aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			for _, n := range []int{0, 1, 3, 17, 1000} {
				inames, inputs := sortInputs[float64](n)
				lnames, lopts := sortLayouts(n, p)
				lnames = append(lnames, "replicated")
				lopts = append(lopts, []dist.Option{dist.SplitAxis(dist.Replicated)})
				// The copies are counted for the input without NaN; with
				// NaNs, the sort also reads the block that starts with them
				// and rolls them to the end (RollFlat's copies).
				for _, ik := range []int{0, len(inputs) - 1} {
					in, counted := inputs[ik], ik == 0
					for l := range lnames {
						for _, withIndex := range []bool{false, true} {
							name := fmt.Sprintf("n=%d/%s/%s/index=%v", n, inames[ik], lnames[l], withIndex)
							x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return in[idx[0]] }, append(lopts[l], dist.OnBackend(b))...)
							if err != nil {
								t.Fatal(err)
							}
							replicated := x.Layout().Axis() == dist.Replicated
							even := dist.NewLayout([]int{n}, 0, p)
							block := x.Layout().LocalLen(me)
							var res dist.SortResult[float64]
							before := fakedev.Stats()
							cnt := profiling.Counting(func() { res, err = dist.SortWithOptions(x, dist.SortOptions{WithIndex: withIndex}) })
							d := fakedev.Stats().Sub(before)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							g := got(cnt)
							k := 1
							if withIndex {
								k = 2
							}
							var w transfers
							switch {
							case mode == "plain":
								w = toHost(int64(8 * block))
								if !replicated {
									w = w.plus(toDevice(int64(8 * even.LocalLen(me))))
									if withIndex {
										w = w.plus(toDevice(int64(8 * even.LocalLen(me))))
									}
								} else {
									w = w.plus(toDevice(int64(8 * n)))
									if withIndex {
										w = w.plus(toDevice(int64(8 * n)))
									}
								}
							case mode == "staged" && !replicated && p > 1 && n > 0:
								m := res.Stats.Received[me]
								count := func(n int) int {
									if n > 0 {
										return 1
									}
									return 0
								}
								w.toHost = count(block) + k*count(block) + k*count(m)
								w.toDevice = k*count(m) + k*count(even.LocalLen(me))
							}
							// The first element of the sorted block, read to see
							// whether it starts with NaNs.
							if sorted := even.LocalLen(me); (replicated && n > 0) || (!replicated && sorted > 0) {
								w = w.plus(toHost(8))
							}
							if counted && (g.toHost != w.toHost || g.toDevice != w.toDevice || (mode == "plain" && (g.toHostBytes != w.toHostBytes || g.toDeviceBytes != w.toDeviceBytes))) {
								t.Errorf("%s: recorded %+v, want %+v", name, g, w)
							}
							if d.ToHost != g.toHost || d.ToHostBytes != g.toHostBytes || d.ToDevice != g.toDevice || d.ToDeviceBytes != g.toDeviceBytes {
								t.Errorf("%s: the device made %v, recorded %+v", name, d, g)
							}
							if res.Sorted.Device() != fakedev.Default.Device() || (withIndex && res.Index.Device() != fakedev.Default.Device()) {
								t.Fatalf("%s: results on %v", name, res.Sorted.Device())
							}
							out, err := dist.Allgather(res.Sorted)
							if err != nil {
								t.Fatal(err)
							}
							ref := refSortPerm(in)
							ok := len(out) == n
							for i := 0; ok && i < n; i++ {
								ok = sortBits(out[i]) == sortBits(in[ref[i]])
							}
							if withIndex {
								perm, err := dist.Allgather(res.Index)
								ok = ok && err == nil && slices.Equal(perm, ref)
							}
							mpitest.Check(t, c, ok, "%s: sorted %v, want the order %v of %v", name, out, ref, in)
							x.Free()
							res.Sorted.Free()
							if withIndex {
								res.Index.Free()
							}
						}
					}
				}
			}
		})
	}
}

// TestDeviceAxisReductions checks SumAxis, NormAxis, MinAxis and ArgmaxAxis
// of fake-device arrays against the CPU's results, with the copies between
// host and device: none with a CUDA-aware MPI (the partials are computed,
// combined and finished on the device), the staging copies of the one
// combining call when not, and on a backend that cannot reduce on its
// device one copy of the block to the host and one of each result back.
func TestDeviceAxisReductions(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	slowDevice(t)
	for _, mode := range []string{"staged", "aware", "plain"} {
		t.Run(mode, func(t *testing.T) {
			b := modeBackend(t, mode)
			forEachLayout(t, func(t *testing.T, shape []int, split int) {
				if prod(shape) == 0 {
					return // the min and max of an empty axis panic; sums are covered on the CPU
				}
				f := func(idx []int) float64 { return ref(flat(idx, shape)) }
				x, err := dist.FromFunc(c, shape, f, dist.SplitAxis(split), dist.OnBackend(b))
				if err != nil {
					t.Fatal(err)
				}
				defer x.Free()
				h, err := dist.FromFunc(c, shape, f, dist.SplitAxis(split), dist.OnBackend(cpu.Default))
				if err != nil {
					t.Fatal(err)
				}
				for axis := range shape {
					block := x.Layout().LocalLen(me)
					combined := split == axis
					m := 1 // partial results on this rank: the block's shape without axis
					for a, d := range x.Layout().LocalShape(me) {
						if a != axis {
							m *= d
						}
					}
					outLen := func() int { // elements of the result's block on this rank
						s, _ := dist.SumAxis(h, axis)
						defer s.Free()
						return s.Layout().LocalLen(me)
					}()
					// expected copies of a sum (one result) and of an extreme (two results).
					want := func(results int, sendBytes, recvBytes int64) transfers {
						switch {
						case mode == "plain":
							w := toHost(int64(8 * block))
							for range results {
								w = w.plus(toDevice(int64(8 * outLen)))
							}
							return w
						case mode == "staged" && combined:
							return transfers{}.plus(toHost(sendBytes)).plus(toDevice(recvBytes))
						}
						return transfers{}
					}
					check := func(what string, w transfers, dev, host func() (*dist.Array[float64], error)) {
						t.Helper()
						var got *dist.Array[float64]
						expectCopies(t, what, w, func() (err error) {
							got, err = dev()
							return err
						})
						defer got.Free()
						wantArr, err := host()
						if err != nil {
							t.Fatal(err)
						}
						defer wantArr.Free()
						g, err1 := dist.Allgather(got)
						e, err2 := dist.Allgather(wantArr)
						mpitest.Check(t, c, err1 == nil && err2 == nil && slices.Equal(g, e) && got.Device() == x.Device(),
							"%s along %d: %v on %v, want %v", what, axis, g, got.Device(), e)
					}
					check(fmt.Sprintf("SumAxis(%d)", axis), want(1, int64(8*m), int64(8*m)),
						func() (*dist.Array[float64], error) { return dist.SumAxis(x, axis) },
						func() (*dist.Array[float64], error) { return dist.SumAxis(h, axis) })
					check(fmt.Sprintf("NormAxis(%d)", axis), want(1, int64(8*m), int64(8*m)),
						func() (*dist.Array[float64], error) { return dist.NormAxis(x, axis) },
						func() (*dist.Array[float64], error) { return dist.NormAxis(h, axis) })
					// MinAxis: the values and the indices each gathered.
					mw := want(2, int64(8*m), int64(8*m*p))
					if mode == "staged" && combined {
						mw = toHost(int64(8 * m)).plus(toHost(int64(8 * m))).plus(toDevice(int64(8 * m * p))).plus(toDevice(int64(8 * m * p)))
					}
					check(fmt.Sprintf("MinAxis(%d)", axis), mw,
						func() (*dist.Array[float64], error) { return dist.MinAxis(x, axis) },
						func() (*dist.Array[float64], error) { return dist.MinAxis(h, axis) })
					var gi *dist.Array[int64]
					expectCopies(t, fmt.Sprintf("ArgmaxAxis(%d)", axis), mw, func() (err error) {
						gi, err = dist.ArgmaxAxis(x, axis)
						return err
					})
					wi, _ := dist.ArgmaxAxis(h, axis)
					g, _ := dist.Allgather(gi)
					e, _ := dist.Allgather(wi)
					mpitest.Check(t, c, slices.Equal(g, e), "ArgmaxAxis(%d): %v, want %v", axis, g, e)
					gi.Free()
					wi.Free()
				}
			})
		})
	}
}
