package cuda

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// PTXCacheForTests is a folder for XDG_CACHE_HOME that TestCompileKernels
// puts its compute_90 PTX of kernels.cu in, in the disk cache's layout,
// and TestFakeDriver's child process (a compute 9.0 device) reads: with the
// real NVRTC the source, which takes it about 12 s, is compiled once per
// test run rather than twice. Empty until TestCompileKernels has compiled;
// the package's TestMain removes it.
var PTXCacheForTests string

// requireNVRTC skips the test where no NVRTC library can be loaded.
func requireNVRTC(t *testing.T) {
	t.Helper()
	v, path, err := NVRTC()
	if err != nil {
		t.Skipf("no NVRTC library, so the kernels are not compiled here: %v\n"+
			"(fetch Debian's with scripts/fetch-nvrtc.sh DEST, then set XPMPI_NVRTC=<lib>/libnvrtc.so.11.2 and LD_LIBRARY_PATH=<lib>)", err)
	}
	t.Logf("NVRTC %s from %s", v, path)
}

// paramSizes returns the sizes in bytes of the parameters of op's entry for
// element size elem: what ops.go packs.
func paramSizes(op string, elem int) []int {
	switch op {
	case "fill", "scale":
		return []int{8, elem, 8}
	case "axpy":
		return []int{8, elem, 8, 8}
	case "axpby":
		return []int{8, elem, 8, elem, 8}
	case "add", "sub", "mul", "div", "dot", "jacobi5", "laplace5":
		return []int{8, 8, 8, 8}
	case "adds", "subs", "muls", "divs":
		return []int{8, 8, 8, elem}
	case "sum", "argmin", "argmax", "zeroidx":
		return []int{8, 8, 8}
	case "argmin2", "argmax2":
		return []int{4, 8, 8, 8}
	case "sum2":
		return []int{4, 8, 8}
	case "gemm":
		return []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 4}
	case "stencil9":
		return []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}
	case "stencil7":
		return []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}
	case "lapdot":
		return []int{8, 8, 8, 8, 8}
	case "rowsums":
		return []int{8, 8, 8}
	case "randf": // random.cu
		return []int{8, 8, 8, 8, 8, 8, 8, 4}
	case "randi":
		return []int{8, 8, 8, 8, 8, 8, 8, 8, 8}
	case "fftpass": // fft.cu
		return []int{8, 8, 8, 8, 8, 8, 8, 8, 4, 8}
	case "fftchirp":
		return []int{8, 8, 8, 8, 8, 8, 8, 4}
	case "fftmul":
		return []int{8, 8, 8, 8, 4}
	case "fftunchirp":
		return []int{8, 8, 8, 8, 8, 8, 8, 4, 8}
	case "sortbits", "sortbits2", "sortcount", "sortscan", "sortscatter", "sortiota", "cut", "take": // sort.cu
		return sortParamSizes(op)
	}
	return mathParamSizes(op, elem)
}

var (
	entryRE = regexp.MustCompile(`\.entry\s+(\w+)\s*\(([^)]*)\)`)
	paramRE = regexp.MustCompile(`\.param\s+\.[a-z](\d+)\s`)
)

// TestCompileKernels compiles the whole of kernels.cu to PTX with NVRTC,
// as the backend does on a GPU, and checks that the PTX has every entry,
// with parameters of the sizes the backend packs. It needs an NVRTC
// library, not a GPU; it is skipped without one.
func TestCompileKernels(t *testing.T) {
	requireNVRTC(t)
	compiled := 0
	archs := []string{"compute_90", "compute_70"}
	if testing.Short() {
		archs = archs[:1] // each compile of the whole source takes NVRTC a while
	}
	for _, arch := range archs {
		t.Run(arch, func(t *testing.T) {
			opts := append([]string{"--gpu-architecture=" + arch}, kernelOptions...)
			ptx, err := CompilePTX(KernelSource, "kernels.cu", opts...)
			var ce *CompileError
			if errors.As(err, &ce) && ce.Code == nvrtcInvalidOption {
				t.Skipf("this NVRTC does not know %s: %v", arch, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			compiled++
			text := string(ptx)
			if want := ".target sm_" + strings.TrimPrefix(arch, "compute_"); !strings.Contains(text, want) {
				t.Errorf("PTX lacks %q", want)
			}
			entries := map[string][]int{}
			for _, m := range entryRE.FindAllStringSubmatch(text, -1) {
				var sizes []int
				for _, p := range paramRE.FindAllStringSubmatch(m[2], -1) {
					bits, _ := strconv.Atoi(p[1])
					sizes = append(sizes, bits/8)
				}
				entries[m[1]] = sizes
			}
			want := KernelEntries()
			if len(entries) != len(want) {
				t.Errorf("PTX has %d entries, want %d", len(entries), len(want))
			}
			for _, name := range want {
				got, ok := entries[name]
				if !ok {
					t.Errorf("PTX has no .entry %s", name)
					continue
				}
				op := strings.TrimPrefix(name[:strings.LastIndex(name, "_")], "xp_")
				elem := 8 // by the type suffix: f32, i8, u16, ...
				switch suffix := name[strings.LastIndex(name, "_")+1:]; suffix[1:] {
				case "8":
					elem = 1
				case "16":
					elem = 2
				case "32":
					elem = 4
				}
				if strings.HasSuffix(name, "_c64") {
					elem = 4 // complex.cu's scalars are the parts: float32 for complex64
				}
				if exp := paramSizes(op, elem); !slices.Equal(got, exp) {
					t.Errorf("%s: parameters of %v bytes, the backend packs %v", name, got, exp)
				}
			}
			t.Logf("%s: %d entries, %d bytes of PTX", arch, len(entries), len(ptx))
			if arch == "compute_90" && !t.Failed() {
				if dir, err := os.MkdirTemp("", "xpmpi-ptx-"); err == nil {
					// What compileCached would have written.
					writeCacheFile(filepath.Join(dir, "xpmpi", "ptx", cacheKey(KernelSource, arch, kernelOptions)+".ptx"), ptx)
					PTXCacheForTests = dir
				}
			}
		})
	}
	if compiled == 0 {
		t.Error("the kernels compiled for no architecture")
	}
}

// TestCompileError checks that a compilation error is a *CompileError
// with NVRTC's log.
func TestCompileError(t *testing.T) {
	requireNVRTC(t)
	_, err := CompilePTX(`extern "C" __global__ void k(float *x) { x[0] = undefined_name; }`, "broken.cu",
		"--gpu-architecture=compute_90")
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want a *CompileError", err, err)
	}
	if !strings.Contains(ce.Log, "undefined_name") || !strings.Contains(err.Error(), "broken.cu") {
		t.Errorf("error without the log: %v", err)
	}
}

// TestCompileCache checks that compileCached falls back to an older
// architecture for one NVRTC does not know, and caches the PTX in memory
// and on disk.
func TestCompileCache(t *testing.T) {
	requireNVRTC(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("XPMPI_PTX_CACHE", "")
	src := `extern "C" __global__ void xp_cache_test(float *x) { x[threadIdx.x] += 1.0f; }`
	ptx, arch, err := compileCached(src, "cache.cu", []string{"compute_990", "compute_90", "compute_80"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if arch != "compute_90" || !strings.Contains(string(ptx), ".entry xp_cache_test(") {
		t.Errorf("compiled for %s:\n%s", arch, ptx)
	}
	key := cacheKey(src, arch, nil)
	file := diskCacheDir() + "/" + key + ".ptx"
	if data, err := os.ReadFile(file); err != nil || string(data) != string(ptx) {
		t.Errorf("disk cache %s: %v", file, err)
	}
	// A second compilation comes from memory.
	ptxCache.Store(key, []byte("cached"))
	if p, _, _ := compileCached(src, "cache.cu", []string{"compute_90"}, nil); string(p) != "cached" {
		t.Errorf("second compilation not from the memory cache: %.40q", p)
	}
	ptxCache.Delete(key)
	if p, _, _ := compileCached(src, "cache.cu", []string{"compute_90"}, nil); string(p) != string(ptx) {
		t.Errorf("third compilation not from the disk cache")
	}
	t.Setenv("XPMPI_PTX_CACHE", "off")
	if d := diskCacheDir(); d != "" {
		t.Errorf("XPMPI_PTX_CACHE=off: cache folder %q", d)
	}
}
