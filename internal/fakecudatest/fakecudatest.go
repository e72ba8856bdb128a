// Package fakecudatest runs CUDA C source without a GPU, for tests: it
// builds backend/cuda's fake CUDA driver (backend/cuda/testdata/fakecuda,
// a libcuda.so.1 that runs kernels compiled as C++ on the host, blocks one
// after the other and the threads of a block as fibers that switch at
// __syncthreads) with extra sources compiled in, and runs a test of the
// calling test binary in a child process that loads it as its driver.
// There the CUDA backend, package kernels and whatever launches the
// extra sources' entries take their CUDA paths (NVRTC, module loading,
// argument packing, launch dimensions) on the fake device.
//
// A test uses it in two parts, a parent that builds the driver and a
// child that runs on it:
//
//	func TestEmulated(t *testing.T) {
//		d := fakecudatest.Build(t, fakecudatest.Source{Code: src, Entries: []fakecudatest.Entry{{Name: "mykernel"}}})
//		d.Run(t, "TestEmulatedChild", "XPMPI_CUDA_DEBUG=1")
//	}
//
//	func TestEmulatedChild(t *testing.T) {
//		fakecudatest.SkipUnlessChild(t)
//		dev, err := backend.Lookup("cuda") // the fake device
//		...
//	}
//
// Build skips the test where the driver cannot be built or run: with
// -short, on other systems than linux/amd64, in a build without cgo (no
// CUDA backend), in an MPI build (the child of an MPI rank would start MPI
// again), without g++, and in a child process itself.
//
// # What is compiled
//
// The driver's translation unit holds backend/cuda's kernels (kernels.cu
// and the files fakecuda.cpp includes), then Shims (the CUDA intrinsics
// that the fake driver's C++ environment lacks), then each Source: its
// Code and a registration of each of its entries, by which the driver
// finds them (by name: one entry per name). A source with a Scope is
// compiled in a namespace of that name, so that sources that define the
// same helper functions (each program of kernels/fuse carries one
// prelude) can be compiled together; its entries are registered from
// inside the namespace. Code must leave no macro defined that a later
// source would see by mistake (a kernels.Variant's T and defines: #undef
// them after the source).
//
// The flags are those of backend/cuda's own tests: -std=c++17 -O2
// -ffp-contract=off (no fused multiply-add, as kernels compiled with
// --fmad=false), -fno-strict-aliasing; and XP_FAKECUDA_KERNELS_ONLY, so
// that of the backend's own kernels only kernels.cu's (fills, copies,
// elementwise arithmetic) are compiled in: a third of the build's time.
// A child that calls another of the backend's kernels fails with the
// driver's "entry not found".
//
// # Cache
//
// A build costs tens of seconds of CPU. Built drivers are kept under
// os.UserCacheDir()/xpmpi/fakecuda, named by a SHA-256 of everything the
// build reads: the compiler's path and version, the flags, the
// translation unit, and the contents of every file the preprocessor opens
// for it (g++ -M: fakecuda.cpp, backend/cuda's .cu and .h files, system
// headers). A change to any of them is a new name, so a cached driver is
// always the one a build would give. Files not used for 30 days are
// removed when a driver is built. XPMPI_FAKECUDA_CACHE=off builds in the
// test's temporary directory every time; XPMPI_FAKECUDA_CACHE=DIR keeps
// them in DIR.
//
// The package imports package kernels (for the NVRTC library), so tests
// of package kernels itself (not kernels_test) and of packages below it
// cannot use it.
package fakecudatest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi"
)

// ChildEnv is the environment variable, set to "1", by which a child
// process started by Driver.Run knows that it runs on the fake driver.
const ChildEnv = "XPMPI_KERNELS_EMULATION"

// Flags are g++'s flags for the fake driver, before -I and -o.
var Flags = []string{"-std=c++17", "-O2", "-DXP_FAKECUDA_KERNELS_ONLY", "-fPIC", "-shared", "-fvisibility=hidden", "-ffp-contract=off", "-fno-strict-aliasing"}

// Shims are the CUDA intrinsics that kernels use and the fake driver's C++
// environment does not define: the bit casts between floats and integers
// (__double_as_longlong, __longlong_as_double, __float_as_int,
// __int_as_float, __float_as_uint, __uint_as_float), __launch_bounds__
// (ignored) and signbit. They precede every Source.
const Shims = `
#include <cmath>
#include <cstring>
#define __launch_bounds__(...)
using std::signbit;
static inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, sizeof r); return r; }
static inline double __longlong_as_double(long long x) { double r; std::memcpy(&r, &x, sizeof r); return r; }
static inline int __float_as_int(float x) { int r; std::memcpy(&r, &x, sizeof r); return r; }
static inline float __int_as_float(int x) { float r; std::memcpy(&r, &x, sizeof r); return r; }
static inline unsigned int __float_as_uint(float x) { unsigned int r; std::memcpy(&r, &x, sizeof r); return r; }
static inline float __uint_as_float(unsigned int x) { float r; std::memcpy(&r, &x, sizeof r); return r; }
`

// Entry is a kernel entry point (an extern "C" __global__ function)
// compiled into the fake driver.
type Entry struct {
	Name string
	// Syncs says that the kernel calls __syncthreads: the driver runs
	// the threads of its blocks as fibers (without it, a barrier aborts
	// the process, and the threads run as a plain loop).
	Syncs bool
	// Key, if not empty, registers the entry as one variant of a kernel
	// of package kernels: the driver finds it for a module compiled by
	// the fake NVRTC from a variant source whose first line is
	// "// xpmpi kernel "+Key (kernels.Kernel.VariantTag), and finds the
	// entries without a Key by name only. Entries of one name with
	// different Keys must be in sources of different Scopes. Variants
	// are told apart only with the fake NVRTC (Driver.NVRTC = Driver.Lib):
	// a real NVRTC's PTX has no tag.
	Key string
}

// Source is CUDA C source compiled into the fake driver, and the entries
// it defines that the driver registers.
type Source struct {
	Code    string
	Entries []Entry
	// Scope, if not empty, is a C++ namespace that Code and its
	// registrations are compiled in (an identifier).
	Scope string
}

// Driver is a fake CUDA driver built by Build.
type Driver struct {
	// Lib is the driver, a libcuda.so.1 (the child's XPMPI_LIBCUDA).
	Lib string
	// NVRTC is the NVRTC library of the child (XPMPI_NVRTC): the real
	// one where package kernels finds one, so that the sources are
	// compiled as they are for a GPU and the driver checks that the PTX
	// has each entry launched; otherwise Lib, whose fake NVRTC compiles
	// nothing.
	NVRTC string
	// Source is the translation unit compiled in after backend/cuda's
	// kernels: Shims and the sources.
	Source string
}

// InChild reports whether this process is a child started by Driver.Run.
func InChild() bool { return os.Getenv(ChildEnv) == "1" }

// SkipUnlessChild skips t unless this process is a child started by
// Driver.Run, as a child test's first statement.
func SkipUnlessChild(t testing.TB) {
	t.Helper()
	if !InChild() {
		t.Skip("run in a child process by its parent test, against the fake CUDA driver (internal/fakecudatest)")
	}
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// TranslationUnit returns the text compiled in after backend/cuda's
// kernels: Shims, then each source with its registrations. It panics on
// an entry or scope that is not a C identifier, and on an entry name
// given twice.
func TranslationUnit(srcs ...Source) string {
	var tu strings.Builder
	tu.WriteString(Shims)
	seen := map[string]bool{}
	for i, s := range srcs {
		if s.Scope != "" && !identRE.MatchString(s.Scope) {
			panic(fmt.Sprintf("fakecudatest: source %d: scope %q is not a C identifier", i, s.Scope))
		}
		fmt.Fprintf(&tu, "\n// fakecudatest: source %d\n", i)
		if s.Scope != "" {
			fmt.Fprintf(&tu, "namespace %s {\n", s.Scope)
		}
		tu.WriteString(s.Code)
		tu.WriteString("\n")
		for _, e := range s.Entries {
			if !identRE.MatchString(e.Name) {
				panic(fmt.Sprintf("fakecudatest: source %d: entry %q is not a C identifier", i, e.Name))
			}
			key := e.Name
			if e.Key != "" {
				key = e.Name + "|" + e.Key
				if strings.ContainsAny(e.Key, "\"\\\n") {
					panic(fmt.Sprintf("fakecudatest: entry %s: key %q has a quote, backslash or newline", e.Name, e.Key))
				}
			}
			if seen[key] {
				panic(fmt.Sprintf("fakecudatest: entry %s given twice (the driver finds entries by name, or by name and Key)", key))
			}
			seen[key] = true
			syncs := 0
			if e.Syncs {
				syncs = 1
			}
			if e.Key != "" {
				fmt.Fprintf(&tu, "XP_REGISTER_KEY(%s, %q, %d)\n", e.Name, key, syncs)
			} else {
				fmt.Fprintf(&tu, "XP_REGISTER(%s, %d)\n", e.Name, syncs)
			}
		}
		if s.Scope != "" {
			fmt.Fprintf(&tu, "} // namespace %s\n", s.Scope)
		}
	}
	return tu.String()
}

// Build builds the fake driver with srcs compiled in, or takes it from
// the cache, and returns it. It skips t where the driver cannot be built
// or run here (see the package doc), and fails t if the build fails.
func Build(t testing.TB, srcs ...Source) *Driver {
	t.Helper()
	switch {
	case InChild():
		t.Skip("in a child process on the fake CUDA driver already")
	case testing.Short():
		t.Skip("-short: the fake CUDA driver is not built")
	case runtime.GOOS != "linux" || runtime.GOARCH != "amd64":
		t.Skipf("the fake CUDA driver is for linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	case !slices.Contains(backend.Names(), "cuda"):
		t.Skip("no CUDA backend in this build (built without cgo)")
	case mpi.Built:
		t.Skip("the default build runs it: a child of an MPI rank would start MPI again")
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++ to build the fake CUDA driver")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Skipf("no source tree of the module: %v", err)
	}
	cudaDir := filepath.Join(root, "backend", "cuda")
	fake := filepath.Join(cudaDir, "testdata", "fakecuda", "fakecuda.cpp")
	if _, err := os.Stat(fake); err != nil {
		t.Skipf("no fake CUDA driver source: %v", err)
	}
	d := &Driver{Source: TranslationUnit(srcs...)}
	// The driver includes "kernels.cu", found first in dir: this file,
	// which includes backend/cuda's and then the sources.
	dir := t.TempDir()
	tu := fmt.Sprintf("#include %q\n%s", filepath.Join(cudaDir, "kernels.cu"), d.Source)
	if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), []byte(tu), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, cached, err := build(gxx, []string{"-I", dir, "-I", cudaDir}, fake, dir)
	if err != nil {
		t.Fatalf("building the fake CUDA driver: %v\n%s", err, numbered(tu))
	}
	if cached {
		t.Logf("fake CUDA driver from the cache: %s", lib)
	}
	d.Lib, d.NVRTC = lib, lib
	if v, path, err := kernels.NVRTC(); err == nil {
		d.NVRTC = path
		t.Logf("NVRTC %s (%s) compiles the sources for the child, and the driver checks the PTX's entries", v, path)
	}
	return d
}

// build compiles the driver with Flags and incs (its -I options) into
// dir, or finds it in the cache, and says which.
func build(gxx string, incs []string, fake, dir string) (lib string, cached bool, err error) {
	args := append(slices.Clone(Flags), incs...)
	cache := cacheDir()
	if cache == "" {
		lib = filepath.Join(dir, "libcuda.so.1")
		return lib, false, compile(gxx, args, fake, lib)
	}
	key, err := buildKey(gxx, args, fake)
	if err != nil {
		return "", false, err
	}
	lib = filepath.Join(cache, key+".so")
	if _, err := os.Stat(lib); err == nil {
		now := time.Now()
		os.Chtimes(lib, now, now) // used: not pruned
		return lib, true, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", false, err
	}
	tmp, err := os.CreateTemp(cache, key+".*.tmp")
	if err != nil {
		return "", false, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := compile(gxx, args, fake, tmp.Name()); err != nil {
		return "", false, err
	}
	// A rename is atomic: a process that finds lib finds all of it.
	if err := os.Rename(tmp.Name(), lib); err != nil {
		return "", false, err
	}
	prune(cache, 30*24*time.Hour)
	return lib, false, nil
}

func compile(gxx string, args []string, fake, out string) error {
	cmd := exec.Command(gxx, append(slices.Clone(args), "-o", out, fake)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %v\n%s", cmd, err, out)
	}
	return nil
}

// cacheDir returns the directory of cached drivers, or "" for none.
func cacheDir() string {
	switch v := os.Getenv("XPMPI_FAKECUDA_CACHE"); v {
	case "off":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "xpmpi", "fakecuda")
	default:
		return v
	}
}

// buildKey returns the hash of everything the build reads: the compiler
// and its version, Flags, and the contents of every file the preprocessor
// opens (by contents, not by name: one is in a temporary directory).
func buildKey(gxx string, args []string, fake string) (string, error) {
	h := sha256.New()
	ver, err := exec.Command(gxx, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", gxx, err)
	}
	fmt.Fprintf(h, "fakecudatest 1\n%s\n%s\n", gxx, ver)
	for _, a := range Flags {
		fmt.Fprintf(h, "%s\n", a)
	}
	cmd := exec.Command(gxx, append(slices.Clone(args), "-M", "-MT", "x", fake)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	deps, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %v\n%s", cmd, err, stderr.Bytes())
	}
	files := depFiles(string(deps))
	if len(files) == 0 {
		return "", errors.New("g++ -M named no files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// depFiles returns the files of a make rule written by g++ -M -MT x.
func depFiles(rule string) []string {
	rule = strings.TrimPrefix(strings.TrimSpace(rule), "x:")
	rule = strings.ReplaceAll(rule, "\\\n", " ")
	var files []string
	var cur strings.Builder
	for i := 0; i < len(rule); i++ {
		c := rule[i]
		switch {
		case c == '\\' && i+1 < len(rule) && rule[i+1] == ' ':
			cur.WriteByte(' ')
			i++
		case c == ' ' || c == '\n' || c == '\t':
			if cur.Len() > 0 {
				files = append(files, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		files = append(files, cur.String())
	}
	return files
}

// prune removes the cached drivers not used for age.
func prune(cache string, age time.Duration) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > age {
			os.Remove(filepath.Join(cache, e.Name()))
		}
	}
}

// moduleRoot returns the directory of the module's go.mod, from the
// working directory up (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && regexp.MustCompile(`(?m)^module\s+github\.com/xpmpi/xpmpi\s*$`).Match(b) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/xpmpi/xpmpi above the working directory")
		}
		dir = parent
	}
}

// numbered returns src with line numbers, for build errors.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%5d  %s\n", i+1, l)
	}
	return b.String()
}

// Run runs the test called test (its whole name) of the calling test
// binary in a child process whose CUDA driver is d, and fails t unless
// it passes. env are more variables for the child (NAME=VALUE); the child
// also gets ChildEnv=1, XPMPI_LIBCUDA and XPMPI_NVRTC, XPMPI_DEVICE
// empty (device 0), XPMPI_KERNELS_STRICT=1 (no host fallback), and
// XDG_CACHE_HOME in a temporary directory (no PTX cache shared with
// other runs). It returns the child's output, which it also logs.
func (d *Driver) Run(t testing.TB, test string, env ...string) string {
	t.Helper()
	ctx := context.Background()
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := dt.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline.Add(-5*time.Second))
			defer cancel()
		}
	}
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+regexp.QuoteMeta(test)+"$", "-test.v", "-test.count=1")
	child.Env = append(os.Environ(), ChildEnv+"=1", "XPMPI_LIBCUDA="+d.Lib, "XPMPI_NVRTC="+d.NVRTC,
		"XPMPI_DEVICE=", "XDG_CACHE_HOME="+t.TempDir(), "XPMPI_KERNELS_STRICT=1")
	child.Env = append(child.Env, env...)
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	err := child.Run()
	if err != nil || !strings.Contains(out.String(), "--- PASS: "+test+" ") {
		t.Fatalf("%s on the fake CUDA driver: %v\n%s", test, err, out.String())
	}
	t.Logf("%s on the fake CUDA driver:\n%s", test, out.String())
	return out.String()
}
