package kernels_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/profiling"
)

// fakeArray returns a fake-device copy of s.
func fakeArray[T backend.Element](t *testing.T, s []T) *backend.Array[T] {
	t.Helper()
	a, err := backend.ToDevice(backend.Wrap(append([]T(nil), s...)), fakedev.Default)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func toHost[T backend.Element](t *testing.T, a *backend.Array[T]) []T {
	t.Helper()
	out := make([]T, a.Len())
	if err := backend.CopyToHostSlice(out, a); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAxpyHost(t *testing.T) {
	x := backend.Wrap([]float64{1, 2, 3, math.Inf(1), math.NaN()})
	y := backend.Wrap([]float64{10, 20, 30, 40, 50})
	want := []float64{10, 20, 30, 40, 50}
	backend.Axpy(2.5, x, backend.Wrap(want))
	err := profiling.AssertNoTransfers(func() error {
		return kernels.AxpyKernel.Call(kernels.Int(5), kernels.Scalar(2.5), kernels.Array(x), kernels.Array(y))
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range y.Data() {
		if math.Float64bits(v) != math.Float64bits(want[i]) && !(math.IsNaN(v) && math.IsNaN(want[i])) {
			t.Errorf("y[%d] = %v, want %v", i, v, want[i])
		}
	}
	// Int converts to the element type parameter's type too.
	xi := backend.Wrap([]int32{1, 2, 3})
	yi := backend.Wrap([]int32{1, 1, 1})
	if err := kernels.AxpyKernel.Call(kernels.Int(3), kernels.Scalar(int32(-2)), kernels.Array(xi), kernels.Array(yi)); err != nil {
		t.Fatal(err)
	}
	if got := yi.Data(); got[0] != -1 || got[1] != -3 || got[2] != -5 {
		t.Errorf("int32 axpy: %v", got)
	}
}

func TestStencilsMatchBackend(t *testing.T) {
	for _, rc := range [][2]int{{5, 7}, {37, 53}, {3, 3}, {1, 4}, {2, 2}} {
		rows, cols := rc[0], rc[1]
		src := make([]float64, rows*cols)
		for i := range src {
			src[i] = math.Sin(float64(i)) * 3
		}
		for _, tc := range []struct {
			k   *kernels.Kernel
			ref func(dst, src *backend.Array[float64], rows, cols int)
		}{
			{kernels.Jacobi5Kernel, backend.Jacobi5[float64]},
			{kernels.Laplace5Kernel, backend.Laplace5[float64]},
		} {
			got, want := backend.Wrap(make([]float64, len(src))), backend.Wrap(make([]float64, len(src)))
			tc.ref(want, backend.Wrap(src), rows, cols)
			if err := tc.k.Call(kernels.Int(rows), kernels.Int(cols), kernels.Array(got), kernels.Array(backend.Wrap(src))); err != nil {
				t.Fatal(err)
			}
			for i := range src {
				if math.Float64bits(got.Data()[i]) != math.Float64bits(want.Data()[i]) {
					t.Errorf("%s %dx%d: [%d] = %v, backend %v", tc.k.Name(), rows, cols, i, got.Data()[i], want.Data()[i])
					break
				}
			}
		}
	}
}

// TestArgErrors checks that every wrong argument is an *ArgError naming it
// and saying why.
func TestArgErrors(t *testing.T) {
	x := backend.Wrap([]float64{1, 2, 3})
	y := backend.Wrap([]float64{1, 2, 3})
	x32 := backend.Wrap([]float32{1, 2, 3})
	u := backend.Wrap([]uint32{1, 2, 3})
	fy := fakeArray(t, []float64{1, 2, 3})
	k := kernels.AxpyKernel
	tests := []struct {
		name string
		args []kernels.Arg
		want []string
	}{
		{"count", []kernels.Arg{kernels.Int(3), kernels.Array(x), kernels.Array(y)}, []string{"axpy", "3 arguments, the signature has 4"}},
		{"kind: array for scalar", []kernels.Arg{kernels.Array(x), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(y)}, []string{"argument 0 (n)", "array of float64", "scalar long long"}},
		{"kind: scalar for array", []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Float(1), kernels.Array(y)}, []string{"argument 2 (x)", "the parameter is an array"}},
		{"element type", []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(backend.Wrap([]float32{1, 2, 3}))}, []string{"argument 3 (y)", "array of float32", "double *", "T = double, from argument 1"}},
		{"element type from array", []kernels.Arg{kernels.Int(3), kernels.Float(2), kernels.Array(x32), kernels.Array(y)}, []string{"argument 3 (y)", "array of float64", "float *"}},
		{"no variant", []kernels.Arg{kernels.Int(3), kernels.Int(2), kernels.Array(u), kernels.Array(u)}, []string{"argument 2 (x)", "T = unsigned int", "float32, float64, int32, int64"}},
		{"scalar type", []kernels.Arg{kernels.Scalar(int32(3)), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(y)}, []string{"argument 0 (n)", "int32 scalar, the parameter is long long"}},
		{"mixed devices", []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(fy)}, []string{"argument 3 (y)", "on fake:0", "argument 2 (x) is on cpu", "must all be on the host or all on one device"}},
		{"restrict overlap", []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(x)}, []string{"argument 2 (x)", "__restrict__", "argument 3 (y)"}},
		{"struct for scalar", []kernels.Arg{kernels.Int(3), kernels.StructValue(small{}), kernels.Array(x), kernels.Array(y)}, []string{"argument 1 (a)", "struct", "scalar double"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := k.Call(tc.args...)
			var ae *kernels.ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T), want *kernels.ArgError", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// Scalar range.
	small := kernels.MustNew(kernels.Spec{Name: "s", Signature: "void s(int n, unsigned char c, const float *x)", Host: func(*kernels.HostCall) error { return nil }})
	for _, tc := range []struct {
		args []kernels.Arg
		want string
	}{
		{[]kernels.Arg{kernels.Int(1 << 40), kernels.Int(1), kernels.Array(x32)}, "argument 0 (n): the integer 1099511627776 is out of the range of int"},
		{[]kernels.Arg{kernels.Int(1), kernels.Int(256), kernels.Array(x32)}, "argument 1 (c): the integer 256 is out of the range of unsigned char"},
		{[]kernels.Arg{kernels.Float(1), kernels.Int(1), kernels.Array(x32)}, "argument 0 (n): the float 1, the parameter is int"},
	} {
		if err := small.Call(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

type scaleParams struct {
	A, B float64
	N    int32
}

// scaleKernel is a kernel with a struct parameter: y = p.A*x + p.B for the
// first p.N elements.
func scaleKernel(t *testing.T, cdecl string) (*kernels.Kernel, error) {
	t.Helper()
	return kernels.New(kernels.Spec{
		Name:    "scale",
		CUDA:    cdecl + `extern "C" __global__ void scale(ScaleParams p, const double *x, double *y) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < p.N) y[i] = p.A * x[i] + p.B; }`,
		Structs: []*kernels.StructType{kernels.MustStructOf[scaleParams]("ScaleParams")},
		Host: func(c *kernels.HostCall) error {
			p := kernels.StructAt[scaleParams](c, 0)
			x, y := kernels.In[float64](c, 1), kernels.Out[float64](c, 2)
			for i := 0; i < int(p.N); i++ {
				y[i] = float64(p.A*x[i]) + p.B
			}
			return nil
		},
	})
}

func TestStructArgument(t *testing.T) {
	k, err := scaleKernel(t, "")
	if err != nil {
		t.Fatal(err)
	}
	x, y := backend.Wrap([]float64{1, 2, 3}), backend.Wrap([]float64{0, 0, 0})
	if err := k.Call(kernels.StructValue(scaleParams{A: 2, B: 1, N: 2}), kernels.Array(x), kernels.Array(y)); err != nil {
		t.Fatal(err)
	}
	if got := y.Data(); got[0] != 3 || got[1] != 5 || got[2] != 0 {
		t.Errorf("y = %v", got)
	}
	// The generated declaration goes into the compiled source.
	src := k.VariantSource(k.Variants()[0])
	for _, s := range []string{"typedef struct ScaleParams {", "int N; /* offset 16 */", "XPMPI_OFFSETOF(ScaleParams, N) == 16"} {
		if !strings.Contains(src, s) {
			t.Errorf("variant source lacks %q", s)
		}
	}
	// A struct of another Go type is refused.
	err = k.Call(kernels.StructValue(small{}), kernels.Array(x), kernels.Array(y))
	if err == nil || !strings.Contains(err.Error(), "argument 0 (p)") || !strings.Contains(err.Error(), "kernels_test.scaleParams") {
		t.Errorf("struct of another type: %v", err)
	}
	// A C declaration in the source that differs from the Go type is an
	// error at New, naming the field.
	_, err = scaleKernel(t, "struct ScaleParams { double A; float B; int N; };\n")
	if err == nil || !strings.Contains(err.Error(), "field B") || !strings.Contains(err.Error(), "parameter 0 (p)") {
		t.Errorf("mismatched C declaration: %v", err)
	}
	if _, err := scaleKernel(t, "struct ScaleParams { double A; double B; int N; };\n"); err != nil {
		t.Errorf("matching C declaration: %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	host := func(*kernels.HostCall) error { return nil }
	tests := []struct {
		name string
		spec kernels.Spec
		want string
	}{
		{"no implementation", kernels.Spec{Name: "k", Signature: "void k(int n)"}, "neither"},
		{"bad name", kernels.Spec{Name: "a-b", Host: host}, "not a kernel name"},
		{"host only without signature", kernels.Spec{Name: "k", Host: host}, "needs its Signature"},
		{"not extern C", kernels.Spec{Name: "k", CUDA: "__global__ void k(float *x) {}"}, `extern "C"`},
		{"template", kernels.Spec{Name: "k", CUDA: "template <typename T> __global__ void k(T *x) {}", Types: []backend.DType{backend.Float32}}, "template kernels"},
		{"signatures differ", kernels.Spec{Name: "k", CUDA: `extern "C" __global__ void k(const float *x, float *y) {}`, Signature: "void k(float *x, float *y)", Host: host}, "parameter 0 (x)"},
		{"generic without types", kernels.Spec{Name: "k", CUDA: `extern "C" __global__ void k(T *x) {}`}, "no Types"},
		{"types without generic", kernels.Spec{Name: "k", CUDA: `extern "C" __global__ void k(float *x) {}`, Types: []backend.DType{backend.Float32}}, "no parameter has type T"},
		{"missing struct type", kernels.Spec{Name: "k", CUDA: `extern "C" __global__ void k(Params p, float *x) {}`}, "parameter 0 (p): struct Params has no Go type"},
		{"unparsable", kernels.Spec{Name: "k", CUDA: `extern "C" __global__ void k(float **x) {}`}, "kernel k (line 1), parameter 0 (x)"},
		{"missing kernel", kernels.Spec{Name: "k", CUDA: `extern "C" __global__ void j(float *x) {}`}, "no __global__ function"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kernels.New(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "kernels: ") {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestFallbackOnFakeDevice: the fake device runs no CUDA code, and its
// memory is host memory: the host implementation runs on it directly,
// recorded as one fallback event and no conversion; strict mode refuses.
func TestFallbackOnFakeDevice(t *testing.T) {
	x := fakeArray(t, []float64{1, 2, 3})
	y := fakeArray(t, []float64{1, 1, 1})
	args := []kernels.Arg{kernels.Int(3), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(y)}
	c := profiling.Counting(func() {
		if err := kernels.AxpyKernel.Call(args...); err != nil {
			t.Fatal(err)
		}
	})
	if got := toHost(t, y); got[0] != 3 || got[1] != 5 || got[2] != 7 {
		t.Errorf("y = %v", got)
	}
	if c.Count(profiling.Fallback) != 1 || c.Count(profiling.KernelConversion) != 0 {
		t.Errorf("events: %s", c.Report())
	}
	err := profiling.AssertNoTransfers(func() error { return kernels.AxpyKernel.Call(args...) })
	var te *profiling.TransferError
	if !errors.As(err, &te) || te.Events[0].Kind != profiling.Fallback || !strings.Contains(te.Events[0].Desc, "kernels.axpy") {
		t.Errorf("AssertNoTransfers = %v, want the fallback", err)
	}
	// Strict mode, by Config and by the environment.
	var fe *kernels.FallbackError
	if err := kernels.AxpyKernel.Launch(kernels.Config{Strict: true}, args...); !errors.As(err, &fe) || !fe.Strict || !strings.Contains(err.Error(), "axpy on fake:0") {
		t.Errorf("strict Config: %v", err)
	}
	t.Setenv("XPMPI_KERNELS_STRICT", "1")
	if err := kernels.AxpyKernel.Call(args...); !errors.As(err, &fe) || !strings.Contains(err.Error(), "strict mode refuses") {
		t.Errorf("XPMPI_KERNELS_STRICT=1: %v", err)
	}
}

// opaque is a device backend whose memory is not host memory as far as
// kernels can tell: the fake device's, behind buffers that report a CUDA
// device of another backend. A kernel on it falls back by converting.
type opaque struct{ *fakedev.Backend }

type opaqueBuf struct{ backend.Buffer }

var opaqueDev = backend.Device{Kind: backend.CUDA, ID: 99}

func (opaqueBuf) Device() backend.Device { return opaqueDev }

func (o opaque) Name() string           { return "opaque" }
func (o opaque) Device() backend.Device { return opaqueDev }
func (o opaque) Alloc(dt backend.DType, n int) (backend.Buffer, error) {
	b, err := o.Backend.Alloc(dt, n)
	return opaqueBuf{b}, err
}
func (o opaque) CopyToHost(dst unsafe.Pointer, src backend.Buffer) error {
	return o.Backend.CopyToHost(dst, src.(opaqueBuf).Buffer)
}
func (o opaque) CopyFromHost(dst backend.Buffer, src unsafe.Pointer) error {
	return o.Backend.CopyFromHost(dst.(opaqueBuf).Buffer, src)
}

func TestFallbackConverts(t *testing.T) {
	be := opaque{fakedev.New()}
	x, err := backend.ToDevice(backend.Wrap([]float64{1, 2, 3}), be)
	if err != nil {
		t.Fatal(err)
	}
	y, err := backend.ToDevice(backend.Wrap([]float64{1, 1, 1}), be)
	if err != nil {
		t.Fatal(err)
	}
	c := profiling.Counting(func() {
		err = kernels.AxpyKernel.Call(kernels.Int(3), kernels.Scalar(2.0), kernels.Array(x), kernels.Array(y))
	})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 3)
	if err := be.CopyToHost(unsafe.Pointer(&got[0]), y.Buffer()); err != nil {
		t.Fatal(err)
	}
	if got[0] != 3 || got[1] != 5 || got[2] != 7 {
		t.Errorf("y = %v", got)
	}
	// x and y to the host, y (not const) back: three conversions of 24
	// bytes, and one fallback.
	if c.Count(profiling.KernelConversion) != 3 || c.Bytes(profiling.KernelConversion) != 72 || c.Count(profiling.Fallback) != 1 {
		t.Errorf("events: %s", c.Report())
	}
}

func TestHostCallRefusesWritingConst(t *testing.T) {
	k := kernels.MustNew(kernels.Spec{Name: "bad", Signature: "void bad(const float *x)", Host: func(c *kernels.HostCall) error {
		kernels.Out[float32](c, 0)[0] = 1
		return nil
	}})
	defer func() {
		r := recover()
		msg, _ := r.(string)
		if !strings.Contains(msg, "argument 0 (x): is const") || !strings.HasPrefix(msg, "kernels: bad host implementation") {
			t.Errorf("panic %v", r)
		}
	}()
	k.Call(kernels.Array(backend.Wrap([]float32{0})))
	t.Error("no panic")
}

func TestLaunchConfig(t *testing.T) {
	// A launch size of 0 does nothing; N overrides the first array's length.
	calls := 0
	var sizes []int
	k := kernels.MustNew(kernels.Spec{Name: "count", Signature: "void count(float *x)", Host: func(c *kernels.HostCall) error {
		calls++
		sizes = append(sizes, c.Len())
		return nil
	}})
	if err := k.Call(kernels.Array(backend.Wrap([]float32{}))); err != nil || calls != 0 {
		t.Errorf("empty launch: %v, %d calls", err, calls)
	}
	if err := k.Launch(kernels.Config{N: 7}, kernels.Array(backend.Wrap([]float32{1}))); err != nil || calls != 1 || sizes[0] != 7 {
		t.Errorf("N = 7: %v, sizes %v", err, sizes)
	}
	if err := k.Launch(kernels.Config{N: -1}, kernels.Array(backend.Wrap([]float32{1}))); err == nil {
		t.Error("N = -1 accepted")
	}
}

func TestVariants(t *testing.T) {
	k := kernels.MustNew(kernels.Spec{
		Name:    "fill",
		CUDA:    `extern "C" __global__ void fill(T *x, long long n) { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) x[i] = (T)VALUE; }`,
		Types:   []backend.DType{backend.Float32, backend.Int64},
		Defines: map[string]string{"VALUE": "7"},
		Host: func(c *kernels.HostCall) error {
			v, _ := c.Define("VALUE")
			if c.DType() == backend.Int64 {
				for i := range kernels.Out[int64](c, 0) {
					kernels.Out[int64](c, 0)[i] = int64(len(v))
				}
			}
			return nil
		},
	})
	vs := k.Variants()
	if len(vs) != 2 || vs[0].String() != "float32 VALUE=7" || vs[1].String() != "int64 VALUE=7" {
		t.Errorf("variants %v", vs)
	}
	src := k.VariantSource(vs[1])
	if !strings.Contains(src, "#define T long long\n#define VALUE 7\n") || !strings.Contains(src, "#line 1 \"fill.cu\"") {
		t.Errorf("variant source:\n%s", src)
	}
	x := backend.Wrap([]int64{0, 0})
	if err := k.Launch(kernels.Config{Defines: map[string]string{"VALUE": "123"}}, kernels.Array(x), kernels.Int(2)); err != nil {
		t.Fatal(err)
	}
	if x.Data()[0] != 3 {
		t.Errorf("the host implementation saw VALUE of length %d, want 3", x.Data()[0])
	}
}

// TestCompilePTX compiles every variant of the kernels here and of the
// catalog with NVRTC.
func TestCompilePTX(t *testing.T) {
	kerneltest.NeedNVRTC(t)
	res, err := kernels.Default.CompileAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < 8 {
		t.Errorf("%d variants compiled", len(res))
	}
	k, err := scaleKernel(t, "")
	if err != nil {
		t.Fatal(err)
	}
	ptx, err := k.CompilePTX(k.Variants()[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ptx), ".entry scale(") {
		t.Errorf("PTX has no entry scale")
	}
	// A struct argument in a kernel with an element type parameter: T is a
	// macro while the struct's declaration and layout checks compile.
	gs := kernels.MustNew(kernels.Spec{Name: "gs", Types: []backend.DType{backend.Float32, backend.Float64},
		Structs: []*kernels.StructType{kernels.MustStructOf[Affine]("")},
		CUDA:    `extern "C" __global__ void gs(Affine p, T *x) { x[0] = (T)p.A; }`})
	for _, v := range gs.Variants() {
		if _, err := gs.CompilePTX(v); err != nil {
			t.Errorf("gs (%v): %v", v, err)
		}
	}
	bad := kernels.MustNew(kernels.Spec{Name: "bad", CUDA: `extern "C" __global__ void bad(float *x) { x[0] = undefined_name; }`})
	_, err = bad.CompilePTX(bad.Variants()[0])
	if err == nil || !strings.Contains(err.Error(), "kernels: bad (variant default)") || !strings.Contains(err.Error(), "undefined_name") || !strings.Contains(err.Error(), "bad.cu(1)") {
		t.Errorf("compile error %v", err)
	}
	if err := kernels.Default.Check(); err != nil {
		t.Error(err)
	}
}
