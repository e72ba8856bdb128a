package dist_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// errFault is the driver's error of the faults the tests inject.
var errFault = errors.New("injected fault")

// TestDeviceFaultReductions injects a device fault on one rank (the fake
// device keeps it, as a GPU keeps a faulted kernel's error) before a
// reduction: every rank must return an error wrapping backend.ErrDevice,
// the faulting rank's wrapping the fault too, no rank may wait for
// another, and the next reduction must give the right value again.
func TestDeviceFaultReductions(t *testing.T) {
	c := mpitest.World(t)
	p, rank := c.Size(), c.Rank()
	ops := []struct {
		name string
		run  func(x *dist.Array[float64], z *dist.Array[complex128]) (float64, error)
		want func(n int) float64
	}{
		{"Sum", func(x *dist.Array[float64], _ *dist.Array[complex128]) (float64, error) { return dist.Sum(x) },
			func(n int) float64 { return float64(n * (n - 1) / 2) }},
		{"Dot", func(x *dist.Array[float64], _ *dist.Array[complex128]) (float64, error) { return dist.Dot(x, x) },
			func(n int) float64 { return float64((n - 1) * n * (2*n - 1) / 6) }},
		{"Norm", func(x *dist.Array[float64], _ *dist.Array[complex128]) (float64, error) {
			v, err := dist.Norm(x)
			return v * v, err
		}, func(n int) float64 { return float64((n - 1) * n * (2*n - 1) / 6) }},
		{"MeanComplex", func(_ *dist.Array[float64], z *dist.Array[complex128]) (float64, error) {
			v, err := dist.MeanComplex(z)
			return real(v) * float64(z.Len()), err
		}, func(n int) float64 { return float64(n * (n - 1) / 2) }},
	}
	for _, n := range []int{2, 2*p + 1} { // fewer elements than ranks, and uneven
		x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0]) }, dist.OnBackend(fakedev.Default))
		if err != nil {
			t.Fatal(err)
		}
		z, err := dist.FromFunc(c, []int{n}, func(idx []int) complex128 { return complex(float64(idx[0]), 1) }, dist.OnBackend(fakedev.Default))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			for _, bad := range []int{0, p - 1} {
				what := fmt.Sprintf("%s of %d elements, fault on rank %d", op.name, n, bad)
				if rank == bad {
					fakedev.Default.InjectFault(errFault)
				}
				_, err := op.run(x, z)
				ok := errors.Is(err, backend.ErrDevice) && (rank != bad || errors.Is(err, errFault))
				mpitest.Check(t, c, ok, "%s: rank %d returned %v; want an error wrapping backend.ErrDevice (and the fault on the faulting rank)", what, rank, err)
				v, err := op.run(x, z)
				mpitest.Check(t, c, err == nil && math.Abs(v-op.want(n)) <= 1e-12*op.want(n), "%s: the next call returned %v, %v; want %v", what, v, err, op.want(n))
			}
		}
		x.Free()
		z.Free()
	}
}
