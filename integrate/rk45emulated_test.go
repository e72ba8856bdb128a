package integrate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/mpi"
)

// The CUDA source of SolveIVPBatchArray's kernels run without a GPU:
// backend/cuda's fake CUDA driver (backend/cuda/testdata/fakecuda, a
// libcuda.so.1 that runs kernels compiled as C++ on the host, with
// -ffp-contract=off) is built with the kernels' CUDA source compiled in,
// and TestRK45EmulatedChild runs in a child process that loads it as its
// driver, so that the batch takes the CUDA path (launches of the CUDA
// kernels, compiled from the same source text as for a GPU, on the
// backend's device arrays) and must give SolveIVPBatch's bits. What this
// cannot check is the GPU's own arithmetic (sqrt, division and nextafter
// are correctly rounded or exact on both; pow is used only where its bits
// do not matter, see rk45_powm5).

// rk45EmulationShims are the CUDA intrinsics the kernels use that the fake
// driver's C++ environment does not define.
const rk45EmulationShims = `
#include <cstring>
static inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, sizeof r); return r; }
static inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, sizeof r); return r; }
`

func TestRK45Emulated(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the fake CUDA driver is not built")
	}
	if mpi.Built {
		t.Skip("the default build runs it: a child of an MPI rank would start MPI again")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the fake CUDA driver is for linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if !slices.Contains(backend.Names(), "cuda") {
		t.Skip("no CUDA backend in this build (built without cgo)")
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++ to build the fake CUDA driver")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(root, "backend", "cuda", "testdata", "fakecuda", "fakecuda.cpp")
	if _, err := os.Stat(fake); err != nil {
		t.Skipf("no fake CUDA driver source: %v", err)
	}
	dir := t.TempDir()
	var tu strings.Builder
	fmt.Fprintf(&tu, "#include %q\n%s", filepath.Join(root, "backend", "cuda", "kernels.cu"), rk45EmulationShims)
	tu.WriteString(rk45InitKernel.VariantSource(rk45InitKernel.Variants()[0]))
	tu.WriteString(oscKernel.VariantSource(oscKernel.Variants()[0]))
	// rk45_control has barriers (its count of running systems).
	tu.WriteString("\nXP_REGISTER(rk45_init, 0)\nXP_REGISTER(rk45_stage, 0)\nXP_REGISTER(rk45_control, 1)\nXP_REGISTER(rk45test_osc, 0)\n")
	if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), []byte(tu.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libcuda.so.1")
	cmd := exec.Command(gxx, "-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden",
		"-ffp-contract=off", "-fno-strict-aliasing", "-I", dir, "-I", filepath.Join(root, "backend", "cuda"), "-o", lib, fake)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fake driver: %v\n%s", err, out)
	}
	nvrtc := lib // the fake NVRTC, unless there is a real one
	if _, path, err := kernels.NVRTC(); err == nil {
		nvrtc = path
	}
	child := exec.Command(os.Args[0], "-test.run=^TestRK45EmulatedChild$", "-test.v", "-test.count=1")
	child.Env = append(os.Environ(), "XPMPI_KERNELS_EMULATION=1", "XPMPI_LIBCUDA="+lib, "XPMPI_NVRTC="+nvrtc,
		"XPMPI_DEVICE=", "XDG_CACHE_HOME="+t.TempDir(), "XPMPI_KERNELS_STRICT=1")
	out, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRK45EmulatedChild") {
		t.Fatalf("TestRK45EmulatedChild on the fake driver: %v\n%s", err, out)
	}
	t.Logf("TestRK45EmulatedChild on the fake driver:\n%s", out)
}

// TestRK45EmulatedChild runs in the child process of TestRK45Emulated:
// the kernels' parity cases, and the batch against SolveIVPBatch, on the
// CUDA backend (strict: no host fallback).
func TestRK45EmulatedChild(t *testing.T) {
	if os.Getenv("XPMPI_KERNELS_EMULATION") != "1" {
		t.Skip("run by TestRK45Emulated, against the fake CUDA driver")
	}
	dev, err := backend.Lookup("cuda")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*kernels.Kernel{rk45InitKernel, rk45StageKernel, rk45ControlKernel} {
		for _, c := range k.ParityCases() {
			if err := kerneltest.CheckCase(k, c, dev, backend.Float64); err != nil {
				t.Errorf("%s: %s: %v", k.Name(), c.Name, err)
			}
		}
	}
	for _, c := range []struct {
		n      int
		t0, tf float64
		opts   IVPOptions
	}{
		{47, 0, 3, IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9}},
		{10, 2, -1, IVPOptions{Method: RK45, MaxStep: 0.5, RelTols: []float64{1e-5, 1e-7}, AbsTols: []float64{1e-8, 1e-6}}},
		{30, 0, 5, IVPOptions{Method: RK45, FirstStep: 1e-3, MaxSteps: 40, IgnoreStiffness: true}},
	} {
		y0, a, b, cc := oscProblem(c.n, 0)
		hf, df, free := oscFuncs(t, dev, a, b, cc)
		want, werr := SolveIVPBatch(hf, c.n, 2, c.t0, c.tf, y0, &c.opts)
		y0d := onDevice(t, y0, dev)
		got, gerr := SolveIVPBatchArray(df, c.n, 2, c.t0, c.tf, y0d, &c.opts)
		if got == nil {
			t.Fatalf("n=%d: no result: %v", c.n, gerr)
		}
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("n=%d: error %v, host batch %v", c.n, gerr, werr)
		}
		if err := sameBatch(want, 0, 2, hostCopy(t, got.Y), got); err != nil {
			t.Errorf("n=%d: %v", c.n, err)
		}
		t.Logf("n=%d from %g to %g: %d rounds on %v, the host batch's bits", c.n, c.t0, c.tf, got.Rounds, dev.Device())
		got.Free()
		y0d.Free()
		free()
	}
}
