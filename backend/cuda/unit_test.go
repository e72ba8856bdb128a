package cuda

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
)

func TestDeviceFor(t *testing.T) {
	cases := []struct{ rank, count, want int }{
		{0, 1, 0}, {1, 1, 0}, {5, 1, 0},
		{0, 4, 0}, {1, 4, 1}, {3, 4, 3}, {4, 4, 0}, {7, 4, 3},
		{0, 3, 0}, {5, 3, 2},
		{-1, 4, 0}, // a bad local rank counts as 0
		{0, 0, -1}, {3, -2, -1},
	}
	for _, c := range cases {
		if got := DeviceFor(c.rank, c.count); got != c.want {
			t.Errorf("DeviceFor(%d, %d) = %d, want %d", c.rank, c.count, got, c.want)
		}
	}
}

func TestChooseDevice(t *testing.T) {
	// No launcher variable: local rank 0.
	for _, v := range []string{"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
		"PMI_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID", "LOCAL_RANK", "XPMPI_DEVICE"} {
		t.Setenv(v, "")
	}
	if d, err := ChooseDevice(4); d != 0 || err != nil {
		t.Errorf("ChooseDevice(4) without a launcher = %d, %v; want 0", d, err)
	}
	t.Setenv("OMPI_COMM_WORLD_LOCAL_RANK", "5")
	if d, err := ChooseDevice(4); d != 1 || err != nil {
		t.Errorf("ChooseDevice(4) at local rank 5 = %d, %v; want 1", d, err)
	}
	t.Setenv("XPMPI_DEVICE", "2")
	if d, err := ChooseDevice(4); d != 2 || err != nil {
		t.Errorf("ChooseDevice(4) with XPMPI_DEVICE=2 = %d, %v; want 2", d, err)
	}
	for _, bad := range []string{"4", "-1", "gpu0"} {
		t.Setenv("XPMPI_DEVICE", bad)
		if d, err := ChooseDevice(4); err == nil || !strings.Contains(err.Error(), "XPMPI_DEVICE") {
			t.Errorf("ChooseDevice(4) with XPMPI_DEVICE=%s = %d, %v; want an error naming XPMPI_DEVICE", bad, d, err)
		}
	}
	if _, err := ChooseDevice(0); err == nil {
		t.Error("ChooseDevice(0): no error")
	}
}

// TestArgsPacking checks that kernel arguments are packed at their true
// sizes, little-endian, back to back.
func TestArgsPacking(t *testing.T) {
	a := (&Args{}).
		Int64(-2).
		Scalar(driver.ScalarOf(float32(1.5))).
		Scalar(driver.ScalarOf(2.5)).
		Scalar(driver.ScalarOf(int32(-3))).
		Scalar(driver.ScalarOf(uint64(1) << 40)).
		Int32(7).
		Uint32(8).
		Float32(-0.5).
		Float64(0.25).
		DevicePtr(0xdeadbeef00).
		Bytes([]byte{1, 2, 3}).
		Scalar(driver.ScalarOf(int8(-4))).
		Scalar(driver.ScalarOf(uint16(0xbeef)))
	wantSizes := []int{8, 4, 8, 4, 8, 4, 4, 4, 8, 8, 3, 1, 2}
	if got := a.Sizes(); !slices.Equal(got, wantSizes) {
		t.Errorf("Sizes() = %v, want %v", got, wantSizes)
	}
	if a.Len() != len(wantSizes) {
		t.Errorf("Len() = %d, want %d", a.Len(), len(wantSizes))
	}
	var w bytes.Buffer
	le := binary.LittleEndian
	for _, v := range []any{int64(-2), math.Float32bits(1.5), math.Float64bits(2.5), int32(-3), uint64(1) << 40,
		int32(7), uint32(8), math.Float32bits(-0.5), math.Float64bits(0.25), uint64(0xdeadbeef00), []byte{1, 2, 3},
		int8(-4), uint16(0xbeef)} {
		binary.Write(&w, le, v)
	}
	if got := a.Packed(); !bytes.Equal(got, w.Bytes()) {
		t.Errorf("Packed() = %x, want %x", got, w.Bytes())
	}
	for _, n := range []int{0, MaxArgBytes + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Bytes of %d bytes: no panic", n)
				}
			}()
			(&Args{}).Bytes(make([]byte, n))
		}()
	}
}

// TestArgsBuffer checks that a device buffer is passed as its address,
// views included, and that a host buffer is refused.
func TestArgsBuffer(t *testing.T) {
	m := &devMemory{ptr: 0x7f0000001000, bytes: 800}
	d := &devBuffer{Mem: &devHandle{m: m}, N: 100, DT: backend.Float64, Dev: backend.Device{Kind: backend.CUDA}, Root: true}
	b := &Backend{}
	v := b.Slice(d, 10, 20)
	a := (&Args{}).Buffer(d).Buffer(v).Buffer(b.Slice(d, 5, 5))
	want := binary.LittleEndian.AppendUint64(nil, 0x7f0000001000)
	want = binary.LittleEndian.AppendUint64(want, 0x7f0000001000+80)
	want = binary.LittleEndian.AppendUint64(want, 0)
	if !bytes.Equal(a.Packed(), want) || !slices.Equal(a.Sizes(), []int{8, 8, 8}) {
		t.Errorf("Buffer args: %x %v, want %x [8 8 8]", a.Packed(), a.Sizes(), want)
	}
	// A view of a freed allocation is refused: no launch on freed memory.
	m.freed.Store(true)
	func() {
		defer func() {
			if err, ok := recover().(error); !ok || !errors.Is(err, backend.ErrFreed) {
				t.Errorf("Buffer of a view of a freed allocation: %v, want a panic wrapping ErrFreed", err)
			}
		}()
		(&Args{}).Buffer(v)
	}()
	m.freed.Store(false)
	if p := v.Ptr(); uintptr(p) != 0x7f0000001000+80 {
		t.Errorf("view Ptr() = %p", p)
	}
	if p, ok := DevicePtr(v); !ok || p != 0x7f0000001000+80 {
		t.Errorf("DevicePtr(view) = %#x, %v", p, ok)
	}
	if _, ok := DevicePtr(driver.HostBufferOf([]float64{1})); ok {
		t.Error("DevicePtr of a host buffer: ok")
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "cuda: kernel argument") {
			t.Errorf("Buffer(host buffer): panic %v", r)
		}
	}()
	(&Args{}).Buffer(driver.HostBufferOf([]float64{1}))
}

func TestSliceBounds(t *testing.T) {
	d := &devBuffer{Mem: &devHandle{m: &devMemory{ptr: 0x1000, bytes: 40}}, N: 10, DT: backend.Int32,
		Dev: backend.Device{Kind: backend.CUDA}, Root: true}
	b := &Backend{}
	v := b.Slice(b.Slice(d, 2, 9), 1, 4)
	if p, _ := DevicePtr(v); v.Len() != 3 || p != 0x1000+12 || v.DType() != backend.Int32 {
		t.Errorf("view of a view: %d elements at %#x", v.Len(), p)
	}
	if e := b.Slice(d, 3, 3); e.Len() != 0 || e.Ptr() != nil {
		t.Errorf("empty view: %d elements at %p", e.Len(), e.Ptr())
	}
	b.Free(v) // a view: nothing happens
	for _, c := range [][2]int{{-1, 2}, {3, 2}, {0, 11}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "cuda: slice") {
					t.Errorf("Slice(%d, %d): panic %v", c[0], c[1], r)
				}
			}()
			b.Slice(d, c[0], c[1])
		}()
	}
}

func TestLaunchConfig(t *testing.T) {
	prev := 0
	for _, n := range []int{1, 2, 1023, 1024, 1025, 4096, 1 << 20, 1<<20 + 7, 1 << 30} {
		g := reduceGrid(n)
		if g < 1 || g > maxReduceGrid || g < prev {
			t.Errorf("reduceGrid(%d) = %d", n, g)
		}
		if g < maxReduceGrid && g*reduceBlock*reducePerThread < n {
			t.Errorf("reduceGrid(%d) = %d blocks do not cover it", n, g)
		}
		prev = g
		eg := elemGrid(n)
		if eg.X < 1 || eg.X > maxElemGrid || (eg.X < maxElemGrid && eg.X*blockSize < n) {
			t.Errorf("elemGrid(%d) = %v", n, eg)
		}
	}
	if g := jacobiGrid(3, 3); g.X != 1 || g.Y != 1 {
		t.Errorf("jacobiGrid(3, 3) = %v", g)
	}
	if g := jacobiGrid(1<<20, 66); g.X != 2 || g.Y != 65535 {
		t.Errorf("jacobiGrid(2^20, 66) = %v", g)
	}
}

func TestArchCandidates(t *testing.T) {
	got := archCandidates(9, 0)
	if got[0] != "compute_90" || !slices.Contains(got, "compute_80") || slices.Contains(got, "compute_100") {
		t.Errorf("archCandidates(9, 0) = %v", got)
	}
	if got := archCandidates(7, 0); !slices.Equal(got, []string{"compute_70", "compute_61", "compute_60", "compute_52"}) {
		t.Errorf("archCandidates(7, 0) = %v", got)
	}
}

func TestKernelEntries(t *testing.T) {
	e := KernelEntries()
	want := 10*len(opsAll) + 8*len(opsInt) + 2*len(opsFloat) + len(opsPlain) + 2*len(mathOpsFloat) + 10*len(mathOpsAll) +
		10*len(statsOpsAll) + 2*len(statsOpsFloat) + 8*len(statsOpsInt) + len(statsPlain) +
		10*len(convertOps) + 10*10 + len(convertPlain) +
		10 + // gemm.cu: xp_gemm_S
		2*3 + 1 + // stencil.cu: stencil9, stencil7, lapdot; xp_rowsums_f64
		2 + 8 + // random.cu: xp_randf_S for the floats, xp_randi_S for the integers
		2*4 + // fft.cu: fftpass, fftchirp, fftmul, fftunchirp for f32 (complex64) and f64 (complex128)
		2*len(complexOps) + len(complexPlain) + // complex.cu: xp_<op>_c64, xp_<op>_c128
		2*len(complexKernelOps) + 2*2*10 + 2 // complex.cu's optional kernels; xp_cvt_ to and from each real type; c64 <-> c128
	want += 10*4 + 3 + len(takeSizes) // sort.cu: sortbits, sortcount, sortscatter, cut per type; sortbits2, sortscan, sortiota; xp_take_bE
	if len(e) != want {
		t.Errorf("%d entries, want %d", len(e), want)
	}
	seen := map[string]bool{}
	for _, n := range e {
		if seen[n] {
			t.Errorf("entry %s twice", n)
		}
		seen[n] = true
		pasted := n[:strings.LastIndex(n, "_")] + "_##S" // as the entry macros spell it
		if strings.HasPrefix(n, "xp_cvt_") {
			pasted = "xp_cvt_##DS##_##SS" // XP_CVT's spelling, one macro for the hundred pairs
		}
		if !strings.Contains(KernelSource, pasted) && !strings.Contains(KernelSource, n) {
			t.Errorf("entry %s does not appear in kernels.cu", n)
		}
	}
	for _, n := range []string{"xp_sumaxis_f32", "xp_prodi_u8", "xp_castsums_f64", "xp_ratio_f64", "xp_cvt_u64_f32", "xp_cvt_i8_i8",
		"xp_cpscatter_i16", "xp_cpcount_u8", "xp_axpy_f64", "xp_sum_i32", "xp_zeroidx_u64", "xp_jacobi5_f32", "xp_sum2_f64", "xp_fill_i8", "xp_div_u16", "xp_zeroidx_i16", "xp_argmax2_u8"} {
		if !seen[n] {
			t.Errorf("no entry %s", n)
		}
	}
	for _, n := range []string{"xp_sumaxis_c64", "xp_castsums_c128", "xp_scanaxis_c64", "xp_where_c128", "xp_cpscatter_c64",
		"xp_gemm_c128", "xp_cvt_c64_c128", "xp_cvt_c128_c64", "xp_cvt_c64_u16", "xp_cvt_i8_c128", "xp_cvt_f32_c64"} {
		if !seen[n] {
			t.Errorf("no entry %s", n)
		}
	}
	if seen["xp_jacobi5_i32"] || seen["xp_zeroidx_f64"] || seen["xp_prodi_f32"] || seen["xp_prodf_i64"] || seen["xp_castsums_i32"] ||
		seen["xp_cvt_c64_c64"] || seen["xp_cvt_c128_c128"] {
		t.Error("entries for the wrong types")
	}
}

func TestNVRTCCandidates(t *testing.T) {
	t.Setenv("XPMPI_NVRTC", "")
	t.Setenv("CUDA_HOME", "/opt/cuda")
	t.Setenv("CUDA_PATH", "/opt/cuda")
	c := NVRTCCandidates()
	if !slices.Equal(c[:4], nvrtcNames) {
		t.Errorf("plain names first: %v", c)
	}
	if !slices.Contains(c, filepath.Join("/opt/cuda/lib64", "libnvrtc.so.12")) ||
		!slices.Contains(c, "/usr/local/cuda/lib64/libnvrtc.so.13") {
		t.Errorf("candidates %v", c)
	}
	if n := len(c); n != 4*3 {
		t.Errorf("%d candidates (CUDA_HOME and CUDA_PATH the same folder): %v", n, c)
	}
	t.Setenv("XPMPI_NVRTC", "/x/libnvrtc.so.11.2")
	if c := NVRTCCandidates(); !slices.Equal(c, []string{"/x/libnvrtc.so.11.2"}) {
		t.Errorf("with XPMPI_NVRTC: %v", c)
	}
}

func TestScalars(t *testing.T) {
	for _, c := range []struct {
		in   backend.Scalar
		dt   backend.DType
		want backend.Scalar
	}{
		{driver.ScalarOf(2.5), backend.Float32, driver.ScalarOf(float32(2.5))},
		{driver.ScalarOf(int64(-3)), backend.Int32, driver.ScalarOf(int32(-3))},
		{driver.ScalarOf(int32(7)), backend.Uint64, driver.ScalarOf(uint64(7))},
		{driver.ScalarOf(float32(1)), backend.Float32, driver.ScalarOf(float32(1))},
	} {
		if got := convert(c.in, c.dt); got != c.want {
			t.Errorf("convert(%v, %v) = %v (%v)", c.in, c.dt, got, got.DType())
		}
	}
	for _, s := range []backend.Scalar{driver.ScalarOf(float32(-1.25)), driver.ScalarOf(math.Inf(-1)),
		driver.ScalarOf(int32(math.MinInt32)), driver.ScalarOf(int64(-5)), driver.ScalarOf(uint32(math.MaxUint32)),
		driver.ScalarOf(uint64(math.MaxUint64))} {
		if got := scalarFromBits(s.DType(), s.Bits()); got != s {
			t.Errorf("scalarFromBits(%v, %#x) = %v", s.DType(), s.Bits(), got)
		}
	}
	if got := reduced(backend.Int32, math.MaxUint64); got != driver.ScalarOf(int64(-1)) {
		t.Errorf("reduced(int32, all ones) = %v (%v)", got, got.DType())
	}
	if got := reduced(backend.Float32, math.Float64bits(0.5)); got != driver.ScalarOf(0.5) {
		t.Errorf("reduced(float32, 0.5) = %v (%v)", got, got.DType())
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Call: "cuMemAlloc", Code: 2}
	if s := e.Error(); !strings.HasPrefix(s, "cuda: cuMemAlloc: ") {
		t.Errorf("Error() = %q", s)
	}
	ce := &CompileError{Name: "k.cu", Message: "NVRTC_ERROR_COMPILATION", Log: "k.cu(3): error: x\n"}
	if s := ce.Error(); !strings.Contains(s, "k.cu(3): error: x") || !strings.HasPrefix(s, "cuda: NVRTC cannot compile k.cu") {
		t.Errorf("CompileError = %q", s)
	}
}

// TestLazyLoad checks, in a fresh process, that importing the package loads
// neither the driver nor NVRTC: only looking the backend up does.
func TestLazyLoad(t *testing.T) {
	if os.Getenv("XPMPI_CUDA_TEST_CHILD") == "lazy" {
		if driverLoaded() || libcuda.path != "" || nvrtcState.done {
			fmt.Println("LOADED AT INIT")
			os.Exit(1)
		}
		fmt.Println("NOTHING LOADED")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLazyLoad$")
	cmd.Env = append(os.Environ(), "XPMPI_CUDA_TEST_CHILD=lazy")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "NOTHING LOADED") {
		t.Errorf("child: %v\n%s", err, out)
	}
}
