//go:build cgo

package fuse_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	_ "github.com/xpmpi/xpmpi/kernels/fuse/fusecuda"
)

// TestGPU runs the CG kernels and a kernel of every float operation on a
// CUDA device and compares them with the CPU evaluator: elementwise
// results bit for bit except where Exp, Log and Pow enter (CUDA's
// functions: within 4 ulp), reductions to 1e-12 relative (another order
// of additions). It is skipped where there is no GPU.
func TestGPU(t *testing.T) {
	b, err := cuda.Default()
	if err != nil {
		t.Skipf("no CUDA device here, so no generated kernel is launched: %v", err)
	}
	// The launcher is fusecuda's, registered by its import.
	x, y, z := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Var[float64]("z")
	a := fuse.Param[float64]("a")
	yn := fuse.Out("y", fuse.Sub(y, fuse.Mul(a, x)))
	kernels := map[string]struct {
		k    *fuse.Kernel
		ulps float64
	}{
		"update": {fuse.MustCompile(fuse.Out("x", fuse.Add(x, fuse.Mul(a, z))), yn, fuse.Dot("yy", yn, yn), fuse.ReduceMax("m", z)), 0},
		"math": {fuse.MustCompile(fuse.Out("z", fuse.Where(fuse.Lt(x, y), fuse.Exp(fuse.Mul(x, fuse.Const(1e-2))),
			fuse.Add(fuse.Sqrt(fuse.Abs(y)), fuse.Pow(fuse.Abs(x), a)))), fuse.Sum("s", fuse.Log(fuse.Abs(z)))), 4},
	}
	for name, c := range kernels {
		for _, n := range []int{0, 1, 7, 1000, 100003, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				host := map[string][]float64{"x": data[float64](n, 1), "y": data[float64](n, 2), "z": data[float64](n, 3)}
				dev := fuse.Args{"a": 0.75}
				hargs := fuse.Args{"a": 0.75}
				for k, v := range host {
					d, err := backend.NewOn[float64](b, n)
					if err != nil {
						t.Fatal(err)
					}
					if err := backend.CopyFromHostSlice(d, v); err != nil {
						t.Fatal(err)
					}
					dev[k] = d
					hargs[k] = backend.Wrap(v)
				}
				dres, err := c.k.Run(dev)
				if err != nil {
					t.Fatal(err)
				}
				hres, err := c.k.Run(hargs)
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range host {
					got := make([]float64, n)
					if err := backend.CopyToHostSlice(got, dev[k].(*backend.Array[float64])); err != nil {
						t.Fatal(err)
					}
					for i := range got {
						if !nearULPs(got[i], v[i], c.ulps) {
							t.Fatalf("%s[%d] = %v on the GPU, %v on the CPU", k, i, got[i], v[i])
						}
					}
				}
				for _, r := range c.k.Reductions() {
					g, h := dres.Float64(r), hres.Float64(r)
					if !(g == h || (g != g && h != h) || math.Abs(g-h) <= 1e-12*math.Abs(h)) {
						t.Errorf("%s = %v on the GPU, %v on the CPU", r, g, h)
					}
				}
			})
		}
	}
}

// nearULPs reports whether a and b are within ulps units in the last place
// (equal bits where ulps is 0; NaNs equal).
func nearULPs(a, b, ulps float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	if ulps == 0 || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Float64bits(a) == math.Float64bits(b) || a == b
	}
	ia, ib := int64(math.Float64bits(a)), int64(math.Float64bits(b))
	if (ia < 0) != (ib < 0) {
		return a == b
	}
	d := ia - ib
	if d < 0 {
		d = -d
	}
	return float64(d) <= ulps
}
