//go:build cgo

package fuse_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// cudaKernels are kernels whose generated CUDA source must compile: every
// operation, every element type, each kind of reduction.
func cudaKernels() map[string]*fuse.Kernel {
	out := map[string]*fuse.Kernel{}
	add := func(name string, roots ...*fuse.Expr) { out[name] = fuse.MustCompile(roots...) }
	{
		x, r, p, ap := fuse.Var[float64]("x"), fuse.Var[float64]("r"), fuse.Var[float64]("p"), fuse.Var[float64]("ap")
		alpha, beta := fuse.Param[float64]("alpha"), fuse.Param[float64]("beta")
		rn := fuse.Out("r", fuse.Sub(r, fuse.Mul(alpha, ap)))
		add("cg-update", fuse.Out("x", fuse.Add(x, fuse.Mul(alpha, p))), rn, fuse.Dot("rr", rn, rn))
		add("cg-dot", fuse.Dot("pap", p, ap))
		add("cg-p", fuse.Out("p", fuse.Add(r, fuse.Mul(beta, p))))
	}
	for _, f32 := range []bool{false, true} {
		x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
		if f32 {
			x, y, a = fuse.Var[float32]("x"), fuse.Var[float32]("y"), fuse.Param[float32]("a")
		}
		e := fuse.Div(fuse.Sub(fuse.Mul(x, y), fuse.Div(a, x)), fuse.Add(fuse.Sqrt(fuse.Abs(y)), fuse.Exp(fuse.Neg(x))))
		e = fuse.Add(e, fuse.Pow(fuse.Abs(x), a))
		e = fuse.Max(fuse.Min(e, fuse.Log(fuse.Abs(y))), x)
		c := fuse.Or(fuse.And(fuse.Lt(x, y), fuse.Not(fuse.Eq(x, a))), fuse.Ge(y, a))
		w := fuse.Where(c, e, fuse.Mul(a, y))
		name := "math64"
		if f32 {
			name = "math32"
		}
		add(name, fuse.Out("z", w), fuse.Sum("s", x), fuse.Dot("d", x, y), fuse.ReduceMax("mx", w), fuse.ReduceMin("mn", y),
			fuse.Out("i", fuse.Cast[int32](x)), fuse.Out("f", fuse.Cast[float64](fuse.Ne(x, y))))
	}
	{
		i, j, u := fuse.Var[int32]("i"), fuse.Var[int64]("j"), fuse.Var[uint64]("u")
		c := fuse.Param[int32]("c")
		e := fuse.Add(fuse.Mul(i, c), fuse.Neg(fuse.Abs(i)))
		add("ints", fuse.Out("k", fuse.Max(fuse.Min(e, c), fuse.Sub(i, c))),
			fuse.Out("j2", fuse.Where(fuse.Gt(fuse.Cast[int64](i), j), j, fuse.Mul(j, fuse.Const[int64](-3)))),
			fuse.Out("u2", fuse.Add(u, fuse.Cast[uint64](fuse.Abs(u)))),
			fuse.Sum("si", i), fuse.Dot("dj", j, j), fuse.ReduceMax("mx", u), fuse.ReduceMin("mn", i), fuse.Sum("su", fuse.Cast[uint32](i)))
	}
	{
		stencil, _ := cgStencilKernels(1026)
		out["cg-stencil"] = stencil
	}
	{
		x := fuse.Var[float32]("x")
		add("uniform-out", fuse.Out("z", fuse.Const[float32](1.5)), fuse.Out("y", x), fuse.Sum("n", fuse.Const[float32](1)))
	}
	return out
}

// TestCUDACompiles compiles the generated CUDA source of cudaKernels with
// NVRTC and checks that the PTX has the entries that CUDAProgram names.
// It needs NVRTC (XPMPI_NVRTC), not a GPU; launching is untested here.
func TestCUDACompiles(t *testing.T) {
	v, path, err := cuda.NVRTC()
	if err != nil {
		t.Skipf("no NVRTC library, so the generated CUDA is not compiled here: %v\n"+
			"(fetch Debian's with scripts/fetch-nvrtc.sh DEST, then set XPMPI_NVRTC=<lib>/libnvrtc.so.11.2 and LD_LIBRARY_PATH=<lib>)", err)
	}
	t.Logf("NVRTC %s from %s", v, path)
	for name, k := range cudaKernels() {
		t.Run(name, func(t *testing.T) {
			p, err := k.CUDA()
			if err != nil {
				t.Fatal(err)
			}
			opts := append([]string{"--gpu-architecture=compute_70"}, p.Options...)
			ptx, err := cuda.CompilePTX(p.Source, p.Name, opts...)
			if err != nil {
				t.Fatalf("%v\n%s", err, p.Source)
			}
			text := string(ptx)
			entries := []string{p.Main}
			if len(k.Reductions()) > 0 {
				entries = append(entries, p.Final)
			} else if p.Final != "" {
				t.Errorf("Final %q without reductions", p.Final)
			}
			for _, e := range entries {
				if !strings.Contains(text, ".entry "+e+"(") {
					t.Errorf("PTX lacks the entry %s", e)
				}
			}
			if len(p.Results) != len(k.Reductions()) {
				t.Errorf("Results %v, reductions %v", p.Results, k.Reductions())
			}
		})
	}
}
