package integrate

import (
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
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
	kerneltest.NeedNVRTC(t)
	for _, k := range []*kernels.Kernel{rk45InitKernel, rk45StageKernel, rk45ControlKernel} {
		for _, v := range k.Variants() {
			if _, err := k.CompilePTX(v); err != nil {
				t.Errorf("%s: %v", k.Name(), err)
			}
		}
	}
}
