package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/xpmpi/xpmpi/backend"
)

// HostFunc is a kernel's host implementation: Go code that does what the
// CUDA kernel does, on host memory, for the whole launch at once. It reads
// its arguments through the HostCall (In, Out, ScalarAt, StructAt, ...).
// It may only read the arrays of const pointer parameters: Out refuses
// them. It must be safe for concurrent calls (each call has its own
// HostCall).
type HostFunc func(c *HostCall) error

// Spec describes a kernel for New.
type Spec struct {
	// Name is the kernel's name: the __global__ function of CUDA and the
	// catalog's key.
	Name string
	// Doc says in one line what the kernel does (for the catalog).
	Doc string
	// Host is the host implementation; nil for a CUDA-only kernel.
	Host HostFunc
	// CUDA is the CUDA C source that defines the kernel as
	// `extern "C" __global__ void Name(...)`; "" for a host-only kernel.
	// It may include the shipped headers (Headers) and nothing else: New
	// refuses any other #include, such as <stdio.h>.
	CUDA string
	// Signature is the host side's declaration, as "void axpy(int n,
	// double a, const double *x, double *y)". Required for a host-only
	// kernel; for a kernel with CUDA source it is optional and, if given,
	// must agree with the source's (New checks).
	Signature string
	// Types are the element types the kernel is compiled for, one variant
	// each, when its parameters use the element type parameter; nil for a
	// kernel without one.
	Types []backend.DType
	// TypeParam names the element type parameter in the source, a macro
	// that each variant defines ("#define T double"); default "T".
	TypeParam string
	// Defines are compile-time parameters with their default values
	// (#define NAME VALUE in each variant); a launch can give others
	// (Config.Defines), each set a variant of its own.
	Defines map[string]string
	// Structs are the Go types of the struct parameters (StructOf).
	Structs []*StructType
	// Options are extra NVRTC options ("--use_fast_math", ...). Kernels are
	// compiled with --fmad=false unless Options says --fmad=true, so that
	// float results can match the host implementation bit for bit.
	Options []string
	// Strict refuses the host fallback of this kernel (as
	// XPMPI_KERNELS_STRICT=1 does for every kernel).
	Strict bool
	// Parity are cases the catalog and kerneltest run on both
	// implementations.
	Parity []ParityCase
}

// ParityCase is a set of inputs on which a kernel's host and CUDA
// implementations must agree. Make builds fresh arguments on backend b
// (host arrays for the CPU) for the element type dt; kerneltest calls it
// once per side, compares every non-const array argument afterwards, and
// checks that const ones are unchanged.
type ParityCase struct {
	// Name names the case ("odd size", "empty", "NaN and Inf", ...).
	Name string
	// Make returns the arguments and the launch configuration.
	Make func(b backend.Backend, dt backend.DType) ([]Arg, Config, error)
	// ULPs is the tolerance for floats in units in the last place; 0
	// means bitwise equality (NaNs of any payload count as equal).
	ULPs int
}

// Kernel is a kernel with a host implementation, CUDA C source, or both,
// and one signature. It is safe for concurrent use.
type Kernel struct {
	spec    Spec
	sig     Signature
	structs map[string]*StructType
	hash    string // of the CUDA source and options

	warnOnce sync.Once

	mu       sync.Mutex
	variants map[string]*compiled // key: device, variant
}

// compiled is one variant compiled and loaded on one device.
type compiled struct {
	once sync.Once
	fn   cudaFunc
	err  error
}

// New checks a Spec and returns its kernel: the signature is parsed from
// the CUDA source (and from Signature, which must agree), every struct
// parameter must have its Go type in Structs, and a struct the source
// defines must have Go's layout (by C's rules: CheckLayout has NVRTC
// confirm it, and every compilation of the kernel repeats the check).
// Errors name the kernel and the parameter or field.
func New(spec Spec) (*Kernel, error) {
	k := &Kernel{spec: spec, structs: map[string]*StructType{}, variants: map[string]*compiled{}}
	if !validIdent(spec.Name) {
		return nil, fmt.Errorf("kernels: %q is not a kernel name (a C identifier)", spec.Name)
	}
	if spec.Host == nil && spec.CUDA == "" {
		return nil, fmt.Errorf("kernels: %s: neither a host implementation nor CUDA source", spec.Name)
	}
	if k.spec.TypeParam == "" {
		k.spec.TypeParam = "T"
	}
	if !validIdent(k.spec.TypeParam) {
		return nil, fmt.Errorf("kernels: %s: type parameter %q is not a C identifier", spec.Name, k.spec.TypeParam)
	}
	k.spec.Types = slices.Clone(spec.Types)
	for _, dt := range k.spec.Types {
		if TypeOf(dt) == Invalid {
			return nil, fmt.Errorf("kernels: %s: invalid element type %v", spec.Name, dt)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(spec.Defines)) { // the same define named every time
		value := spec.Defines[name]
		if !validIdent(name) || strings.ContainsAny(value, "\n\r") {
			return nil, fmt.Errorf("kernels: %s: define %s=%q: want a C identifier and a one-line value", spec.Name, name, value)
		}
	}
	opts := ParseOptions{TypeParams: []string{k.spec.TypeParam}}
	var cudaSig, hostSig *Signature
	if spec.CUDA != "" {
		if err := checkIncludes(spec.Name, spec.CUDA); err != nil {
			return nil, err
		}
		s, err := ParseSignature(spec.CUDA, spec.Name, opts)
		if err != nil {
			return nil, err
		}
		if s.Template {
			return nil, fmt.Errorf("kernels: %s: template kernels are parsed but not launched (their entries have C++-mangled names, and backend/cuda binds no NVRTC name expressions): write extern \"C\" __global__ void %s(...) with the element type as the macro %s, which each variant defines", spec.Name, spec.Name, k.spec.TypeParam)
		}
		if !s.ExternC {
			return nil, fmt.Errorf("kernels: %s: the kernel must be declared extern \"C\" (so that its entry is named %s, not a C++-mangled name)", spec.Name, spec.Name)
		}
		cudaSig = &s
		sum := sha256.Sum256([]byte(spec.CUDA + "\x00" + strings.Join(spec.Options, "\x01")))
		k.hash = hex.EncodeToString(sum[:8])
	}
	if spec.Signature != "" {
		s, err := ParseHostSignature(spec.Signature, opts)
		if err != nil {
			return nil, err
		}
		if s.Name != spec.Name {
			return nil, fmt.Errorf("kernels: %s: Signature declares %s", spec.Name, s.Name)
		}
		hostSig = &s
	}
	switch {
	case cudaSig != nil && hostSig != nil:
		if d := cudaSig.Diff(*hostSig); d != "" {
			return nil, fmt.Errorf("kernels: %s: the host and CUDA signatures differ: %s (CUDA: %s; host: %s)", spec.Name, d, cudaSig, hostSig)
		}
		k.sig = *cudaSig
	case cudaSig != nil:
		k.sig = *cudaSig
	case hostSig != nil:
		k.sig = *hostSig
	default:
		return nil, fmt.Errorf("kernels: %s: a host-only kernel needs its Signature", spec.Name)
	}
	generic := false
	for _, p := range k.sig.Params {
		if p.Type == Generic {
			generic = true
		}
	}
	if generic && len(k.spec.Types) == 0 {
		return nil, fmt.Errorf("kernels: %s: parameters of type %s but no Types to compile it for", spec.Name, k.spec.TypeParam)
	}
	if !generic && len(k.spec.Types) > 0 {
		return nil, fmt.Errorf("kernels: %s: Types given but no parameter has type %s", spec.Name, k.spec.TypeParam)
	}
	for _, st := range spec.Structs {
		if st == nil {
			return nil, fmt.Errorf("kernels: %s: a nil StructType in Structs", spec.Name)
		}
		k.structs[st.name] = st
	}
	for i, p := range k.sig.Params {
		if p.Type != Struct {
			continue
		}
		st, ok := k.structs[p.StructName]
		if !ok {
			return nil, fmt.Errorf("kernels: %s, parameter %d (%s): struct %s has no Go type: add kernels.StructOf[YourType](%q) to Structs", spec.Name, i, p.Name, p.StructName, p.StructName)
		}
		if spec.CUDA != "" {
			if _, err := st.CheckSource(spec.CUDA); err != nil {
				return nil, fmt.Errorf("kernels: %s, parameter %d (%s): %w", spec.Name, i, p.Name, unwrapPrefix(err))
			}
		}
	}
	return k, nil
}

// MustNew is New for package-level variables: it panics on an error.
func MustNew(spec Spec) *Kernel {
	k, err := New(spec)
	if err != nil {
		panic(err.Error())
	}
	return k
}

// Name returns the kernel's name.
func (k *Kernel) Name() string { return k.spec.Name }

// Doc returns the kernel's one-line description.
func (k *Kernel) Doc() string { return k.spec.Doc }

// Signature returns the kernel's signature.
func (k *Kernel) Signature() Signature {
	s := k.sig
	s.Params = slices.Clone(s.Params)
	s.TypeParams = slices.Clone(s.TypeParams)
	return s
}

// HasHost reports whether the kernel has a host implementation.
func (k *Kernel) HasHost() bool { return k.spec.Host != nil }

// HasCUDA reports whether the kernel has CUDA source.
func (k *Kernel) HasCUDA() bool { return k.spec.CUDA != "" }

// Source returns the kernel's CUDA source as given.
func (k *Kernel) Source() string { return k.spec.CUDA }

// Types returns the element types of the kernel's variants (nil if it has
// no element type parameter).
func (k *Kernel) Types() []backend.DType { return slices.Clone(k.spec.Types) }

// ParityCases returns the parity cases the kernel registered.
func (k *Kernel) ParityCases() []ParityCase { return slices.Clone(k.spec.Parity) }

// Variant is one compilation of a kernel: an element type (when the kernel
// has a type parameter) and a set of compile-time defines.
type Variant struct {
	// DType is the element type; meaningful when Generic is true.
	DType backend.DType
	// Generic is true if the kernel has an element type parameter.
	Generic bool
	// Defines are the compile-time parameters, sorted by name.
	Defines []Define
}

// Define is one compile-time parameter: #define Name Value.
type Define struct{ Name, Value string }

// String returns the variant as "float64", "float64 BLOCK=128", or
// "default" for a kernel without type parameter or defines.
func (v Variant) String() string {
	var parts []string
	if v.Generic {
		parts = append(parts, v.DType.String())
	}
	for _, d := range v.Defines {
		parts = append(parts, d.Name+"="+d.Value)
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, " ")
}

// Variants returns the default variants: one per element type (or one),
// with the Spec's defines.
func (k *Kernel) Variants() []Variant {
	defs := k.defines(nil)
	if len(k.spec.Types) == 0 {
		return []Variant{{Defines: defs}}
	}
	out := make([]Variant, len(k.spec.Types))
	for i, dt := range k.spec.Types {
		out[i] = Variant{DType: dt, Generic: true, Defines: defs}
	}
	return out
}

// defines returns the Spec's defines overridden by extra, sorted.
func (k *Kernel) defines(extra map[string]string) []Define {
	all := maps.Clone(k.spec.Defines)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, extra)
	names := slices.Sorted(maps.Keys(all))
	out := make([]Define, len(names))
	for i, n := range names {
		out[i] = Define{n, all[n]}
	}
	return out
}

// VariantSource returns the translation unit a variant compiles: the
// defines (the element type first), the C declarations of the struct
// parameters that the source does not declare itself, the source (with
// #line so that NVRTC's messages give the source's own line numbers, and
// the shipped headers it includes in place: see Headers), and
// static_asserts of every struct's layout against Go's.
func (k *Kernel) VariantSource(v Variant) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "// xpmpi kernel %s, variant %s\n", k.spec.Name, v)
	if v.Generic {
		fmt.Fprintf(&sb, "#define %s %s\n", k.spec.TypeParam, cTypeName(v.DType))
	}
	for _, d := range v.Defines {
		fmt.Fprintf(&sb, "#define %s %s\n", d.Name, d.Value)
	}
	if debugMode() {
		sb.WriteString("#define XPMPI_DEBUG 1\n")
	}
	names := slices.Sorted(maps.Keys(k.structs))
	for _, n := range names {
		st := k.structs[n]
		if declared, _ := st.CheckSource(k.spec.CUDA); !declared {
			sb.WriteString(st.Decl())
		}
	}
	fmt.Fprintf(&sb, "#line 1 \"%s.cu\"\n", k.spec.Name)
	sb.WriteString(expandIncludes(k.spec.CUDA, k.spec.Name+".cu"))
	sb.WriteString("\n// xpmpi: the struct layouts must be Go's\n")
	for _, n := range names {
		sb.WriteString(k.structs[n].StaticAsserts())
	}
	return sb.String()
}

// nvrtcOptions returns the options a variant compiles with.
func (k *Kernel) nvrtcOptions() []string {
	opts := slices.Clone(k.spec.Options)
	if !slices.ContainsFunc(opts, func(o string) bool { return strings.HasPrefix(o, "--fmad") || strings.HasPrefix(o, "-fmad") }) {
		opts = append(opts, "--fmad=false")
	}
	if !slices.ContainsFunc(opts, func(o string) bool { return strings.HasPrefix(o, "--std") || strings.HasPrefix(o, "-std") }) {
		opts = append(opts, stdOption)
	}
	if debugMode() {
		opts = append(opts, "-lineinfo")
	}
	return opts
}

// CompilePTX compiles a variant to PTX with NVRTC, for the newest
// architecture it knows: no driver or GPU is needed. A struct layout that
// differs from Go's is an error naming the field; other compilation
// errors carry NVRTC's log; without NVRTC the error is a *NoNVRTCError.
func (k *Kernel) CompilePTX(v Variant) ([]byte, error) {
	if k.spec.CUDA == "" {
		return nil, fmt.Errorf("kernels: %s has no CUDA source", k.spec.Name)
	}
	ptx, _, err := compileAnyArch(k.VariantSource(v), k.spec.Name+".cu", k.nvrtcOptions())
	if err != nil {
		return nil, k.compileErr(v, err)
	}
	return ptx, nil
}

// compileErr names the kernel and variant in a compilation error, and
// turns a failed layout assertion into an error naming the field.
func (k *Kernel) compileErr(v Variant, err error) error {
	if log, _, ok := compileError(err); ok {
		if lerr := layoutError(log); lerr != nil {
			return fmt.Errorf("kernels: %s (variant %s): %w", k.spec.Name, v, unwrapPrefix(lerr))
		}
	}
	if _, ok := err.(*NoNVRTCError); ok {
		return err
	}
	return fmt.Errorf("kernels: %s (variant %s): %w", k.spec.Name, v, err)
}

// function returns the variant compiled and loaded on a CUDA device,
// compiling it on first use. Compilations are cached per device and
// variant here, and per source hash by backend/cuda (in memory and on
// disk), so that a kernel whose source changes compiles again.
func (k *Kernel) function(dev backend.Device, d cudaDevice, v Variant) (cudaFunc, error) {
	if _, _, err := NVRTC(); err != nil {
		return cudaFunc{}, err // *NoNVRTCError: the caller falls back
	}
	key := dev.String() + "|" + k.hash + "|" + v.String()
	k.mu.Lock()
	c, ok := k.variants[key]
	if !ok {
		c = &compiled{}
		k.variants[key] = c
	}
	k.mu.Unlock()
	c.once.Do(func() {
		c.fn, c.err = d.load(k.VariantSource(v), k.spec.Name+".cu", k.spec.Name, k.nvrtcOptions())
		if c.err != nil {
			c.err = k.compileErr(v, c.err)
		}
	})
	return c.fn, c.err
}

// debugMode reports whether XPMPI_CUDA_DEBUG=1: kernels compile with
// -lineinfo and XPMPI_DEBUG defined, and every launch is followed by a
// synchronization whose error names the kernel.
func debugMode() bool { on, _ := DebugFromEnv(); return on }

// strictEnv reports whether XPMPI_KERNELS_STRICT=1: no kernel falls back
// to its host implementation.
func strictEnv() bool { on, _ := StrictFromEnv(); return on }
