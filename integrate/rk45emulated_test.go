package integrate

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/fakecudatest"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

// The CUDA source of SolveIVPBatchArray's kernels run without a GPU:
// backend/cuda's fake CUDA driver (backend/cuda/testdata/fakecuda, a
// libcuda.so.1 that runs kernels compiled as C++ on the host, with
// -ffp-contract=off) is built with the kernels' CUDA source compiled in
// (internal/fakecudatest, whose shims give the bit casts the kernels
// use), and TestRK45EmulatedChild runs in a child process that loads it
// as its driver, so that the batch takes the CUDA path (launches of the
// CUDA kernels, compiled from the same source text as for a GPU, on the
// backend's device arrays) and must give SolveIVPBatch's bits. What this
// cannot check is the GPU's own arithmetic (sqrt, division and nextafter
// are correctly rounded or exact on both; pow is used only where its bits
// do not matter, see rk45_powm5).

func TestRK45Emulated(t *testing.T) {
	// rk45_control has barriers (its count of running systems).
	d := fakecudatest.Build(t,
		fakecudatest.Source{Code: rk45InitKernel.VariantSource(rk45InitKernel.Variants()[0]), Entries: []fakecudatest.Entry{
			{Name: "rk45_init"}, {Name: "rk45_stage"}, {Name: "rk45_control", Syncs: true}}},
		fakecudatest.Source{Code: oscKernel.VariantSource(oscKernel.Variants()[0]), Entries: []fakecudatest.Entry{{Name: "rk45test_osc"}}})
	d.Run(t, "TestRK45EmulatedChild")
}

// TestRK45EmulatedChild runs in the child process of TestRK45Emulated:
// the kernels' parity cases, and the batch against SolveIVPBatch, on the
// CUDA backend (strict: no host fallback).
func TestRK45EmulatedChild(t *testing.T) {
	fakecudatest.SkipUnlessChild(t)
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
