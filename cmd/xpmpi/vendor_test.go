package main

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestGPULibraries: xpmpi info says what computes the CUDA backend's GEMM
// and FFT (here, without a device: whether cuBLAS and cuFFT load), and the
// doctor has a finding for each library, a note where one is missing that
// says GEMM or FFT falls back to xpmpi's kernel; XPMPI_CUDA_LIBS=parity is
// one finding, and a wrong value a problem naming the variable.
func TestGPULibraries(t *testing.T) {
	out, _, err := execute(t, "info")
	if err != nil {
		t.Fatal(err)
	}
	if mpitest.World(t).Rank() == 0 && !strings.Contains(out, "GPU libraries (rank 0): mode vendor; ") {
		t.Errorf("info output:\n%s", out)
	}
	fs := vendorFindings()
	if len(fs) != 2 || fs[0].Check != "cublas" || fs[1].Check != "cufft" {
		t.Fatalf("findings %+v", fs)
	}
	for _, f := range fs {
		switch {
		case f.Status == statusOK && (strings.HasPrefix(f.Detail, "cuBLAS 1") || strings.HasPrefix(f.Detail, "cuFFT 1")):
		case f.Status == statusNote && strings.Contains(f.Detail, "not found") && strings.Contains(f.Detail, "falls back to xpmpi's kernel") && strings.Contains(f.Fix, "XPMPI_CU"):
		default:
			t.Errorf("finding %+v", f)
		}
	}
	t.Setenv("XPMPI_CUDA_LIBS", "parity")
	if fs := vendorFindings(); len(fs) != 1 || fs[0].Status != statusOK || !strings.Contains(fs[0].Detail, "XPMPI_CUDA_LIBS=parity") {
		t.Errorf("parity: %+v", fs)
	}
	t.Setenv("XPMPI_CUDA_LIBS", "turbo")
	if fs := vendorFindings(); len(fs) != 1 || fs[0].Status != statusProblem || !strings.Contains(fs[0].Detail, "XPMPI_CUDA_LIBS") {
		t.Errorf("a wrong value: %+v", fs)
	}
}
