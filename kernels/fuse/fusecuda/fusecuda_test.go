//go:build cgo

package fusecuda_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/kernels/fuse/fusecuda"
)

// TestRegistered checks that importing the package set its launcher.
func TestRegistered(t *testing.T) {
	prev := fuse.SetCUDALauncher(nil)
	defer fuse.SetCUDALauncher(prev)
	if _, ok := prev.(fusecuda.Launcher); !ok {
		t.Fatalf("the CUDA launcher is %T, want fusecuda.Launcher", prev)
	}
}

// TestCompile compiles the generated programs of kernels with and without
// reductions with NVRTC, as the launcher does on a GPU, and checks that
// the PTX has the entries the launcher launches. It needs an NVRTC
// library, not a GPU; it is skipped without one. (Running them needs a
// GPU: kernels/fuse's TestGPU runs them through this launcher.)
func TestCompile(t *testing.T) {
	if _, _, err := cuda.NVRTC(); err != nil {
		t.Skipf("no NVRTC library, so the programs are not compiled here: %v", err)
	}
	x, y, z := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Var[float64]("z")
	a := fuse.Param[float64]("a")
	yn := fuse.Out("y", fuse.Sub(y, fuse.Mul(a, x)))
	for name, k := range map[string]*fuse.Kernel{
		"update":  fuse.MustCompile(fuse.Out("x", fuse.Add(x, fuse.Mul(a, z))), yn, fuse.Dot("yy", yn, yn), fuse.ReduceMax("m", z)),
		"noreduc": fuse.MustCompile(fuse.Out("z", fuse.Add(fuse.Sqrt(fuse.Abs(y)), fuse.Mul(a, x)))),
	} {
		t.Run(name, func(t *testing.T) {
			p, err := k.CUDA()
			if err != nil {
				t.Fatal(err)
			}
			ptx, err := cuda.CompilePTX(p.Source, p.Name, append([]string{"--gpu-architecture=compute_70"}, p.Options...)...)
			if err != nil {
				t.Fatal(err)
			}
			entries := []string{p.Main}
			if len(p.Results) > 0 {
				entries = append(entries, p.Final)
			} else if p.Final != "" {
				t.Errorf("no reductions, but a final entry %q", p.Final)
			}
			for _, e := range entries {
				if !strings.Contains(string(ptx), ".entry "+e+"(") {
					t.Errorf("the PTX has no entry %s", e)
				}
			}
		})
	}
}
