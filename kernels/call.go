package kernels

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/profiling"
)

// Config is the configuration of one launch. The zero Config launches one
// thread per element of the first array argument in blocks of
// DefaultBlock, with no dynamic shared memory and the Spec's defines.
type Config struct {
	// N is the launch size in elements (threads); 0 means the length of
	// the first array argument. A launch of size 0 does nothing, on
	// either implementation.
	N int
	// Grid and Block are the CUDA grid and block; zero means computed from
	// N (Block DefaultBlock threads, Grid enough blocks for N). Ignored
	// by host implementations, which run the whole launch at once.
	Grid, Block Dim3
	// SharedMem is the dynamic shared memory in bytes.
	SharedMem int
	// Defines override the Spec's compile-time parameters: each set is a
	// variant of its own, compiled on first use.
	Defines map[string]string
	// Strict refuses a host fallback for this call.
	Strict bool
}

// DefaultBlock is the block size of a launch whose Config gives none.
const DefaultBlock = 256

// MaxSharedMem is the most dynamic shared memory per block that a launch
// gets without the opt-in attribute
// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES). A CUDA launch that
// asks for more opts its function in first (backend/cuda's
// Function.Launch), up to the device's maximum (cuda.DeviceInfo's
// SharedMemOptin: 227 KiB on an H100 or H200); past that it is an error
// naming the kernel.
const MaxSharedMem = 48 << 10

// maxGridX is the largest x dimension of a CUDA grid.
const maxGridX = 1<<31 - 1

// ArgError is an argument a kernel call cannot take: a wrong count, kind,
// element type, value or device.
type ArgError struct {
	Kernel string // the kernel's name
	Index  int    // the argument's index, -1 for an error about all of them
	Param  string // the parameter's name
	Reason string
	Err    error // the error's kind, for errors.Is: backend.ErrFreed for a freed array; else nil
}

// Unwrap returns the error's kind (Err).
func (e *ArgError) Unwrap() error { return e.Err }

// Error names the kernel and the argument and says what is wrong.
func (e *ArgError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("kernels: %s: %s", e.Kernel, e.Reason)
	}
	return fmt.Sprintf("kernels: %s: argument %d (%s): %s", e.Kernel, e.Index, e.Param, e.Reason)
}

// FallbackError is a call that would have run the host implementation in
// place of CUDA code, refused by strict mode (Spec.Strict, Config.Strict
// or XPMPI_KERNELS_STRICT=1), or impossible without a host implementation.
type FallbackError struct {
	Kernel string
	Device backend.Device
	Reason string // why the CUDA code cannot run
	Strict bool   // refused by strict mode (else: no host implementation)
}

// Error names the kernel and the device and says why it did not run.
func (e *FallbackError) Error() string {
	if e.Strict {
		return fmt.Sprintf("kernels: %s on %v: %s, and strict mode refuses the host fallback", e.Kernel, e.Device, e.Reason)
	}
	return fmt.Sprintf("kernels: %s on %v: %s, and the kernel has no host implementation", e.Kernel, e.Device, e.Reason)
}

// boundArg is one argument checked against its parameter.
type boundArg struct {
	param Param
	arg   Arg
	bits  uint64 // scalars, converted to the parameter's type
}

// binding is a call's arguments checked against the signature.
type binding struct {
	args        []boundArg
	variant     Variant
	dev         backend.Device
	be          backend.Backend // of the first array
	n           int
	grid, block Dim3
}

// Call runs the kernel with the default Config. See Launch.
func (k *Kernel) Call(args ...Arg) error { return k.Launch(Config{}, args...) }

// Launch runs the kernel where its array arguments live: all on the host,
// the host implementation; all on one CUDA device, the CUDA kernel
// (compiled for the variant on first use), queued on the device's stream.
// Arrays on different devices are an *ArgError naming them. Every
// argument is checked first (count, kind, element type, scalar range,
// struct type, __restrict__ overlap), and a wrong one is an *ArgError
// naming it and saying why.
//
// Where the CUDA kernel cannot run (no CUDA source, no NVRTC, or a device
// that runs no CUDA code, as the fake device), the host implementation
// runs instead: directly on the device memory when that is host memory
// (the fake device's), else on host copies of the arrays, copied back
// after (const ones are not). Each such call records a profiling Fallback
// event, each copy a KernelConversion event, and the first fallback of a
// kernel logs a warning (log/slog). Strict mode refuses with a
// *FallbackError instead.
//
// Errors of the launch itself name the kernel; a kernel's own faults show
// at the next synchronization (at once with XPMPI_CUDA_DEBUG=1).
func (k *Kernel) Launch(cfg Config, args ...Arg) error {
	b, err := k.bind(cfg, args)
	if err != nil {
		return err
	}
	if b.n == 0 && cfg.Grid.isZero() {
		return nil
	}
	if b.be == nil || b.dev.IsHost() {
		if k.spec.Host == nil {
			reason := "the arrays are host arrays"
			if b.be == nil {
				reason = "no array argument says where to run, so the call runs on the host"
			}
			return &FallbackError{Kernel: k.spec.Name, Device: backend.Host, Reason: reason}
		}
		return k.runHost(b, nil)
	}
	reason := ""
	switch {
	case k.spec.CUDA == "":
		reason = "the kernel has no CUDA source"
	case b.dev.Kind != backend.CUDA:
		reason = fmt.Sprintf("a %v device runs no CUDA code", b.dev.Kind)
	default:
		d, ok := cudaOf(b.be)
		if !ok {
			reason = fmt.Sprintf("the arrays' backend %s is not backend/cuda's", b.be.Name())
			break
		}
		err := k.launchCUDA(cfg, b, d)
		var no *NoNVRTCError
		if !errors.As(err, &no) {
			return err
		}
		reason = no.Error()
	}
	return k.fallback(cfg, b, reason)
}

// bind checks the arguments against the signature.
func (k *Kernel) bind(cfg Config, args []Arg) (*binding, error) {
	params := k.sig.Params
	if len(args) != len(params) {
		return nil, &ArgError{Kernel: k.spec.Name, Index: -1,
			Reason: fmt.Sprintf("%d arguments, the signature has %d: %s", len(args), len(params), k.sig)}
	}
	argErr := func(i int, format string, a ...any) error {
		return &ArgError{Kernel: k.spec.Name, Index: i, Param: params[i].Name, Reason: fmt.Sprintf(format, a...)}
	}
	b := &binding{args: make([]boundArg, len(args))}
	// The element type parameter: fixed by the first array or typed scalar
	// of a generic parameter.
	tIndex := -1
	var tType Type
	for i, a := range args {
		if a.kind == argDist || a.kind == argInvalid {
			return nil, argErr(i, "%s", errDistInLaunch)
		}
	}
	for i, p := range params {
		a := args[i]
		if p.Type != Generic {
			continue
		}
		switch a.kind {
		case argArray:
			tIndex, tType = i, TypeOf(a.dt)
		case argScalar:
			tIndex, tType = i, a.typ
		default:
			continue
		}
		break
	}
	if tIndex >= 0 {
		dt, ok := tType.DType()
		if !ok || !k.hasType(dt) {
			return nil, argErr(tIndex, "%s makes %s = %s, but the kernel is compiled for %s = %s only", args[tIndex].describe(), k.spec.TypeParam, tType, k.spec.TypeParam, typeList(k.spec.Types))
		}
		b.variant = Variant{DType: dt, Generic: true}
	} else if len(k.spec.Types) > 0 {
		b.variant = Variant{DType: k.spec.Types[0], Generic: true}
		tType = TypeOf(k.spec.Types[0])
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Defines)) { // the same define named every time
		value := cfg.Defines[name]
		if !validIdent(name) || strings.ContainsAny(value, "\n\r") {
			return nil, &ArgError{Kernel: k.spec.Name, Index: -1, Reason: fmt.Sprintf("define %s=%q: want a C identifier and a one-line value", name, value)}
		}
	}
	b.variant.Defines = k.defines(cfg.Defines)
	for i, p := range params {
		a := args[i]
		b.args[i] = boundArg{param: p, arg: a}
		pt := p.Type
		if pt == Generic {
			pt = tType
		}
		switch p.Kind() {
		case ArrayParam:
			if a.kind != argArray {
				return nil, argErr(i, "%s, the parameter is an array (%s)", a.describe(), p)
			}
			if a.freed() {
				return nil, &ArgError{Kernel: k.spec.Name, Index: i, Param: p.Name,
					Reason: "a freed array: " + backend.ErrFreed.Error(), Err: backend.ErrFreed}
			}
			if TypeOf(a.dt) != pt {
				why := ""
				if p.Type == Generic {
					why = fmt.Sprintf(" (%s = %s, from argument %d)", k.spec.TypeParam, tType, tIndex)
				}
				return nil, argErr(i, "%s, the parameter is %s *%s", a.describe(), pt, why)
			}
		case ScalarParam:
			if a.kind == argArray || a.kind == argStruct {
				return nil, argErr(i, "%s, the parameter is a scalar %s", a.describe(), pt)
			}
			bits, err := a.scalarBits(pt)
			if err != nil {
				return nil, argErr(i, "%v", err)
			}
			b.args[i].bits = bits
		case StructParam:
			st := k.structs[p.StructName]
			if a.kind != argStruct {
				return nil, argErr(i, "%s, the parameter is struct %s (pass kernels.StructValue of %v)", a.describe(), p.StructName, st.goType)
			}
			if a.st != st.goType {
				return nil, argErr(i, "%s, the parameter is struct %s, Go type %v", a.describe(), p.StructName, st.goType)
			}
		}
	}
	// Devices: all arrays on one.
	first := -1
	for i, ba := range b.args {
		if ba.arg.kind != argArray {
			continue
		}
		if first < 0 {
			first = i
			b.dev, b.be, b.n = ba.arg.buf.Device(), ba.arg.be, ba.arg.buf.Len()
			continue
		}
		if ba.arg.buf.Device() != b.dev {
			var where []string
			for j, x := range b.args {
				if x.arg.kind == argArray {
					where = append(where, fmt.Sprintf("%d (%s) on %v", j, x.param.Name, x.arg.buf.Device()))
				}
			}
			return nil, &ArgError{Kernel: k.spec.Name, Index: i, Param: ba.param.Name,
				Reason: fmt.Sprintf("on %v, but argument %d (%s) is on %v: a call's arrays must all be on the host or all on one device (arrays %s); move them with backend.ToDevice or backend.ToHost",
					ba.arg.buf.Device(), first, params[first].Name, b.dev, strings.Join(where, ", "))}
		}
	}
	// __restrict__: no overlap with another array.
	for i, ba := range b.args {
		if !ba.param.Restrict || ba.arg.kind != argArray || ba.arg.buf.Len() == 0 {
			continue
		}
		for j, x := range b.args {
			if j == i || x.arg.kind != argArray || x.arg.buf.Len() == 0 {
				continue
			}
			if overlap(ba.arg.buf, x.arg.buf) {
				return nil, argErr(i, "is __restrict__ but shares memory with argument %d (%s)", j, x.param.Name)
			}
		}
	}
	if cfg.N < 0 {
		return nil, &ArgError{Kernel: k.spec.Name, Index: -1, Reason: fmt.Sprintf("launch size %d", cfg.N)}
	}
	if cfg.N > 0 {
		b.n = cfg.N
	}
	if cfg.SharedMem < 0 {
		return nil, &ArgError{Kernel: k.spec.Name, Index: -1, Reason: fmt.Sprintf("%d bytes of shared memory", cfg.SharedMem)}
	}
	b.grid, b.block = launchDims(cfg, b.n)
	return b, nil
}

func (k *Kernel) hasType(dt backend.DType) bool {
	for _, t := range k.spec.Types {
		if t == dt {
			return true
		}
	}
	return false
}

func typeList(ts []backend.DType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

// overlap reports whether two buffers' memory overlaps.
func overlap(a, b backend.Buffer) bool {
	pa, pb := uintptr(a.Ptr()), uintptr(b.Ptr())
	na, nb := uintptr(a.Len()*a.DType().Size()), uintptr(b.Len()*b.DType().Size())
	return pa < pb+nb && pb < pa+na
}

// launchCUDA compiles (on first use) and launches the kernel on a CUDA
// device.
func (k *Kernel) launchCUDA(cfg Config, b *binding, d cudaDevice) error {
	packed := make([]packedArg, len(b.args))
	for i, ba := range b.args {
		switch ba.param.Kind() {
		case ArrayParam:
			packed[i] = packedArg{buf: ba.arg.buf}
		case ScalarParam:
			pt := ba.param.Type
			if pt == Generic {
				pt = TypeOf(b.variant.DType)
			}
			packed[i] = packedArg{bytes: scalarBytes(ba.bits, pt.Size())}
		case StructParam:
			if len(ba.arg.bytes) > maxArgBytes {
				return fmt.Errorf("kernels: %s: argument %d (%s): struct %s is %d bytes; backend/cuda passes at most %d bytes per argument", k.spec.Name, i, ba.param.Name, ba.param.StructName, len(ba.arg.bytes), maxArgBytes)
			}
			packed[i] = packedArg{bytes: ba.arg.bytes}
		}
	}
	grid, block := b.grid, b.block
	fn, err := k.function(b.dev, d, b.variant)
	if err != nil {
		return err
	}
	if err := fn.launch(grid, block, cfg.SharedMem, packed); err != nil {
		return fmt.Errorf("kernels: %s (variant %s) on %v: grid %v, block %v: %w", k.spec.Name, b.variant, b.dev, grid, block, err)
	}
	if debugMode() {
		if err := d.synchronize(); err != nil {
			return fmt.Errorf("kernels: %s (variant %s) on %v failed (XPMPI_CUDA_DEBUG=1 synchronizes after each launch): %w", k.spec.Name, b.variant, b.dev, err)
		}
	}
	return nil
}

// launchDims returns the grid and block of a launch of n threads.
func launchDims(cfg Config, n int) (grid, block Dim3) {
	block = cfg.Block.norm()
	if cfg.Block.isZero() {
		block = Dim3{DefaultBlock, 1, 1}
	}
	if !cfg.Grid.isZero() {
		return cfg.Grid.norm(), block
	}
	gx := (n + block.X - 1) / block.X
	return Dim3{min(max(gx, 1), maxGridX), 1, 1}, block
}

// fallback runs the host implementation for a call on a device.
func (k *Kernel) fallback(cfg Config, b *binding, reason string) error {
	if cfg.Strict || k.spec.Strict || strictEnv() {
		return &FallbackError{Kernel: k.spec.Name, Device: b.dev, Reason: reason, Strict: true}
	}
	if k.spec.Host == nil {
		return &FallbackError{Kernel: k.spec.Name, Device: b.dev, Reason: reason}
	}
	k.warnOnce.Do(func() {
		slog.Warn("kernels: running the host implementation instead of CUDA (warned once per kernel; XPMPI_KERNELS_STRICT=1 refuses)",
			"kernel", k.spec.Name, "device", b.dev.String(), "reason", reason)
	})
	if err := b.be.Synchronize(); err != nil {
		return fmt.Errorf("kernels: %s on %v: waiting for the device before the host fallback: %w", k.spec.Name, b.dev, err)
	}
	if b.dev.Kind == backend.Fake {
		// Host-addressable device memory: the host code runs on it directly.
		profiling.Record(profiling.Event{Kind: profiling.Fallback, Bytes: 0, Blocking: true, Implicit: true,
			Desc: fmt.Sprintf("kernels.%s host fallback on %v (%s; its memory is host memory: nothing copied)", k.spec.Name, b.dev, reason)})
		return k.runHost(b, func(buf backend.Buffer) backend.Buffer {
			return backend.NewHostBuffer(buf.Ptr(), buf.Len(), buf.DType())
		})
	}
	// Device memory: copy the arrays to the host and back.
	type copyOf struct {
		host  *backend.HostBuffer
		words []uint64
	}
	copies := map[backend.Buffer]copyOf{}
	var total int64
	for _, ba := range b.args {
		if ba.arg.kind != argArray {
			continue
		}
		buf := ba.arg.buf
		if _, ok := copies[buf]; ok {
			continue
		}
		bytes := buf.Len() * buf.DType().Size()
		words := make([]uint64, (bytes+7)/8)
		h := backend.NewHostBuffer(unsafe.Pointer(unsafe.SliceData(words)), buf.Len(), buf.DType())
		if bytes > 0 {
			if err := b.be.CopyToHost(h.Ptr(), buf); err != nil {
				return fmt.Errorf("kernels: %s: host fallback: copying argument %s to the host: %w", k.spec.Name, ba.param.Name, err)
			}
		}
		profiling.RecordTransfer(profiling.KernelConversion, fmt.Sprintf("kernels.%s argument %s to the host for the host fallback", k.spec.Name, ba.param.Name), int64(bytes), true, true)
		total += int64(bytes)
		copies[buf] = copyOf{h, words}
	}
	profiling.Record(profiling.Event{Kind: profiling.Fallback, Bytes: total, Blocking: true, Implicit: true,
		Desc: fmt.Sprintf("kernels.%s host fallback on %v (%s)", k.spec.Name, b.dev, reason)})
	if err := k.runHost(b, func(buf backend.Buffer) backend.Buffer { return copies[buf].host }); err != nil {
		return err
	}
	back := map[backend.Buffer]bool{}
	for _, ba := range b.args {
		if ba.arg.kind != argArray || ba.param.Const || back[ba.arg.buf] {
			continue
		}
		buf := ba.arg.buf
		back[buf] = true
		bytes := buf.Len() * buf.DType().Size()
		if bytes > 0 {
			if err := b.be.CopyFromHost(buf, copies[buf].host.Ptr()); err != nil {
				return fmt.Errorf("kernels: %s: host fallback: copying argument %s back to %v: %w", k.spec.Name, ba.param.Name, b.dev, err)
			}
		}
		profiling.RecordTransfer(profiling.KernelConversion, fmt.Sprintf("kernels.%s argument %s back to the device after the host fallback", k.spec.Name, ba.param.Name), int64(bytes), true, true)
	}
	return nil
}

// runHost runs the host implementation; view maps each array's buffer to
// host memory (nil: the buffers are host buffers).
func (k *Kernel) runHost(b *binding, view func(backend.Buffer) backend.Buffer) error {
	c := &HostCall{k: k, variant: b.variant, n: b.n, grid: b.grid, block: b.block, args: make([]hostArg, len(b.args))}
	for i, ba := range b.args {
		h := hostArg{param: ba.param, bits: ba.bits}
		switch ba.param.Kind() {
		case ArrayParam:
			h.buf = ba.arg.buf
			if view != nil {
				h.buf = view(ba.arg.buf)
			}
		case StructParam:
			h.bytes, h.st = ba.arg.bytes, ba.arg.st
		}
		c.args[i] = h
	}
	if err := k.spec.Host(c); err != nil {
		return fmt.Errorf("kernels: %s (host implementation): %w", k.spec.Name, err)
	}
	return nil
}

// HostCall is what a host implementation gets: the arguments of one call,
// its variant and launch size. Its accessors panic, with a message naming
// the kernel and the argument, when the host implementation asks for an
// argument as something the signature says it is not.
type HostCall struct {
	k           *Kernel
	variant     Variant
	n           int
	grid, block Dim3
	args        []hostArg
}

type hostArg struct {
	param Param
	buf   backend.Buffer
	bits  uint64
	bytes []byte
	st    reflect.Type
}

// Kernel returns the kernel's name.
func (c *HostCall) Kernel() string { return c.k.spec.Name }

// Len returns the launch size: Config.N, or the first array's length.
func (c *HostCall) Len() int { return c.n }

// Variant returns the variant the call runs.
func (c *HostCall) Variant() Variant { return c.variant }

// Grid and Block return the launch's CUDA grid and block (Config's, or
// computed from the launch size), for host implementations of kernels
// whose results depend on them (a sum per block, say).
func (c *HostCall) Grid() Dim3 { return c.grid }

// Block returns the launch's block; see Grid.
func (c *HostCall) Block() Dim3 { return c.block }

// DType returns the element type of the variant (meaningful for a kernel
// with an element type parameter).
func (c *HostCall) DType() backend.DType { return c.variant.DType }

// Define returns a compile-time parameter's value and whether it is set.
func (c *HostCall) Define(name string) (string, bool) {
	for _, d := range c.variant.Defines {
		if d.Name == name {
			return d.Value, true
		}
	}
	return "", false
}

func (c *HostCall) fail(i int, format string, a ...any) {
	name := "?"
	if i >= 0 && i < len(c.args) {
		name = c.args[i].param.Name
	}
	panic(fmt.Sprintf("kernels: %s host implementation: argument %d (%s): %s", c.k.spec.Name, i, name, fmt.Sprintf(format, a...)))
}

func (c *HostCall) arg(i int, kind ParamKind) hostArg {
	if i < 0 || i >= len(c.args) {
		panic(fmt.Sprintf("kernels: %s host implementation: argument %d of %d", c.k.spec.Name, i, len(c.args)))
	}
	if k := c.args[i].param.Kind(); k != kind {
		c.fail(i, "read as %v, the parameter is %v (%s)", kind, k, c.args[i].param)
	}
	return c.args[i]
}

func hostArray[T backend.Element](c *HostCall, i int) []T {
	a := c.arg(i, ArrayParam)
	if a.buf.DType() != backend.DTypeOf[T]() {
		c.fail(i, "read as []%v, the array is of %v", backend.DTypeOf[T](), a.buf.DType())
	}
	return backend.HostSlice[T](a.buf)
}

// In returns array argument i for reading. Host implementations must not
// write through it: for a const parameter the caller's data (or the
// device's) is not copied back and other arguments may share it.
func In[T backend.Element](c *HostCall, i int) []T { return hostArray[T](c, i) }

// Out returns array argument i for writing. It panics for a const
// parameter: the signature says the kernel only reads it.
func Out[T backend.Element](c *HostCall, i int) []T {
	if c.arg(i, ArrayParam).param.Const {
		c.fail(i, "is const (%s): the host implementation may only read it (In)", c.args[i].param)
	}
	return hostArray[T](c, i)
}

// ScalarAt returns scalar argument i, whose parameter type must be T's
// (int32 for int, float64 for double, bool for bool, the variant's type
// for the element type parameter).
func ScalarAt[T Number | bool](c *HostCall, i int) T {
	a := c.arg(i, ScalarParam)
	pt := a.param.Type
	if pt == Generic {
		pt = TypeOf(c.variant.DType)
	}
	var z T
	want := Scalar(z).typ
	if pt != want {
		c.fail(i, "read as %s, the parameter is %s", goTypeName(want), pt)
	}
	var v T
	switch p := any(&v).(type) {
	case *bool:
		*p = a.bits != 0
	case *int8:
		*p = int8(a.bits)
	case *uint8:
		*p = uint8(a.bits)
	case *int16:
		*p = int16(a.bits)
	case *uint16:
		*p = uint16(a.bits)
	case *int32:
		*p = int32(uint32(a.bits))
	case *uint32:
		*p = uint32(a.bits)
	case *int64:
		*p = int64(a.bits)
	case *uint64:
		*p = a.bits
	case *float32:
		*p = float32frombits(uint32(a.bits))
	case *float64:
		*p = float64frombits(a.bits)
	}
	return v
}

// IntAt returns integer scalar argument i (of any integer type) as an int.
func IntAt(c *HostCall, i int) int {
	a := c.arg(i, ScalarParam)
	pt := a.param.Type
	if pt == Generic {
		pt = TypeOf(c.variant.DType)
	}
	switch pt {
	case Int8:
		return int(int8(a.bits))
	case Int16:
		return int(int16(a.bits))
	case Int32:
		return int(int32(uint32(a.bits)))
	case Int64, Uint64:
		return int(a.bits)
	case Uint8, Uint16, Uint32:
		return int(a.bits)
	}
	c.fail(i, "read as an integer, the parameter is %s", pt)
	return 0
}

// StructAt returns struct argument i, whose Go type must be S.
func StructAt[S any](c *HostCall, i int) S {
	a := c.arg(i, StructParam)
	var v S
	if t := reflect.TypeFor[S](); t != a.st {
		c.fail(i, "read as %v, the argument is %v", t, a.st)
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), len(a.bytes)), a.bytes)
	return v
}
