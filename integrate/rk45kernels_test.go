package integrate

import (
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/mpi"
)

// TestRK45KernelsParity runs the parity cases of SolveIVPBatchArray's
// kernels on the host and on the device (the fake device without a GPU),
// and checks that they are in the catalog.
func TestRK45KernelsParity(t *testing.T) {
	ks := []*kernels.Kernel{rk45InitKernel, rk45StageKernel, rk45ControlKernel}
	for _, k := range ks {
		if c, ok := kernels.Lookup(k.Name()); !ok || c != k {
			t.Errorf("%s is not in kernels.Default", k.Name())
		}
	}
	// One fake CUDA driver for the three (Parity builds one per call).
	kerneltest.Parity(t, ks...)
}

// TestRK45KernelsCompile compiles the kernels' CUDA source with NVRTC
// (skipped without it).
func TestRK45KernelsCompile(t *testing.T) {
	if mpi.Built {
		t.Skip("the default build compiles them (once, not on every rank)")
	}
	if _, _, err := kernels.NVRTC(); err != nil {
		t.Skipf("no NVRTC (set XPMPI_NVRTC; see scripts/fetch-nvrtc.sh): %v", err)
	}
	for _, k := range []*kernels.Kernel{rk45InitKernel, rk45StageKernel, rk45ControlKernel} {
		for _, v := range k.Variants() {
			if _, err := k.CompilePTX(v); err != nil {
				t.Errorf("%s: %v", k.Name(), err)
			}
		}
	}
}
