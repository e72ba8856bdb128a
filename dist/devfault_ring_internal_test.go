package dist

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/staging"
)

// awareModes runs f with MPI taken as not CUDA-aware (device blocks staged
// through host memory), then as CUDA-aware (MPI gets the fake device's
// memory), and clears the setting afterwards.
func awareModes(t *testing.T, f func(aware bool)) {
	t.Setenv("XPMPI_CUDA_AWARE", "")
	t.Cleanup(staging.ClearCUDAAware)
	for _, aware := range []bool{false, true} {
		staging.SetCUDAAware(aware)
		f(aware)
	}
}

// TestDeviceFaultRingSteps injects a device fault on one rank where
// MatMul's agreement at its start cannot see it: straight before the ring
// itself (panelProduct.ring), as a fault that a step's products raise. The
// faulting rank must go on with the ring (no rank may wait for it: the
// watchdog), the ring returns no error on any rank, the next call that
// agrees (Sum) returns the fault on every rank, and the next MatMul by
// the ring is right.
func TestDeviceFaultRingSteps(t *testing.T) {
	c := mpitest.World(t)
	p, rank := c.Size(), c.Rank()
	stop, err := mpi.StartWatchdog(c, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	errRing := errors.New("injected ring fault")
	on := OnBackend(fakedev.Default)
	ones := func(shape []int, opts ...Option) *Array[float64] {
		a, err := FromFunc(c, shape, func([]int) float64 { return 1 }, append([]Option{on}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	bads := []int{0}
	if p > 1 {
		bads = append(bads, p-1)
	}
	awareModes(t, func(aware bool) {
		for _, n := range []int{2, 2*p + 1} {
			for _, baxis := range []int{0, 1} {
				a := ones([]int{n, 2})
				b := ones([]int{2, 3}, SplitAxis(baxis))
				out, err := newOn[float64](c, NewLayoutCounts([]int{n, 3}, 0, a.layout.counts), a.local.Backend())
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range bads {
					what := fmt.Sprintf("ring of %d x 2 by 2 x 3 split on axis %d at %d ranks (CUDA-aware %v), fault on rank %d", n, baxis, p, aware, bad)
					if rank == bad {
						fakedev.Default.InjectFault(errRing)
					}
					pp := panelProduct[float64]{c: c, g: fakedev.Default, a: a.local, res: out.local, bl: b.layout, mr: a.layout.LocalShape(rank)[0]}
					err := pp.ring(b.local)
					mpitest.Check(t, c, err == nil, "%s: rank %d: the ring returned %v; want nil (the fault recorded)", what, rank, err)
					_, err = Sum(a)
					ok := errors.Is(err, backend.ErrDevice) && (rank != bad || errors.Is(err, errRing))
					mpitest.Check(t, c, ok, "%s: rank %d: the next Sum returned %v; want an error wrapping backend.ErrDevice (and the fault on the faulting rank)", what, rank, err)
					m, err := MatMulWithOptions(a, b, MatMulOptions{Method: MatMulRing})
					var s float64
					if err == nil {
						s, err = Sum(m)
						m.Free()
					}
					mpitest.Check(t, c, err == nil && s == float64(6*n), "%s: the next MatMul returned a sum of %v, %v; want %d", what, s, err, 6*n)
				}
				a.Free()
				b.Free()
				out.Free()
			}
		}
	})
}

// TestDeviceFaultSUMMASteps is TestDeviceFaultRingSteps for SUMMA: a fault
// injected straight before summa itself, past MatMul's agreement, must not
// leave a rank waiting in a panel's broadcast; summa returns no error, the
// next Sum returns the fault on every rank, and the next MatMul is right.
func TestDeviceFaultSUMMASteps(t *testing.T) {
	c := mpitest.World(t)
	p, rank := c.Size(), c.Rank()
	stop, err := mpi.StartWatchdog(c, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	errSUMMA := errors.New("injected SUMMA fault")
	on := OnBackend(fakedev.Default)
	bads := []int{0}
	if p > 1 {
		bads = append(bads, p-1)
	}
	awareModes(t, func(aware bool) {
		for _, n := range []int{2, 2*p + 1} {
			a, err := FromFunc(c, []int{n, 2}, func([]int) float64 { return 1 }, on, ProcessGrid(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			b, err := FromFunc(c, []int{2, 3}, func([]int) float64 { return 1 }, on, ProcessGrid(a.layout.GridDims()...))
			if err != nil {
				t.Fatal(err)
			}
			o := MatMulOptions{PanelWidth: 1}
			out, err := newOn[float64](c, summaLayout(a.layout, b.layout, o), a.local.Backend())
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range bads {
				what := fmt.Sprintf("SUMMA of %d x 2 by 2 x 3 on a %v grid (CUDA-aware %v), fault on rank %d", n, a.layout.GridDims(), aware, bad)
				if rank == bad {
					fakedev.Default.InjectFault(errSUMMA)
				}
				err := summa(c, fakedev.Default, a.local, b.local, out.local, a.layout, b.layout, 1)
				mpitest.Check(t, c, err == nil, "%s: rank %d: summa returned %v; want nil (the fault recorded)", what, rank, err)
				_, err = Sum(a)
				ok := errors.Is(err, backend.ErrDevice) && (rank != bad || errors.Is(err, errSUMMA))
				mpitest.Check(t, c, ok, "%s: rank %d: the next Sum returned %v; want an error wrapping backend.ErrDevice (and the fault on the faulting rank)", what, rank, err)
				m, err := MatMulWithOptions(a, b, o)
				var s float64
				if err == nil {
					s, err = Sum(m)
					m.Free()
				}
				mpitest.Check(t, c, err == nil && s == float64(6*n), "%s: the next MatMul returned a sum of %v, %v; want %d", what, s, err, 6*n)
			}
			a.Free()
			b.Free()
			out.Free()
		}
	})
}
