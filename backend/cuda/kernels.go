package cuda

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/xpmpi/xpmpi/backend"
)

// KernelSource is the CUDA C source of the backend's kernels (kernels.cu,
// then math.cu, stats.cu, convert.cu, gemm.cu, stencil.cu, rng's
// philox.cuh with random.cu, fft.cu, sort.cu and complex.cu), compiled
// with NVRTC at first use.
var KernelSource = kernelsSource + mathSource + statsSource + convertSource + gemmSource + stencilSource + randomSource + fftSource + sortSource + complexSource

//go:embed kernels.cu
var kernelsSource string

// kernelOptions are the NVRTC options of the backend's kernels, besides the
// architecture: no fused multiply-add, so that elementwise float results
// are the CPU backend's bit for bit.
var kernelOptions = []string{"--fmad=false"}

// typeSuffix is the suffix of the entries of each element type.
var typeSuffix = [...]string{
	backend.Float32: "f32",
	backend.Float64: "f64",
	backend.Int32:   "i32",
	backend.Int64:   "i64",
	backend.Uint32:  "u32",
	backend.Uint64:  "u64",
	backend.Int8:    "i8",
	backend.Int16:   "i16",
	backend.Uint8:   "u8",
	backend.Uint16:  "u16",
}

// The operations of kernels.cu: every element type has opsAll, integers
// opsInt, floats opsFloat, and opsPlain have one entry each.
var (
	opsAll = []string{"fill", "scale", "axpy", "axpby", "add", "sub", "mul", "div", "adds", "subs", "muls", "divs",
		"sum", "dot", "argmin", "argmax", "argmin2", "argmax2"}
	opsInt   = []string{"zeroidx"}
	opsFloat = []string{"jacobi5", "laplace5"}
	opsPlain = []string{"xp_sum2_f64", "xp_sum2_u64"}
)

// kernelName returns the entry of operation op for element type dt, as
// xp_axpy_f64.
// The complex types have none here: their kernels are complex.cu's
// (complexName), and a call for one panics here, naming the type.
func kernelName(op string, dt backend.DType) string {
	if dt < 0 || int(dt) >= len(typeSuffix) {
		panic(fmt.Sprintf("cuda: no %s kernel for %v", op, dt))
	}
	return "xp_" + op + "_" + typeSuffix[dt]
}

// KernelEntries returns the names of every entry of KernelSource, as they
// appear in its PTX (.entry xp_axpy_f64).
func KernelEntries() []string {
	var out []string
	for dt := backend.DType(0); int(dt) < len(typeSuffix); dt++ { // the complex types' entries are complexEntries'
		for _, op := range opsAll {
			out = append(out, kernelName(op, dt))
		}
		if dt.IsFloat() {
			for _, op := range opsFloat {
				out = append(out, kernelName(op, dt))
			}
		} else {
			for _, op := range opsInt {
				out = append(out, kernelName(op, dt))
			}
		}
	}
	out = append(out, opsPlain...)
	out = append(out, mathEntries()...)
	out = append(out, statsEntries()...)
	out = append(out, convertEntries()...)
	out = append(out, gemmEntries()...)
	out = append(out, stencilEntries()...)
	out = append(out, randomEntries()...)
	out = append(out, sortEntries()...)
	out = append(out, fftEntries()...)
	return append(out, complexEntries()...)
}

// archCandidates returns the virtual architectures to try for a device of
// compute capability major.minor: its own, then older ones, newest first,
// for an NVRTC that does not know the device (PTX of an older architecture
// runs on newer devices).
func archCandidates(major, minor int) []string {
	own := major*10 + minor
	out := []string{fmt.Sprintf("compute_%d", own)}
	for _, a := range []int{120, 100, 90, 89, 87, 86, 80, 75, 70, 61, 60, 52} {
		if a < own {
			out = append(out, fmt.Sprintf("compute_%d", a))
		}
	}
	return out
}

// ptxCache holds compiled PTX in memory, keyed by the hash of the source,
// the architecture, the options and the NVRTC version.
var ptxCache sync.Map // string -> []byte

// cacheKey returns the hex key of a compilation.
func cacheKey(src, arch string, opts []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00nvrtc %d.%d\x00", src, arch, strings.Join(opts, "\x01"), nvrtcState.major, nvrtcState.minor)
	return hex.EncodeToString(h.Sum(nil))
}

// diskCacheDir returns the folder of the PTX cache on disk
// (os.UserCacheDir()/xpmpi/ptx), or "" if XPMPI_PTX_CACHE=off or there is no
// cache folder.
func diskCacheDir() string {
	if v := strings.TrimSpace(os.Getenv("XPMPI_PTX_CACHE")); v == "off" || v == "0" {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "xpmpi", "ptx")
}

// compileCached compiles src for the first architecture of archs that
// NVRTC accepts, with opts, through the in-memory cache and the disk cache.
// It returns the PTX and the architecture used.
func compileCached(src, name string, archs []string, opts []string) ([]byte, string, error) {
	if err := loadNVRTC(driverMaxVersion()); err != nil {
		return nil, "", err
	}
	var firstErr error
	for _, arch := range archs {
		key := cacheKey(src, arch, opts)
		if p, ok := ptxCache.Load(key); ok {
			return p.([]byte), arch, nil
		}
		dir := diskCacheDir()
		file := ""
		if dir != "" {
			file = filepath.Join(dir, key+".ptx")
			if p, err := os.ReadFile(file); err == nil && len(p) > 0 {
				ptxCache.Store(key, p)
				return p, arch, nil
			}
		}
		all := append([]string{"--gpu-architecture=" + arch}, opts...)
		ptx, err := CompilePTX(src, name, all...)
		if err != nil {
			var ce *CompileError
			if errors.As(err, &ce) && ce.Code == nvrtcInvalidOption {
				if firstErr == nil {
					firstErr = err
				}
				continue // an architecture this NVRTC does not know: try an older one
			}
			return nil, "", err
		}
		ptxCache.Store(key, ptx)
		if file != "" {
			writeCacheFile(file, ptx)
		}
		return ptx, arch, nil
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("cuda: no architecture to compile %s for", name)
	}
	return nil, "", firstErr
}

// writeCacheFile writes a cache file through a temporary name and a
// rename, so that a reader never sees half a file; failures are ignored
// (the cache is an optimization).
func writeCacheFile(file string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".ptx-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), file) != nil {
		os.Remove(tmp.Name())
	}
}
