package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestKernelsList(t *testing.T) {
	out, _, err := execute(t, "kernels")
	if err != nil {
		t.Fatal(err)
	}
	if mpitest.World(t).Rank() != 0 {
		return
	}
	for _, w := range []string{"KERNEL", "axpy", "jacobi5", "laplace5", "float32, float64",
		"void axpy(long long n, T a, const T *__restrict__ x, T *__restrict__ y)", "CUDA kernels: 3 of 3"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	js, _, err := execute(t, "kernels", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var doc kernelsDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if doc.Summary != "CUDA kernels: 3 of 3" || len(doc.Kernels) < 3 || doc.Kernels[0].Name != "axpy" || !doc.Kernels[0].Host || !doc.Kernels[0].CUDA {
		t.Errorf("JSON document %+v", doc)
	}
}

func TestKernelsCompile(t *testing.T) {
	_, _, nverr := kernels.NVRTC()
	out, _, err := execute(t, "kernels", "--compile")
	if nverr != nil {
		oneLine(t, "kernels --compile without NVRTC", err, "kernels --compile", "NVRTC is not available")
		t.Skipf("no NVRTC (set XPMPI_NVRTC; see scripts/fetch-nvrtc.sh): %v", nverr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if mpitest.World(t).Rank() == 0 && (!strings.Contains(out, "ok   axpy (float64): ") || !strings.Contains(out, "ok   laplace5 (float32)")) {
		t.Errorf("output:\n%s", out)
	}
	// A kernel that does not compile is named, and the command fails.
	cat := kernels.NewCatalog()
	cat.MustRegister(kernels.AxpyKernel)
	cat.MustRegister(kernels.MustNew(kernels.Spec{Name: "broken", CUDA: `extern "C" __global__ void broken(float *x) { x[0] = nope; }`}))
	var buf bytes.Buffer
	err = runKernels(&buf, cat, false, true)
	oneLine(t, "a broken kernel", err, "1 failed", "broken (default)")
	if !strings.Contains(buf.String(), "FAIL broken (default): kernels: broken (variant default)") {
		t.Errorf("output:\n%s", buf.String())
	}
	buf.Reset()
	err = runKernels(&buf, cat, true, true)
	var doc kernelsDoc
	if jerr := json.Unmarshal(buf.Bytes(), &doc); jerr != nil || err == nil || len(doc.Failed) != 1 || doc.Summary != "CUDA kernels: 2 of 2" {
		t.Errorf("--json --compile: %v, %v, %+v", err, jerr, doc)
	}
}
