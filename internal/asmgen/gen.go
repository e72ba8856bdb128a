// Command asmgen writes xpmpi's AVX2 and AVX-512 kernels with avo: the assembly
// (NAME_amd64.s) and its Go declarations (NAME_stubs_amd64.go) of one of
// three packages, chosen by -pkg:
//
//	vec   backend/cpu/internal/vec     the CPU backend's row and vector kernels (vec.go), and fftk's FFT passes (fft.go)
//	fvec  kernels/fuse/internal/fvec   package kernels/fuse's chunk kernels (fvec.go)
//	rvec  internal/repro/internal/rvec package internal/repro's deposit and maximum kernels (rvec.go)
//
// The CPU backend's kernels live in a package of their own because
// package cpu uses cgo (OpenBLAS), and a cgo package cannot hold Go
// assembly; the other two follow the same layout. The generator is a
// module of its own so that avo is not a dependency of xpmpi. Run it from
// this directory:
//
//	go run . -out ../internal/vec/vec_amd64.s -stubs ../internal/vec/vec_stubs_amd64.go -pkg vec
//	go run . -out ../internal/fvec/fvec_amd64.s -stubs ../internal/fvec/fvec_stubs_amd64.go -pkg fvec
//	go run . -out ../internal/rvec/rvec_amd64.s -stubs ../internal/rvec/rvec_stubs_amd64.go -pkg rvec
//
// or run go generate in the target package, whose directive runs the same
// command here (go run -C). A relative -out or -stubs path is taken from
// the directory that holds the target package (backend/cpu/internal for
// vec), wherever the command runs, so the paths are those that the first
// line of each generated file has recorded since each package had a
// generator of its own beside it.
//
// Every kernel does exactly the arithmetic of the Go loop it stands in
// for, lane by lane, in the same order and with no fused multiply-add, so
// both paths give the same bits. Reductions keep a fixed number of lanes
// and combine them in a fixed order that the Go code repeats (emit.go).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/mmcloughlin/avo/build"
)

// A target is one package of generated kernels.
type target struct {
	dir     string // directory holding the package, from the repository root
	kernels func() // emits the package's kernels
}

var targets = map[string]target{
	"vec":  {dir: "backend/cpu/internal", kernels: vecKernels},
	"fvec": {dir: "kernels/fuse/internal", kernels: fvecKernels},
	"rvec": {dir: "internal/repro/internal", kernels: rvecKernels},
}

// rootModule is the module path of the repository that holds the targets.
const rootModule = "github.com/xpmpi/xpmpi"

func main() {
	t, err := chooseTarget(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "asmgen: %v\n", err)
		os.Exit(2)
	}
	// avo's flags open the output files as they are parsed, so the working
	// directory is set first.
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "asmgen: %v\n", err)
		os.Exit(1)
	}
	if err := os.Chdir(filepath.Join(root, filepath.FromSlash(t.dir))); err != nil {
		fmt.Fprintf(os.Stderr, "asmgen: %v\n", err)
		os.Exit(1)
	}
	flag.Parse()
	ConstraintExpr("!purego")
	t.kernels()
	Generate()
}

// chooseTarget returns the target that the -pkg flag among args names. It
// parses args with a copy of the command line's flags that only records
// their values, since avo's -out and -stubs create their files when set.
func chooseTarget(args []string) (target, error) {
	fs := flag.NewFlagSet("asmgen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			fs.Bool(f.Name, false, f.Usage)
		} else {
			fs.String(f.Name, "", f.Usage)
		}
	})
	if err := fs.Parse(args); err != nil {
		return target{}, err
	}
	var names []string
	for name := range targets {
		names = append(names, name)
	}
	sort.Strings(names)
	pkg := fs.Lookup("pkg").Value.String()
	t, ok := targets[pkg]
	if !ok {
		return target{}, fmt.Errorf("-pkg %q: want one of %s", pkg, strings.Join(names, ", "))
	}
	return t, nil
}

// repoRoot returns the directory of the xpmpi module that holds the
// working directory.
func repoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modulePath(b) == rootModule {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no directory above %s holds module %s", wd, rootModule)
		}
		dir = up
	}
}

// modulePath returns the module path that go.mod's text declares.
func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}
