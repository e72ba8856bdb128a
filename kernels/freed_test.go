package kernels_test

import (
	"errors"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// TestLaunchFreed checks that a launch with a freed array refuses with an
// *ArgError naming the argument and wrapping backend.ErrFreed, on the host
// and on the fake device, whether the array was freed before its Arg was
// made or after, or is a view of a freed device allocation; and that a
// fused kernel's Run refuses one too. Before, such a launch silently did
// nothing.
func TestLaunchFreed(t *testing.T) {
	for _, tc := range []struct {
		name string
		args func() []kernels.Arg
	}{
		{"host, freed first", func() []kernels.Arg {
			x, y := backend.Wrap([]float64{1, 2, 3}), backend.Wrap([]float64{1, 1, 1})
			x.Free()
			return []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(y)}
		}},
		{"fake device, freed after the Arg", func() []kernels.Arg {
			x, y := fakeArray(t, []float64{1, 2, 3}), fakeArray(t, []float64{1, 1, 1})
			args := []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(y)}
			x.Free()
			return args
		}},
		{"fake device, view of a freed allocation", func() []kernels.Arg {
			x, y := fakeArray(t, []float64{1, 2, 3, 4}), fakeArray(t, []float64{1, 1, 1})
			v := x.Slice(1, 4)
			x.Free()
			return []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Array(v), kernels.Array(y)}
		}},
	} {
		err := kernels.AxpyKernel.Call(tc.args()...)
		var ae *kernels.ArgError
		if !errors.As(err, &ae) || !errors.Is(err, backend.ErrFreed) || ae.Index != 2 {
			t.Errorf("%s: %v, want an *ArgError for argument 2 wrapping ErrFreed", tc.name, err)
		}
	}
	x, y := backend.Wrap([]float64{1, 2}), backend.Wrap([]float64{0, 0})
	k := fuse.MustCompile(fuse.Sum("s", fuse.Var[float64]("x")), fuse.Out("y", fuse.Var[float64]("x")))
	x.Free()
	if _, err := k.Run(fuse.Args{"x": x, "y": y}); !errors.Is(err, backend.ErrFreed) {
		t.Errorf("fuse Run of a freed array: %v, want an error wrapping ErrFreed", err)
	}
}
