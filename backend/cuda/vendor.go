package cuda

/*
#include <stdlib.h>
#include "xpvendor.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/internal/envvar"
)

// LibMode chooses what computes the backend's float matrix products and
// Fourier transforms: NVIDIA's libraries (VendorMode, the default) or
// xpmpi's own kernels (ParityMode).
//
//   - VendorMode, "vendor speed": cuBLAS (Gemm of float32, float64,
//     complex64 and complex128) and cuFFT (FFT) where they load and start,
//     loaded at run time with dlopen as the driver is. Their order of
//     operations is their own (it changes with the library's version and
//     the device): GEMM results are within the bound Backend.Gemm states
//     of the exact product (so within twice that of the CPU's), FFT
//     results within about 1e-15 (complex128) and 5e-7 (complex64)
//     relative of NumPy's in the max norm. Where a library is missing or
//     does not start, the backend uses its own kernel and says why
//     (Backend.Vendor, `xpmpi info`, one log line).
//   - ParityMode, "same bits as the CPU": gemm.cu and fft.cu, whose float
//     GEMM sums in the naive loop's order (gonum's bits) and whose FFT is
//     deterministic, the same on every device.
//
// Integer GEMM is xpmpi's kernel in both modes (cuBLAS has no GEMM that
// wraps as Go does).
type LibMode int

const (
	VendorMode LibMode = iota // cuBLAS and cuFFT where present ("vendor")
	ParityMode                // xpmpi's kernels ("parity")
)

// String returns "vendor" or "parity".
func (m LibMode) String() string {
	if m == ParityMode {
		return "parity"
	}
	return "vendor"
}

// LibModeEnv is the environment variable that sets the mode of every
// backend when it is opened: "vendor" (the default) or "parity".
const LibModeEnv = "XPMPI_CUDA_LIBS"

// LibModeFromEnv returns the mode XPMPI_CUDA_LIBS asks for (VendorMode if
// it is unset or empty), or an error naming the variable.
func LibModeFromEnv() (LibMode, error) {
	s := strings.TrimSpace(os.Getenv(LibModeEnv))
	if err := envvar.Check(LibModeEnv, s); err != nil {
		return VendorMode, err
	}
	switch strings.ToLower(s) {
	case "", "vendor":
		return VendorMode, nil
	case "parity":
		return ParityMode, nil
	}
	return VendorMode, fmt.Errorf("cuda: %s=%s: want vendor (cuBLAS and cuFFT where present, the default) or parity (xpmpi's kernels: the CPU's bits)", LibModeEnv, envvar.Quote(s))
}

// CUBLASEnv and CUFFTEnv name the environment variables that give the
// cuBLAS and cuFFT library files to load (a path), instead of searching
// the loader's path and the CUDA folders.
const (
	CUBLASEnv = "XPMPI_CUBLAS"
	CUFFTEnv  = "XPMPI_CUFFT"
)

// vendorLib is a vendor library once loaded.
type vendorLib struct {
	name    string // "cuBLAS"
	env     string // the variable that names its file
	names   []string
	preload []string // libraries next to it, loaded first (cuBLASLt)
	load    func(path string, err *C.char, n C.size_t) C.int
	version func() string

	once sync.Once
	path string
	ver  string
	err  error
}

var (
	cublasLib = &vendorLib{name: "cuBLAS", env: CUBLASEnv,
		names:   []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"},
		preload: []string{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"},
		load: func(p string, e *C.char, n C.size_t) C.int {
			cp := C.CString(p)
			defer C.free(unsafe.Pointer(cp))
			return C.xpv_cublas_load(cp, e, n)
		},
		version: func() string {
			var v [3]C.int
			for i := range v {
				C.xpv_cublasGetProperty(C.int(i), &v[i])
			}
			return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
		}}
	cufftLib = &vendorLib{name: "cuFFT", env: CUFFTEnv,
		names: []string{"libcufft.so.12", "libcufft.so.11", "libcufft.so.10", "libcufft.so"},
		load: func(p string, e *C.char, n C.size_t) C.int {
			cp := C.CString(p)
			defer C.free(unsafe.Pointer(cp))
			return C.xpv_cufft_load(cp, e, n)
		},
		version: func() string {
			var v C.int
			C.xpv_cufftGetVersion(&v)
			return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
		}}
)

// Candidates returns the files tried, in order: the variable's path if it
// is set; otherwise the library's names on the loader's path, then under
// $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64.
func (l *vendorLib) Candidates() []string {
	if p := strings.TrimSpace(os.Getenv(l.env)); p != "" {
		return []string{p}
	}
	out := append([]string(nil), l.names...)
	seen := map[string]bool{}
	for _, dir := range []string{os.Getenv("CUDA_HOME"), os.Getenv("CUDA_PATH"), "/usr/local/cuda"} {
		dir = strings.TrimSpace(dir)
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		for _, n := range l.names {
			out = append(out, filepath.Join(dir, "lib64", n))
		}
	}
	return out
}

// open loads the library once (no device is needed), and returns why not.
func (l *vendorLib) open() error {
	l.once.Do(func() {
		var tried []string
		for _, c := range l.Candidates() {
			if strings.Contains(c, "/") {
				if _, err := os.Stat(c); err != nil {
					tried = append(tried, c+": "+shortErr(err))
					continue
				}
				// A library next to it that it needs (cuBLASLt), loaded
				// first so that its folder need not be on the loader's path.
				for _, p := range l.preload {
					if q := filepath.Join(filepath.Dir(c), p); fileExists(q) {
						var buf [512]C.char
						cq := C.CString(q)
						C.xpcu_dlopen_global(cq, &buf[0], C.size_t(len(buf)))
						C.free(unsafe.Pointer(cq))
						break
					}
				}
			}
			var buf [512]C.char
			if rc := l.load(c, &buf[0], C.size_t(len(buf))); rc != 0 {
				tried = append(tried, c+": "+C.GoString(&buf[0]))
				continue
			}
			l.path, l.ver = c, l.version()
			return
		}
		if strings.TrimSpace(os.Getenv(l.env)) != "" {
			l.err = fmt.Errorf("cuda: %s not found (tried %s; set %s to its path)", l.name, strings.Join(tried, "; "), l.env)
			return
		}
		// The search: say where, and only the failures that are not a
		// missing file.
		var other []string
		for _, t := range tried {
			if !strings.Contains(t, "cannot open shared object file") && !strings.Contains(t, "no such file") {
				other = append(other, t)
			}
		}
		msg := fmt.Sprintf("cuda: %s not found (tried %s on the loader's path and under $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (lib64); set %s to its path)", l.name, strings.Join(l.names, ", "), l.env)
		if len(other) > 0 {
			msg += ": " + strings.Join(other, "; ")
		}
		l.err = errors.New(msg)
	})
	return l.err
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// VendorLibrary says whether a vendor library loads here: its name
// ("cuBLAS", "cuFFT"), the file and version loaded, or why none.
type VendorLibrary struct {
	Name    string `json:"name"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Err     string `json:"error,omitempty"`
}

// String gives "cuBLAS 11.11.3 (libcublas.so.11)" or "cuBLAS: none (why)".
func (v VendorLibrary) String() string {
	if v.Err != "" {
		return fmt.Sprintf("%s: none (%s)", v.Name, strings.TrimPrefix(v.Err, "cuda: "))
	}
	return fmt.Sprintf("%s %s (%s)", v.Name, v.Version, v.Path)
}

// VendorLibraries loads cuBLAS and cuFFT (once per process; no driver or
// device is needed) and says, for each, which file and version, or why
// none: then the backend's GEMM and FFT use xpmpi's kernels.
// XPMPI_CUBLAS and XPMPI_CUFFT name the files to load instead of
// searching the loader's path and the CUDA folders.
func VendorLibraries() []VendorLibrary {
	var out []VendorLibrary
	for _, l := range []*vendorLib{cublasLib, cufftLib} {
		v := VendorLibrary{Name: l.name}
		if err := l.open(); err != nil {
			v.Err = err.Error()
		} else {
			v.Path, v.Version = l.path, l.ver
		}
		out = append(out, v)
	}
	return out
}

// vendorState is a backend's use of the vendor libraries.
type vendorState struct {
	mu   sync.Mutex
	mode LibMode

	blasOnce sync.Once
	blas     C.xpCublasHandle
	blasErr  error

	fftMu    sync.Mutex
	fftErr   error // sticky: cuFFT does not start on this device
	fftPlans map[cufftKey]C.xpCufftHandle

	warnBlas, warnFFT sync.Once
}

// cufftKey is a plan's shape and type.
type cufftKey struct{ n, stride, dist, batch, typ int }

// SetLibMode sets the backend's mode (see LibMode) and returns the one
// before. It applies to the calls that start after it.
func (b *Backend) SetLibMode(m LibMode) LibMode {
	b.vendor.mu.Lock()
	defer b.vendor.mu.Unlock()
	old := b.vendor.mode
	b.vendor.mode = m
	return old
}

// LibMode returns the backend's mode: XPMPI_CUDA_LIBS when it was opened,
// or what SetLibMode set.
func (b *Backend) LibMode() LibMode {
	b.vendor.mu.Lock()
	defer b.vendor.mu.Unlock()
	return b.vendor.mode
}

// VendorStatus says what computes the backend's GEMM and FFT.
type VendorStatus struct {
	Mode string `json:"mode"` // "vendor" or "parity"
	GEMM string `json:"gemm"` // "cuBLAS 12.4.5 (path)" or "xpmpi's kernel (gemm.cu): why"
	FFT  string `json:"fft"`
}

// Vendor says what computes the backend's float GEMM and FFT in its
// current mode: the vendor library (started on the device, so a library
// that loads but does not start is reported), or xpmpi's kernel and why.
func (b *Backend) Vendor() VendorStatus {
	st := VendorStatus{Mode: b.LibMode().String()}
	if b.LibMode() == ParityMode {
		st.GEMM = "xpmpi's kernel (gemm.cu): " + LibModeEnv + "=parity"
		st.FFT = "xpmpi's kernels (fft.cu): " + LibModeEnv + "=parity"
		return st
	}
	if _, err := b.cublas(); err != nil {
		st.GEMM = "xpmpi's kernel (gemm.cu): " + strings.TrimPrefix(err.Error(), "cuda: ")
	} else {
		st.GEMM = fmt.Sprintf("cuBLAS %s (%s)", cublasLib.ver, cublasLib.path)
	}
	if _, err := b.cufftPlan(cufftKey{n: 8, stride: 1, dist: 8, batch: 1, typ: C.XP_CUFFT_Z2Z}); err != nil {
		st.FFT = "xpmpi's kernels (fft.cu): " + strings.TrimPrefix(err.Error(), "cuda: ")
	} else {
		st.FFT = fmt.Sprintf("cuFFT %s (%s)", cufftLib.ver, cufftLib.path)
	}
	return st
}

// cublasStatus names a cuBLAS status.
func cublasStatus(s C.int) string {
	names := map[int]string{0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
		7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
		13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED", 16: "CUBLAS_STATUS_LICENSE_ERROR"}
	if n, ok := names[int(s)]; ok {
		return n
	}
	return fmt.Sprintf("cuBLAS status %d", int(s))
}

// cufftResult names a cuFFT result.
func cufftResult(r C.int) string {
	names := []string{"CUFFT_SUCCESS", "CUFFT_INVALID_PLAN", "CUFFT_ALLOC_FAILED", "CUFFT_INVALID_TYPE", "CUFFT_INVALID_VALUE",
		"CUFFT_INTERNAL_ERROR", "CUFFT_EXEC_FAILED", "CUFFT_SETUP_FAILED", "CUFFT_INVALID_SIZE", "CUFFT_UNALIGNED_DATA",
		"CUFFT_INCOMPLETE_PARAMETER_LIST", "CUFFT_INVALID_DEVICE", "CUFFT_PARSE_ERROR", "CUFFT_NO_WORKSPACE",
		"CUFFT_NOT_IMPLEMENTED", "CUFFT_LICENSE_ERROR", "CUFFT_NOT_SUPPORTED"}
	if r >= 0 && int(r) < len(names) {
		return names[r]
	}
	return fmt.Sprintf("cuFFT result %d", int(r))
}

// cublas returns the backend's cuBLAS handle, made once on its stream, or
// why there is none.
func (b *Backend) cublas() (C.xpCublasHandle, error) {
	v := &b.vendor
	v.blasOnce.Do(func() {
		if err := cublasLib.open(); err != nil {
			v.blasErr = err
			return
		}
		v.blasErr = b.withContext(func() error {
			if s := C.xpv_cublasCreate(&v.blas); s != 0 {
				return fmt.Errorf("cuda: cuBLAS %s (%s) loads but does not start on %v: cublasCreate: %s", cublasLib.ver, cublasLib.path, b.Device(), cublasStatus(s))
			}
			if s := C.xpv_cublasSetStream(v.blas, b.stream.s); s != 0 {
				return fmt.Errorf("cuda: cuBLAS: cublasSetStream: %s", cublasStatus(s))
			}
			return nil
		})
	})
	return v.blas, v.blasErr
}

// vendorGemm multiplies with cuBLAS where the mode, the type and the sizes
// allow and cuBLAS starts, and reports whether it did. A row-major product
// C = A B is the column-major C^T = B^T A^T: cuBLAS gets B as its first
// matrix, A as its second, n and m swapped.
func (b *Backend) vendorGemm(cd, ad, bd *devBuffer, m, n, k, lda, ldb, ldc int, accumulate bool) bool {
	defer keep(cd, ad, bd) // passed by address
	dt := cd.DT
	if b.LibMode() != VendorMode || (!dt.IsFloat() && !dt.IsComplex()) || k == 0 {
		return false
	}
	for _, x := range []int{m, n, k, lda, ldb, ldc} {
		if x > math.MaxInt32 {
			return false
		}
	}
	h, err := b.cublas()
	if err != nil {
		b.vendor.warnBlas.Do(func() {
			slog.Warn("cuda: GEMM uses xpmpi's kernel (gemm.cu) instead of cuBLAS (warned once)", "device", b.Device().String(), "reason", err.Error())
		})
		return false
	}
	beta := 0.0
	if accumulate {
		beta = 1
	}
	ci := func(x int) C.int { return C.int(x) }
	pa, pb, pc := C.ulonglong(addr(ad)), C.ulonglong(addr(bd)), C.ulonglong(addr(cd))
	var s C.int
	err = b.withContext(func() error {
		switch dt {
		case backend.Float32:
			s = C.xpv_cublasSgemm(h, ci(n), ci(m), ci(k), 1, pb, ci(ldb), pa, ci(lda), C.float(beta), pc, ci(ldc))
		case backend.Float64:
			s = C.xpv_cublasDgemm(h, ci(n), ci(m), ci(k), 1, pb, ci(ldb), pa, ci(lda), C.double(beta), pc, ci(ldc))
		case backend.Complex64:
			s = C.xpv_cublasCgemm(h, ci(n), ci(m), ci(k), C.float(beta), pb, ci(ldb), pa, ci(lda), pc, ci(ldc))
		case backend.Complex128:
			s = C.xpv_cublasZgemm(h, ci(n), ci(m), ci(k), C.double(beta), pb, ci(ldb), pa, ci(lda), pc, ci(ldc))
		}
		return nil
	})
	if err != nil {
		fail("Gemm", err)
	}
	switch s {
	case 0:
		return true
	case 7, 15: // INVALID_VALUE, NOT_SUPPORTED: refused before anything ran
		b.vendor.warnBlas.Do(func() {
			slog.Warn("cuda: cuBLAS refused a GEMM; xpmpi's kernel (gemm.cu) computes it (warned once)", "device", b.Device().String(), "status", cublasStatus(s))
		})
		return false
	}
	panic(fmt.Sprintf("cuda: Gemm: cuBLAS: %s", cublasStatus(s)))
}

// cufftPlan returns the backend's cuFFT plan of a shape, made on first use
// on its stream and kept, or why there is none (a failure that says the
// device cannot run cuFFT is kept: the next calls do not try again).
func (b *Backend) cufftPlan(key cufftKey) (C.xpCufftHandle, error) {
	v := &b.vendor
	v.fftMu.Lock()
	defer v.fftMu.Unlock()
	if v.fftErr != nil {
		return 0, v.fftErr
	}
	if p, ok := v.fftPlans[key]; ok {
		return p, nil
	}
	if err := cufftLib.open(); err != nil {
		v.fftErr = err
		return 0, err
	}
	var p C.xpCufftHandle
	err := b.withContext(func() error {
		if r := C.xpv_cufftPlanMany(&p, C.int(key.n), C.int(key.stride), C.int(key.dist), C.int(key.typ), C.int(key.batch)); r != 0 {
			e := fmt.Errorf("cuda: cuFFT %s (%s) does not plan a transform of length %d on %v: cufftPlanMany: %s", cufftLib.ver, cufftLib.path, key.n, b.Device(), cufftResult(r))
			if r == 7 || r == 11 || r == 5 { // SETUP_FAILED, INVALID_DEVICE, INTERNAL_ERROR: not this shape's fault
				v.fftErr = e
			}
			return e
		}
		if r := C.xpv_cufftSetStream(p, b.stream.s); r != 0 {
			C.xpv_cufftDestroy(p)
			return fmt.Errorf("cuda: cuFFT: cufftSetStream: %s", cufftResult(r))
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if v.fftPlans == nil {
		v.fftPlans = map[cufftKey]C.xpCufftHandle{}
	}
	v.fftPlans[key] = p
	return p, nil
}

// vendorFFT transforms with cuFFT where the mode and the sizes allow and a
// plan is made, and reports whether it did (and the error of a transform
// that started: then x may be partly written, and nothing falls back).
// Lines of stride 1 (post == 1) are one batched transform of pre lines;
// lines of stride post are pre transforms of post lines each. The inverse
// is scaled by 1/n afterwards (cuFFT's is unnormalized), as NumPy's.
func (b *Backend) vendorFFT(d *devBuffer, pre, n, post int, inverse bool) (bool, error) {
	defer keep(d) // passed by address
	if b.LibMode() != VendorMode {
		return false, nil
	}
	for _, x := range []int{n, post, pre, n * post} {
		if x > math.MaxInt32 {
			return false, nil
		}
	}
	typ := C.XP_CUFFT_Z2Z
	if d.DT == backend.Complex64 {
		typ = C.XP_CUFFT_C2C
	}
	key := cufftKey{n: n, stride: post, dist: 1, batch: post, typ: int(typ)}
	execs := pre
	if post == 1 {
		key = cufftKey{n: n, stride: 1, dist: n, batch: pre, typ: int(typ)}
		execs = 1
	}
	p, err := b.cufftPlan(key)
	if err != nil {
		b.vendor.warnFFT.Do(func() {
			slog.Warn("cuda: FFT uses xpmpi's kernels (fft.cu) instead of cuFFT (warned once)", "device", b.Device().String(), "reason", err.Error())
		})
		return false, nil
	}
	dir := C.int(C.XP_CUFFT_FORWARD)
	if inverse {
		dir = C.XP_CUFFT_INVERSE
	}
	base := addr(d)
	slab := uint64(n * post * d.DT.Size())
	err = b.withContext(func() error {
		for i := range execs {
			at := C.ulonglong(base + uint64(i)*slab)
			if r := C.xpv_cufftExec(p, C.int(typ), at, at, dir); r != 0 {
				return fmt.Errorf("cuda: FFT: cuFFT exec: %s", cufftResult(r))
			}
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	if inverse {
		b.Scale(d, driver.ScalarOf(complex(1/float64(n), 0)))
	}
	return true, nil
}
