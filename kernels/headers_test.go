package kernels_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

func TestHeadersListed(t *testing.T) {
	want := []string{"xpmpi/atomic.cuh", "xpmpi/cell.cuh", "xpmpi/morton.cuh", "xpmpi/philox.cuh", "xpmpi/reduce.cuh", "xpmpi/view.cuh"}
	if got := kernels.Headers(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Headers() = %v, want %v", got, want)
	}
	for _, n := range want {
		if h, ok := kernels.Header(n); !ok || !strings.Contains(h, "#ifndef XPMPI_") {
			t.Errorf("Header(%s): %v, no include guard", n, ok)
		}
	}
	_, err := kernels.New(kernels.Spec{Name: "k", CUDA: "#include \"xpmpi/nope.cuh\"\nextern \"C\" __global__ void k(float *x) {}"})
	if err == nil || !strings.Contains(err.Error(), "kernels: k (line 1): no shipped header xpmpi/nope.cuh") {
		t.Errorf("unknown header: %v", err)
	}
	k := kernels.MustNew(kernels.Spec{Name: "k", CUDA: "// one\n#include <xpmpi/morton.cuh>\nextern \"C\" __global__ void k(unsigned long long *x) { x[0] = xpmpi_morton2(1, 2); }"})
	src := k.VariantSource(k.Variants()[0])
	if !strings.Contains(src, "#line 1 \"xpmpi/morton.cuh\"\n/*") || !strings.Contains(src, "#endif\n\n#line 3 \"k.cu\"\nextern") {
		t.Errorf("variant source:\n%s", src)
	}
}

// hostProgram uses every shipped header on the host; Go fills in the
// inputs and compares what it prints.
const hostProgram = `
#include <cstdio>
#include <cstring>
#include "xpmpi/morton.cuh"
#include "xpmpi/reduce.cuh"
#include "xpmpi/atomic.cuh"
#include "xpmpi/view.cuh"

static const unsigned int coords[][3] = {
@COORDS@};
static const unsigned long long sums64[][@MAX@] = {
@SUMS64@};
static const unsigned int sums32[][@MAX@] = {
@SUMS32@};
static const int sumLens[] = {@LENS@};
static const unsigned long long pairs[][2] = {
@PAIRS@};

static double d(unsigned long long b) { double x; memcpy(&x, &b, 8); return x; }
static unsigned long long db(double x) { unsigned long long b; memcpy(&b, &x, 8); return b; }
static float f(unsigned int b) { float x; memcpy(&x, &b, 4); return x; }
static unsigned int fb(float x) { unsigned int b; memcpy(&b, &x, 4); return b; }

template <typename T> static T tree(T *s, unsigned int n)
{
	/* The threads of a block in lockstep, one level at a time. */
	for (unsigned int stride = xpmpi_tree_first_stride(n); stride > 0; stride >>= 1) {
		for (unsigned int i = 0; i < n; i++) {
			xpmpi_tree_step(s, n, stride, i);
		}
	}
	return n ? s[0] : (T)0;
}

int main()
{
	for (unsigned i = 0; i < sizeof coords / sizeof coords[0]; i++) {
		unsigned int x, y, z, x2, y2;
		unsigned long long k2 = xpmpi_morton2(coords[i][0], coords[i][1]);
		unsigned long long k3 = xpmpi_morton3(coords[i][0], coords[i][1], coords[i][2]);
		xpmpi_morton2_decode(k2, &x2, &y2);
		xpmpi_morton3_decode(k3, &x, &y, &z);
		printf("morton %llx %llx %x %x %x %x %x\n", k2, k3, x2, y2, x, y, z);
	}
	for (unsigned i = 0; i < sizeof sumLens / sizeof sumLens[0]; i++) {
		double s64[@MAX@];
		float s32[@MAX@];
		for (int j = 0; j < sumLens[i]; j++) {
			s64[j] = d(sums64[i][j]);
			s32[j] = f(sums32[i][j]);
		}
		printf("sum %llx %x\n", db(tree(s64, sumLens[i])), fb(tree(s32, sumLens[i])));
	}
	for (unsigned i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		double a = d(pairs[i][0]), b = d(pairs[i][1]);
		printf("minmax %llx %llx %x %x\n", db(xpmpi_min_nan(a, b)), db(xpmpi_max_nan(a, b)),
		       fb(xpmpi_min_nan((float)a, (float)b)), fb(xpmpi_max_nan((float)a, (float)b)));
	}
	int grid[6] = {0, 1, 2, 3, 4, 5};
	xpmpi_view2<int> v = xpmpi_make_view2(grid, 2, 3);
	xpmpi_view3<int> w = xpmpi_make_view3(grid, 1, 2, 3);
	printf("view %d %d %lld\n", v(1, 2), w(0, 1, 0), v.size());
	return 0;
}
`

// TestHeadersMatchGo compiles the shipped headers as C++ with g++ and
// checks that Morton keys, block sums and the NaN-winning min and max are
// the Go functions' bits.
func TestHeadersMatchGo(t *testing.T) {
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++ on PATH: the shipped headers are not compared with the Go functions")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "xpmpi"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range kernels.Headers() {
		h, _ := kernels.Header(n)
		if err := os.WriteFile(filepath.Join(dir, n), []byte(h), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	coords := [][3]uint32{{0, 0, 0}, {1, 2, 3}, {0xFFFFFFFF, 0, 0x1FFFFF}, {0x12345678, 0x9abcdef0, 0x0abcde}, {7, 0x1FFFFF, 1}}
	var ct strings.Builder
	for _, c := range coords {
		fmt.Fprintf(&ct, "\t{0x%xu, 0x%xu, 0x%xu},\n", c[0], c[1], c[2])
	}
	// Sums: sizes that are and are not powers of two, with values whose
	// sum depends on the order, and NaN and infinities.
	lens := []int{1, 2, 3, 5, 8, 13, 64, 100, 255, 256}
	const maxLen = 256
	var s64, s32 strings.Builder
	var lensText []string
	vals := make([][]float64, len(lens))
	for i, n := range lens {
		v := make([]float64, maxLen)
		for j := range v[:n] {
			v[j] = math.Pow(-1.7, float64(j%23)) * (1 + float64(j)*1e-7)
		}
		if n == 13 {
			v[3], v[7] = math.Inf(1), math.NaN()
		}
		vals[i] = v[:n]
		s64.WriteString("\t{")
		s32.WriteString("\t{")
		for _, x := range v {
			fmt.Fprintf(&s64, "0x%xull,", math.Float64bits(x))
			fmt.Fprintf(&s32, "0x%xu,", math.Float32bits(float32(x)))
		}
		s64.WriteString("},\n")
		s32.WriteString("},\n")
		lensText = append(lensText, fmt.Sprint(n))
	}
	negz := math.Copysign(0, -1)
	pairs := [][2]float64{{1, 2}, {2, 1}, {negz, 0}, {0, negz}, {math.NaN(), 1}, {1, math.NaN()}, {math.Inf(-1), math.Inf(1)}, {-3.5, -3.5}}
	var pt strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&pt, "\t{0x%xull, 0x%xull},\n", math.Float64bits(p[0]), math.Float64bits(p[1]))
	}
	src := strings.NewReplacer("@COORDS@", ct.String(), "@MAX@", fmt.Sprint(maxLen), "@SUMS64@", s64.String(),
		"@SUMS32@", s32.String(), "@LENS@", strings.Join(lensText, ", "), "@PAIRS@", pt.String()).Replace(hostProgram)
	main := filepath.Join(dir, "main.cpp")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "headers")
	args := []string{"-std=c++17", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-DXPMPI_DEBUG", "-I", dir, "-o", exe, main}
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("running the program: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	var mi, si, pi int
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch f[0] {
		case "morton":
			c := coords[mi]
			x, y := algorithms.Morton2Decode(algorithms.Morton2(c[0], c[1]))
			x3, y3, z3 := algorithms.Morton3Decode(algorithms.Morton3(c[0]&0x1FFFFF, c[1]&0x1FFFFF, c[2]&0x1FFFFF))
			want := fmt.Sprintf("%x %x %x %x %x %x %x", algorithms.Morton2(c[0], c[1]), algorithms.Morton3(c[0]&0x1FFFFF, c[1]&0x1FFFFF, c[2]&0x1FFFFF), x, y, x3, y3, z3)
			if got := strings.Join(f[1:], " "); got != want {
				t.Errorf("morton %v: C %s, Go %s", c, got, want)
			}
			mi++
		case "sum":
			v := vals[si]
			v32 := make([]float32, len(v))
			for j, x := range v {
				v32[j] = float32(x)
			}
			want := fmt.Sprintf("%x %x", math.Float64bits(kernels.BlockSum(v)), math.Float32bits(kernels.BlockSum(v32)))
			if got := strings.Join(f[1:], " "); got != want {
				t.Errorf("block sum of %d values: C %s, Go %s", len(v), got, want)
			}
			si++
		case "minmax":
			a, b := pairs[pi][0], pairs[pi][1]
			want := fmt.Sprintf("%x %x %x %x", math.Float64bits(kernels.MinNaN(a, b)), math.Float64bits(kernels.MaxNaN(a, b)),
				math.Float32bits(kernels.MinNaN(float32(a), float32(b))), math.Float32bits(kernels.MaxNaN(float32(a), float32(b))))
			if got := strings.Join(f[1:], " "); got != want {
				t.Errorf("min/max of %v, %v: C %s, Go %s", a, b, got, want)
			}
			pi++
		case "view":
			if got := strings.Join(f[1:], " "); got != "5 3 6" {
				t.Errorf("views: %s, want 5 3 6", got)
			}
		}
	}
	if mi != len(coords) || si != len(lens) || pi != len(pairs) {
		t.Errorf("the program printed %d, %d, %d results", mi, si, pi)
	}
	// The sums depend on the order: the tree is not a sequential sum.
	seq := 0.0
	for _, x := range vals[8] {
		seq += x
	}
	if seq == kernels.BlockSum(vals[8]) {
		t.Logf("note: the tree and sequential sums of 255 values agree")
	}
}

func TestBlockSumMinMax(t *testing.T) {
	if s := kernels.BlockSum([]float64{}); s != 0 {
		t.Errorf("empty sum %v", s)
	}
	if s := kernels.BlockSum([]float64{1, 2, 3}); s != 6 {
		t.Errorf("sum %v", s)
	}
	// (1e16 + 1) + (-1e16 + 1) in the tree: 1e16+(-1e16) first? No: pairs
	// (0,2), (1) then (0,1).
	if s := kernels.BlockSum([]float64{1e16, 1, -1e16}); s != 1 {
		t.Errorf("tree sum %v, want 1 ((1e16 + -1e16) + 1)", s)
	}
	negz := math.Copysign(0, -1)
	if v := kernels.MinNaN(0, negz); !math.Signbit(v) {
		t.Errorf("MinNaN(0, -0) = %v", v)
	}
	if v := kernels.MaxNaN(negz, 0); math.Signbit(v) {
		t.Errorf("MaxNaN(-0, 0) = -0")
	}
	if v := kernels.MaxNaN(1, math.NaN()); !math.IsNaN(v) {
		t.Errorf("MaxNaN(1, NaN) = %v", v)
	}
}

// TestHeadersNVRTC compiles a kernel that includes every shipped header.
func TestHeadersNVRTC(t *testing.T) {
	kerneltest.NeedNVRTC(t)
	k := kernels.MustNew(kernels.Spec{Name: "all", Types: []backend.DType{backend.Float32, backend.Float64}, CUDA: `
#include "xpmpi/philox.cuh"
#include "xpmpi/morton.cuh"
#include <xpmpi/reduce.cuh>
#include "xpmpi/atomic.cuh"
#include "xpmpi/view.cuh"
extern "C" __global__ void all(T *x, T *out, unsigned long long *keys, long long rows, long long cols)
{
	__shared__ T s[256];
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	xpmpi_view2<T> v = xpmpi_make_view2(x, rows, cols);
	s[threadIdx.x] = i < rows * cols ? v(i / cols, i % cols) : (T)0;
	T sum = xpmpi_block_sum(s);
	if (threadIdx.x == 0) {
		xpmpi_atomic_max(out, sum);
		keys[blockIdx.x] = xpmpi_morton2(blockIdx.x, threadIdx.x) + (unsigned long long)(xpmpi_uniform_f32(1, i, 0) * 2.0f);
	}
}`})
	for _, debug := range []string{"", "1"} {
		t.Setenv("XPMPI_CUDA_DEBUG", debug)
		for _, v := range k.Variants() {
			ptx, err := k.CompilePTX(v)
			if err != nil {
				t.Fatalf("XPMPI_CUDA_DEBUG=%s: %v", debug, err)
			}
			if !strings.Contains(string(ptx), ".entry all(") {
				t.Errorf("variant %v: no entry", v)
			}
		}
	}
}
