package cpu

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// The CPU backend multiplies matrices as a driver.GEMM: float64, float32,
// complex128 and complex64 with OpenBLAS's cblas_dgemm, cblas_sgemm,
// cblas_zgemm and cblas_cgemm where the library is present and chosen (see
// GEMMLibrary), else with gonum's Dgemm, Sgemm, Zgemm and Cgemm (pure Go,
// blocked, parallel over GOMAXPROCS goroutines); integers with a Go loop in
// i-k-j order that wraps as Go's integer arithmetic does. Each complex
// element of the product is a sum of k complex products; both libraries
// keep it within a small multiple of k·ε·(|a||b|)ij of the exact one in
// each part (ε the unit roundoff of the part type), as for real types.
//
// On a 2-core machine gonum's Dgemm of 1024 x 1024 matrices ran at 1.6
// GFLOP/s, OpenBLAS 0.3.21's at 8.3-8.9 (one thread): OpenBLAS is loaded by
// default where it is installed.
var _ driver.GEMM = (*Backend)(nil)

// The GEMM libraries SetGEMM and XPMPI_GEMM name.
const (
	GEMMAuto     = "auto"     // OpenBLAS where it loads, else gonum
	GEMMOpenBLAS = "openblas" // OpenBLAS, loaded at run time
	GEMMGonum    = "gonum"    // gonum's pure-Go Dgemm and Sgemm
)

// OpenBLASLibrary is the file that GEMMAuto and GEMMOpenBLAS load with
// dlopen (Debian's libopenblas0 package). XPMPI_OPENBLAS, if set, names
// another file to load instead. Nothing of OpenBLAS is needed to build:
// without it, or in a build without cgo, products use gonum.
const OpenBLASLibrary = "libopenblas.so.0"

// blasType is the set of element types that BLAS multiplies.
type blasType interface {
	float32 | float64 | complex64 | complex128
}

// gemmLib is the choice of library for float and complex products.
var gemmLib struct {
	once     sync.Once // reads XPMPI_GEMM at the first product
	mu       sync.Mutex
	openblas atomic.Bool  // use OpenBLAS
	desc     string       // what GEMMLibrary says
	threads  atomic.Int64 // OpenBLAS's thread count as last set
}

// openblasLib is OpenBLAS, loaded at most once.
var openblasLib struct {
	once   sync.Once
	config string
	err    error
}

func loadOpenBLAS() error {
	openblasLib.once.Do(func() {
		path := OpenBLASLibrary
		if p := os.Getenv("XPMPI_OPENBLAS"); p != "" {
			path = p
		}
		config, err := openblasLoad(path)
		if err != nil {
			openblasLib.err = fmt.Errorf("cpu: loading OpenBLAS (%s): %w", path, err)
			return
		}
		openblasLib.config = fmt.Sprintf("openblas (%s: %s)", path, config)
	})
	return openblasLib.err
}

// initGEMM applies XPMPI_GEMM once: "auto" or unset (OpenBLAS where it
// loads), "openblas" or "gonum". A library that cannot be used falls back
// to gonum, and GEMMLibrary says why.
func initGEMM() {
	gemmLib.once.Do(func() {
		v := os.Getenv("XPMPI_GEMM")
		switch v {
		case "", GEMMAuto, GEMMOpenBLAS, GEMMGonum:
		default:
			setGEMMLocked(GEMMAuto)
			gemmLib.desc += fmt.Sprintf(" [XPMPI_GEMM=%q is not auto, openblas or gonum: ignored]", v)
			return
		}
		if v == "" {
			v = GEMMAuto
		}
		if err := setGEMMLocked(v); err != nil {
			setGEMMLocked(GEMMGonum)
			gemmLib.desc += fmt.Sprintf(" [XPMPI_GEMM=openblas, but %v]", err)
		}
	})
}

// SetGEMM chooses the library of the CPU backend's float products:
// GEMMAuto, GEMMOpenBLAS or GEMMGonum. It overrides XPMPI_GEMM, and
// returns an error, changing nothing, if OpenBLAS is asked for and cannot
// be loaded. It is not collective: call it on every rank alike.
func SetGEMM(name string) error {
	initGEMM()
	gemmLib.mu.Lock()
	defer gemmLib.mu.Unlock()
	return setGEMMLocked(name)
}

func setGEMMLocked(name string) error {
	switch name {
	case GEMMGonum:
		gemmLib.openblas.Store(false)
		gemmLib.desc = "gonum"
	case GEMMOpenBLAS:
		if err := loadOpenBLAS(); err != nil {
			return err
		}
		gemmLib.openblas.Store(true)
		gemmLib.desc = openblasLib.config
	case GEMMAuto:
		if err := loadOpenBLAS(); err != nil {
			gemmLib.openblas.Store(false)
			gemmLib.desc = fmt.Sprintf("gonum (OpenBLAS not loaded: %v)", errors.Unwrap(err))
			return nil
		}
		gemmLib.openblas.Store(true)
		gemmLib.desc = openblasLib.config
	default:
		panic(fmt.Sprintf("cpu: SetGEMM(%q): the libraries are %q, %q and %q", name, GEMMAuto, GEMMOpenBLAS, GEMMGonum))
	}
	return nil
}

// GEMMLibrary says which library the CPU backend's float products use:
// "gonum", with the reason OpenBLAS is not used where it was looked for,
// or "openblas" with the file and its build configuration. It is set by
// XPMPI_GEMM (auto, openblas or gonum; auto when unset) at the first
// product, or by SetGEMM.
func GEMMLibrary() string {
	initGEMM()
	gemmLib.mu.Lock()
	defer gemmLib.mu.Unlock()
	return gemmLib.desc
}

// Gemm sets the m x n matrix c to a*b, or to c + a*b if accumulate (see
// driver.GEMM).
func (*Backend) Gemm(c, a, b driver.Buffer, m, n, k, lda, ldb, ldc int, accumulate bool) {
	driver.CheckGemm(c, a, b, m, n, k, lda, ldb, ldc)
	if m == 0 || n == 0 {
		return
	}
	switch c.DType() {
	case backend.Float64:
		gemmFloat(hs[float64](c), hs[float64](a), hs[float64](b), m, n, k, lda, ldb, ldc, accumulate, gonum.Implementation{}.Dgemm)
	case backend.Float32:
		gemmFloat(hs[float32](c), hs[float32](a), hs[float32](b), m, n, k, lda, ldb, ldc, accumulate, gonum.Implementation{}.Sgemm)
	case backend.Complex128:
		gemmFloat(hs[complex128](c), hs[complex128](a), hs[complex128](b), m, n, k, lda, ldb, ldc, accumulate, gonum.Implementation{}.Zgemm)
	case backend.Complex64:
		gemmFloat(hs[complex64](c), hs[complex64](a), hs[complex64](b), m, n, k, lda, ldb, ldc, accumulate, gonum.Implementation{}.Cgemm)
	case backend.Int32:
		gemmLoop(hs[int32](c), hs[int32](a), hs[int32](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Int64:
		gemmLoop(hs[int64](c), hs[int64](a), hs[int64](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Uint32:
		gemmLoop(hs[uint32](c), hs[uint32](a), hs[uint32](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Int8:
		gemmLoop(hs[int8](c), hs[int8](a), hs[int8](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Int16:
		gemmLoop(hs[int16](c), hs[int16](a), hs[int16](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Uint8:
		gemmLoop(hs[uint8](c), hs[uint8](a), hs[uint8](b), m, n, k, lda, ldb, ldc, accumulate)
	case backend.Uint16:
		gemmLoop(hs[uint16](c), hs[uint16](a), hs[uint16](b), m, n, k, lda, ldb, ldc, accumulate)
	default:
		gemmLoop(hs[uint64](c), hs[uint64](a), hs[uint64](b), m, n, k, lda, ldb, ldc, accumulate)
	}
}

// gemmFloat calls a BLAS gemm for row-major matrices with m, n > 0.
func gemmFloat[T blasType](c, a, b []T, m, n, k, lda, ldb, ldc int, accumulate bool,
	gemm func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)) {
	if k == 0 {
		if !accumulate {
			zeroRows(c, m, n, ldc)
		}
		return
	}
	// With beta 0, BLAS sets C without reading it (gonum and OpenBLAS
	// alike: a NaN in C does not survive; TestGemmNaN): no clearing pass,
	// which cost 7% of a 2048 x 2048 product in the bench's profile.
	var beta T
	if accumulate {
		beta = 1
	}
	initGEMM()
	if gemmLib.openblas.Load() && max(m, n, k, lda, ldb, ldc) <= math.MaxInt32 {
		if t := int64(backend.Threads()); gemmLib.threads.Swap(t) != t {
			openblasThreads(int(t))
		}
		openblasGemm(c, a, b, m, n, k, lda, ldb, ldc, beta)
		return
	}
	gemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}

// gemmLoop is Gemm for integers: row i of C gets a[i][l] * row l of B for
// each l in turn.
func gemmLoop[T backend.Element](c, a, b []T, m, n, k, lda, ldb, ldc int, accumulate bool) {
	if !accumulate {
		zeroRows(c, m, n, ldc)
	}
	if k == 0 {
		return // a may hold nothing at all
	}
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		for l, ail := range a[i*lda : i*lda+k] {
			bl := b[l*ldb : l*ldb+n]
			for j, v := range bl {
				ci[j] += ail * v
			}
		}
	}
}

// zeroRows clears the m x n matrix c with leading dimension ldc.
func zeroRows[T backend.Numeric](c []T, m, n, ldc int) {
	for i := 0; i < m; i++ {
		clear(c[i*ldc : i*ldc+n])
	}
}
