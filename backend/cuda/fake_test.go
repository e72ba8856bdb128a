package cuda_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend/cuda"
)

// The fake driver is built once per test binary, into fake.dir (removed by
// TestMain).
var fake struct {
	once sync.Once
	dir  string
	lib  string
	skip string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fake.dir != "" {
		os.RemoveAll(fake.dir)
	}
	if cuda.PTXCacheForTests != "" {
		os.RemoveAll(cuda.PTXCacheForTests)
	}
	os.Exit(code)
}

// buildFake builds testdata/fakecuda (a fake libcuda.so.1 that runs the
// kernels of kernels.cu on the host, and a fake NVRTC) with g++, or skips
// the test. Where XPMPI_FAKECUDA names a file, that is the driver, already
// built from this checkout with the flags below (scripts/test.sh builds it
// once for the whole suite).
func buildFake(t *testing.T) string {
	t.Helper()
	fake.once.Do(func() {
		if lib := os.Getenv("XPMPI_FAKECUDA"); lib != "" {
			if _, fake.err = os.Stat(lib); fake.err == nil {
				fake.lib = lib
			}
			return
		}
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			fake.skip = fmt.Sprintf("the fake driver is for linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
			return
		}
		gxx, err := exec.LookPath("g++")
		if err != nil {
			fake.skip = "no g++ to build the fake CUDA driver"
			return
		}
		if fake.dir, fake.err = os.MkdirTemp("", "xpmpi-fakecuda-"); fake.err != nil {
			return
		}
		lib := filepath.Join(fake.dir, "libcuda.so.1")
		cmd := exec.Command(gxx, "-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden",
			"-ffp-contract=off", "-fno-strict-aliasing", "-I", ".", "-o", lib, "testdata/fakecuda/fakecuda.cpp")
		if out, err := cmd.CombinedOutput(); err != nil {
			fake.err = fmt.Errorf("building the fake driver: %v\n%s", err, out)
			return
		}
		fake.lib = lib
	})
	if fake.skip != "" {
		t.Skip(fake.skip)
	}
	if fake.err != nil {
		t.Fatal(fake.err)
	}
	return fake.lib
}

// runChild runs the tests matching pattern in a new process of this test
// binary with the extra environment, and returns its output and whether it
// passed.
func runChild(t *testing.T, pattern string, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+pattern, "-test.v", "-test.count=1", "-test.timeout=20m")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%s: %s", pattern, time.Since(start).Round(time.Millisecond))
	return string(out), err == nil
}

// TestFakeDriver runs the TestGPU tests (the backendtest conformance suite
// among them) against the fake driver, in a child process so that it can
// load it as its driver: this exercises on a machine without a GPU the
// loading of the driver, the contexts, the memory and copies, the argument
// packing, and the kernels of kernels.cu themselves (compiled as C++ for
// the host). The PTX comes from the real NVRTC where there is one (and the
// fake driver checks that it has each entry), else from the fake NVRTC.
func TestFakeDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the emulated conformance suite takes a while")
	}
	lib := buildFake(t)
	nvrtc := lib
	if _, path, err := cuda.NVRTC(); err == nil {
		nvrtc = path
		t.Logf("kernels compiled by the NVRTC at %s", path)
	} else {
		t.Logf("no NVRTC (%v): the fake one stands in", err)
	}
	env := []string{"XPMPI_LIBCUDA=" + lib, "XPMPI_NVRTC=" + nvrtc, "XPMPI_DEVICE="}
	if cuda.PTXCacheForTests != "" && nvrtc != lib {
		// kernels.cu's PTX, as TestCompileKernels compiled it with the
		// same NVRTC (runChild's later XDG_CACHE_HOME wins).
		env = append(env, "XDG_CACHE_HOME="+cuda.PTXCacheForTests)
	}
	out, ok := runChild(t, "^TestGPU", env...)
	if !ok {
		t.Fatalf("the TestGPU tests failed on the fake driver:\n%s", out)
	}
	for _, name := range []string{"TestGPUConformance", "TestGPURegistered", "TestGPUPanics", "TestGPUAsync",
		"TestGPUArrays", "TestGPUConcurrent", "TestGPUDeterminism", "TestGPUCopyOverlap", "TestGPUParity", "TestGPUMath", "TestGPUStats", "TestGPUConvert", "TestGPUGemm", "TestGPUStencils", "TestGPUFFT", "TestGPUSort", "TestGPUComplex", "TestGPUComplexKernels", "TestGPUVendor", "TestGPULifetime"} {
		if !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass on the fake driver", name)
		}
	}
	if m := regexp.MustCompile(`(?m)^\s*--- SKIP: (TestGPU\w+) \(`).FindAllStringSubmatch(out, -1); len(m) > 0 {
		for _, s := range m {
			if s[1] != "TestGPUModule" && s[1] != "TestGPUBandwidth" && s[1] != "TestGPUCapabilities" {
				t.Errorf("%s skipped on the fake driver", s[1])
			}
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// TestFakeDriverErrors checks the errors of a driver without devices, of a
// driver library that cannot be loaded, and of a library that is not a
// CUDA driver, each in a child process (the driver is loaded once per
// process).
func TestFakeDriverErrors(t *testing.T) {
	libc, _ := filepath.Glob("/lib/x86_64-linux-gnu/libc.so.6")
	cases := []struct {
		name, libcuda, expect string
		env                   []string
	}{
		{"no device", "", "cuda: driver loaded but no CUDA device: cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)", []string{"FAKECUDA_DEVICES=0"}},
		{"no driver", "/nonexistent/libcuda.so.1", "cuda: cannot load /nonexistent/libcuda.so.1 (no NVIDIA driver): ", nil},
	}
	if len(libc) == 1 {
		cases = append(cases, struct {
			name, libcuda, expect string
			env                   []string
		}{"not a driver", libc[0], "cuda: " + libc[0] + " is not a usable CUDA driver (too old?): missing symbol cuInit", nil})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.libcuda == "" { // the fake driver
				if testing.Short() {
					t.Skip("-short: no fake driver built")
				}
				c.libcuda = buildFake(t)
			}
			env := append([]string{"XPMPI_LIBCUDA=" + c.libcuda, "XPMPI_CUDA_EXPECT=" + c.expect}, c.env...)
			out, ok := runChild(t, "^(TestNoDriver|TestFallback|TestEnvFallback)$", env...)
			if !ok || !strings.Contains(out, "--- PASS: TestNoDriver") || strings.Contains(out, "--- SKIP") {
				t.Errorf("TestNoDriver with XPMPI_LIBCUDA=%s:\n%s", c.libcuda, out)
			}
		})
	}
}
