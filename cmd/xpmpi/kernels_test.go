package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
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
		"void axpy(long long n, T a, const T *__restrict__ x, T *__restrict__ y)", "rk45_control", kernels.Default.Summary().String()} {
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
	if doc.Summary != kernels.Default.Summary().String() || len(doc.Kernels) < 6 || doc.Kernels[0].Name != "axpy" || !doc.Kernels[0].Host || !doc.Kernels[0].CUDA {
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
	err = runKernels(&buf, cat, false, true, nil)
	oneLine(t, "a broken kernel", err, "1 failed", "broken (default)")
	if !strings.Contains(buf.String(), "FAIL broken (default): kernels: broken (variant default)") {
		t.Errorf("output:\n%s", buf.String())
	}
	buf.Reset()
	err = runKernels(&buf, cat, true, true, nil)
	var doc kernelsDoc
	if jerr := json.Unmarshal(buf.Bytes(), &doc); jerr != nil || err == nil || len(doc.Failed) != 1 || doc.Summary != "CUDA kernels: 2 of 2" {
		t.Errorf("--json --compile: %v, %v, %+v", err, jerr, doc)
	}
}

func TestKernelsParity(t *testing.T) {
	out, _, err := execute(t, "kernels", "--parity")
	if err != nil {
		t.Fatal(err)
	}
	if mpitest.World(t).Rank() == 0 {
		for _, w := range []string{"parity: host and cpu", "ok   axpy (float32, odd size)", "ok   laplace5 (float64, NaN and infinities)"} {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
	}
	// A case that differs is named. (The fake device is not imported here:
	// it would register a backend that the CLI would then offer.)
	cpu, err := backend.Lookup("cpu")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	cat := kernels.NewCatalog()
	cat.MustRegister(kernels.AxpyKernel)
	cat.MustRegister(kernels.MustNew(kernels.Spec{Name: "uneven", Signature: "void uneven(float *x)",
		Host: func(c *kernels.HostCall) error {
			kernels.Out[float32](c, 0)[0] = float32(c.Len())
			return nil
		},
		Parity: []kernels.ParityCase{{Name: "sizes", Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
			calls++
			n := 2 + calls // 3 elements on the host side, 4 on the device side
			x, err := backend.NewOn[float32](b, n)
			return []kernels.Arg{kernels.Array(x)}, kernels.Config{}, err
		}}},
	}))
	var buf bytes.Buffer
	err = runKernels(&buf, cat, false, false, cpu)
	oneLine(t, "a kernel whose sides differ", err, "kernels --parity on cpu: 1 failed: parity uneven (sizes)")
	if !strings.Contains(buf.String(), "ok   axpy (int64, NaN and infinities)") || !strings.Contains(buf.String(), "FAIL uneven (sizes): kernels: uneven (sizes, float64), argument 0 (x): host and cpu differ: lengths 3 and 4") {
		t.Errorf("output:\n%s", buf.String())
	}
}
