package staging_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// TestOps sends device arrays around a ring with Isend and Irecv, in every
// mode: the values arrive, and the copies between host and device are one
// each way per non-empty message when staged (an unknown answer stages
// too), none when MPI is CUDA-aware; strict mode refuses an unknown answer.
func TestOps(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	next, prev := (me+1)%p, (me+p-1)%p
	modes := []struct {
		name   string
		opts   []staging.Option
		staged bool
	}{
		{"staged", []staging.Option{staging.WithCUDAAware(answer(true, false))}, true},
		{"aware", []staging.Option{staging.WithCUDAAware(answer(true, true))}, false},
		{"unknown", []staging.Option{staging.WithCUDAAware(answer(false, false))}, true},
	}
	for _, n := range []int{0, 1, 7} {
		for _, m := range modes {
			t.Run(fmt.Sprintf("n%d/%s", n, m.name), func(t *testing.T) {
				dev := fakedev.New()
				dev.SetCopyDelay(50 * time.Microsecond)
				dev.SetKernelDelay(50 * time.Microsecond)
				ss := staging.NewStaging[int64](dev, n, m.opts...)
				rs := staging.NewStaging[int64](dev, n, m.opts...)
				defer ss.Close()
				defer rs.Close()
				x := fill(t, dev, n, func(i int) int64 { return int64(100*me + i) })
				y, _ := backend.NewOn[int64](dev, n)
				before := dev.Stats()
				cnt := profiling.Count()
				rop, err := rs.Irecv(c, y, prev, 3)
				if err != nil {
					t.Fatal(err)
				}
				if err := ss.Send(c, x, next, 3); err != nil {
					t.Fatal(err)
				}
				if err := rop.Wait(); err != nil {
					t.Fatal(err)
				}
				cnt.Stop()
				checkMatches(t, cnt, dev.Stats().Sub(before))
				want := 0
				if m.staged && n > 0 {
					want = 1
				}
				if cnt.Count(profiling.ToHost) != want || cnt.Count(profiling.ToDevice) != want {
					t.Errorf("events %s, want %d copy each way", events(cnt), want)
				}
				got := read(t, y)
				for i, v := range got {
					if v != int64(100*prev+i) {
						t.Fatalf("received %v, want rank %d's", got, prev)
					}
				}
			})
		}
	}
	// Strict mode: an unknown answer is an error, and the Staging is free.
	dev := fakedev.New()
	s := staging.NewStaging[int64](dev, 2, staging.Strict(), staging.WithCUDAAware(answer(false, false)))
	x := fill(t, dev, 2, func(i int) int64 { return int64(i) })
	if _, err := s.Isend(c, x, me, 1); !errors.Is(err, staging.ErrCUDAAwareUnknown) {
		t.Errorf("strict Isend with no answer: %v", err)
	}
	if _, err := s.Lease(x, true); !errors.Is(err, staging.ErrCUDAAwareUnknown) {
		t.Errorf("strict Lease with no answer: %v", err)
	}
}

// TestCollectives runs every collective of the package on fake-device
// arrays of uneven sizes (one rank's part empty), in every mode, against
// the same call on host slices, and counts the copies: none when MPI is
// CUDA-aware, one per non-empty staged side otherwise.
func TestCollectives(t *testing.T) {
	c := mpitest.World(t)
	me, p := c.Rank(), c.Size()
	count := func(r int) int { return (r * 3) % 4 } // rank 0 sends nothing
	counts, displs := make([]int, p), make([]int, p)
	total := 0
	for r := range counts {
		counts[r], displs[r] = count(r), total
		total += counts[r]
	}
	root := p - 1
	for _, m := range []struct {
		name  string
		aware bool
	}{{"staged", false}, {"aware", true}, {"unknown", false}} {
		t.Run(m.name, func(t *testing.T) {
			dev := fakedev.New()
			dev.SetCopyDelay(20 * time.Microsecond)
			opt := staging.WithCUDAAware(answer(m.name != "unknown", m.aware))
			// stagedCopies is the copies a staged side of n elements makes.
			stagedCopies := func(n int) int {
				if m.aware || n == 0 {
					return 0
				}
				return 1
			}
			expect := func(what string, toHost, toDevice int, f func() error) {
				t.Helper()
				before := dev.Stats()
				cnt := profiling.Count()
				err := f()
				cnt.Stop()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				checkMatches(t, cnt, dev.Stats().Sub(before))
				if cnt.Count(profiling.ToHost) != toHost || cnt.Count(profiling.ToDevice) != toDevice {
					t.Errorf("%s: events %s, want %d to the host and %d to the device", what, events(cnt), toHost, toDevice)
				}
			}
			mine := fill(t, dev, count(me), func(i int) float64 { return float64(10*me + i) })
			var want []float64
			for r := 0; r < p; r++ {
				for i := range count(r) {
					want = append(want, float64(10*r+i))
				}
			}

			// Gatherv into a device array at the root.
			all, _ := backend.NewOn[float64](dev, total)
			recvAt := stagedCopies(0)
			if me == root {
				recvAt = stagedCopies(total)
			}
			expect("Gatherv", stagedCopies(count(me)), recvAt, func() error {
				return staging.Gatherv(c, mine, all, counts, displs, root, opt)
			})
			if me == root && !slices.Equal(read(t, all), want) {
				t.Errorf("Gatherv: %v, want %v", read(t, all), want)
			}
			// Allgatherv into a host slice: only the send side is staged.
			host := make([]float64, total)
			expect("Allgatherv", stagedCopies(count(me)), 0, func() error {
				return staging.Allgatherv(c, mine, backend.Wrap(host), counts, displs, opt)
			})
			mpitest.Check(t, c, slices.Equal(host, want), "Allgatherv: %v, want %v", host, want)
			// Scatterv from the root's host slice into device arrays.
			back, _ := backend.NewOn[float64](dev, count(me))
			var send *backend.Array[float64]
			if me == root {
				send = backend.Wrap(want)
			}
			expect("Scatterv", 0, stagedCopies(count(me)), func() error {
				return staging.Scatterv(c, send, counts, displs, back, root, opt)
			})
			mpitest.Check(t, c, slices.Equal(read(t, back), read(t, mine)), "Scatterv: %v, want %v", read(t, back), read(t, mine))
			// Bcast of a device array.
			b := fill(t, dev, 3, func(i int) float64 { return float64(me*100 + i) })
			sendSide, recvSide := 0, stagedCopies(3)
			if me == root {
				sendSide, recvSide = stagedCopies(3), 0
			}
			expect("Bcast", sendSide, recvSide, func() error { return staging.Bcast(c, b, root, opt) })
			mpitest.Check(t, c, slices.Equal(read(t, b), []float64{float64(root * 100), float64(root*100 + 1), float64(root*100 + 2)}), "Bcast: %v", read(t, b))
			// Allreduce in place.
			s := fill(t, dev, 2, func(i int) float64 { return float64(me + i) })
			expect("Allreduce", stagedCopies(2), stagedCopies(2), func() error { return staging.Allreduce(c, s, mpi.Sum, opt) })
			sum := float64(p * (p - 1) / 2)
			mpitest.Check(t, c, slices.Equal(read(t, s), []float64{sum, sum + float64(p)}), "Allreduce: %v", read(t, s))
			// Alltoallv: rank me sends r+1 elements to rank r.
			sc, sd, rc, rd := make([]int, p), make([]int, p), make([]int, p), make([]int, p)
			so, ro := 0, 0
			for r := 0; r < p; r++ {
				sc[r], sd[r], so = r+1, so, so+r+1
				rc[r], rd[r], ro = me+1, ro, ro+me+1
			}
			a2a := fill(t, dev, so, func(i int) float64 { return float64(1000*me + i) })
			got, _ := backend.NewOn[float64](dev, ro)
			expect("Alltoallv", stagedCopies(so), stagedCopies(ro), func() error {
				return staging.Alltoallv(c, a2a, sc, sd, got, rc, rd, opt)
			})
			var w []float64
			for r := 0; r < p; r++ {
				for i := range me + 1 {
					w = append(w, float64(1000*r+sd[me]+i))
				}
			}
			mpitest.Check(t, c, slices.Equal(read(t, got), w), "Alltoallv: %v, want %v", read(t, got), w)
		})
	}
}
