package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/mpi"
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
	if mpi.Built {
		// kernels --compile makes no MPI call: every rank would compile
		// the catalog alike (4-5 s of NVRTC each; 16-20 s of the suite at
		// 3 and 4 ranks on 2 cores), and rank 0's output under MPI is
		// TestKernelsList's.
		t.Skip("the default build compiles them (once, not on every rank)")
	}
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
	// On the CPU backend there is nothing to compare: no "ok" lines, and
	// exit code 3.
	out, _, err := execute(t, "kernels", "--parity")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitNothingToCompare {
		t.Fatalf("kernels --parity on the CPU: %v, want exit code %d", err, exitNothingToCompare)
	}
	oneLine(t, "kernels --parity on the CPU", err, "kernels --parity: nothing to compare: cpu", "runs no CUDA code")
	if mpitest.World(t).Rank() == 0 {
		if !strings.Contains(out, "parity: nothing to compare: cpu") || strings.Contains(out, "ok ") {
			t.Errorf("output:\n%s", out)
		}
	}
	js, _, err := execute(t, "kernels", "--parity", "--json")
	var doc kernelsDoc
	if mpitest.World(t).Rank() == 0 {
		if jerr := json.Unmarshal([]byte(js), &doc); jerr != nil || !errors.As(err, &ee) || ee.code != exitNothingToCompare || doc.NothingToCompare == "" || len(doc.Parity) != 0 {
			t.Errorf("--parity --json: %v, %v, %+v", err, jerr, doc)
		}
	}
}

// doubleKernel is y = 2x on the device; its host implementation is wrong
// at index 2 when wrong is set.
func doubleKernel(name string, wrong bool) *kernels.Kernel {
	return kernels.MustNew(kernels.Spec{
		Name: name,
		CUDA: `extern "C" __global__ void ` + name + `(const double *x, double *y, long long n)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = 2.0 * x[i];
	}
}`,
		Host: func(c *kernels.HostCall) error {
			x, y := kernels.In[float64](c, 0), kernels.Out[float64](c, 1)
			for i := range kernels.IntAt(c, 2) {
				y[i] = 2 * x[i]
				if wrong && i == 2 {
					y[i] = -1
				}
			}
			return nil
		},
		Parity: kernels.StandardCases(func(b backend.Backend, dt backend.DType, in kernels.Inputs) ([]kernels.Arg, kernels.Config, error) {
			x, err := kernels.NewArray[float64](b, in.Values(dt, 0))
			if err != nil {
				return nil, kernels.Config{}, err
			}
			y, err := backend.NewOn[float64](b, in.N)
			return []kernels.Arg{kernels.Array(x), kernels.Array(y), kernels.Int(in.N)}, kernels.Config{}, err
		}),
	})
}

var (
	rightDouble = doubleKernel("rightdouble", false)
	wrongDouble = doubleKernel("wrongdouble", true)
)

// TestKernelsParityEmulated runs --parity's comparison on the fake CUDA
// driver (in a child process; skipped with -short and in MPI builds): a
// right kernel passes, a wrong host implementation fails, named, with
// exit code 1, and a host-only kernel is skipped.
func TestKernelsParityEmulated(t *testing.T) {
	dev := kerneltest.Emulate(t, rightDouble, wrongDouble)
	if dev == nil {
		return
	}
	cat := kernels.NewCatalog()
	cat.MustRegister(rightDouble)
	cat.MustRegister(wrongDouble)
	cat.MustRegister(kernels.MustNew(kernels.Spec{Name: "hostonly", Signature: "void hostonly(float *x)",
		Host:   func(*kernels.HostCall) error { return nil },
		Parity: []kernels.ParityCase{{Name: "x"}}}))
	var buf bytes.Buffer
	err := runKernels(&buf, cat, false, false, dev)
	var ee *exitError
	if errors.As(err, &ee) {
		t.Errorf("exit code %d, want 1", ee.code)
	}
	oneLine(t, "a wrong host implementation", err, "kernels --parity on cuda:0: 2 failed: parity wrongdouble (odd size), parity wrongdouble (NaN and infinities)")
	for _, w := range []string{"parity: host and cuda:0", "ok   rightdouble (odd size)", "ok   rightdouble (NaN and infinities)",
		"FAIL wrongdouble (odd size): kernels: wrongdouble (odd size, float64), argument 1 (y): host and cuda:0 differ: first difference at index 2",
		"skip hostonly: hostonly has no CUDA source"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, buf.String())
		}
	}
}
