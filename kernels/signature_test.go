package kernels

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSignature(t *testing.T) {
	tests := []struct {
		name, src, kernel string
		opts              ParseOptions
		want              string // Signature.String()
		kinds             []ParamKind
	}{
		{"axpy", `extern "C" __global__ void axpy(const double* x, double* y, int n, Params p) {}`, "axpy", ParseOptions{},
			`extern "C" __global__ void axpy(const double *x, double *y, int n, Params p)`,
			[]ParamKind{ArrayParam, ArrayParam, ScalarParam, StructParam}},
		{"stdint and restrict", `extern "C" __global__ void k(const int64_t *__restrict__ a, uint32_t* restrict b, uint64_t n, int32_t m) {}`, "k", ParseOptions{},
			`extern "C" __global__ void k(const long long *__restrict__ a, unsigned int *__restrict__ b, unsigned long long n, int m)`, nil},
		{"keyword spellings", `extern "C" __global__ void k(unsigned long long int a, long b, unsigned c, signed d, long long e, bool f, unsigned char g, short h, size_t i) {}`, "k", ParseOptions{},
			`extern "C" __global__ void k(unsigned long long a, long long b, unsigned int c, int d, long long e, bool f, unsigned char g, short h, unsigned long long i)`, nil},
		{"const after type", `extern "C" __global__ void k(double const *x, float *const y) {}`, "k", ParseOptions{},
			`extern "C" __global__ void k(const double *x, float *y)`, nil},
		{"extern block", "extern \"C\" {\n// comment\n__global__ void a(int n) {}\n/* x */ __global__ void b(float *x) {}\n}", "b", ParseOptions{},
			`extern "C" __global__ void b(float *x)`, nil},
		{"template", `template <typename T> __global__ void scale(T *x, T a, int n) {}`, "scale", ParseOptions{},
			`template <typename T> __global__ void scale(T *x, T a, int n)`, nil},
		{"macro type param", `extern "C" __global__ void __launch_bounds__(256) scale(const T *x, T *y, long long n) {}`, "scale", ParseOptions{TypeParams: []string{"T"}},
			`extern "C" __global__ void scale(const T *x, T *y, long long n)`, nil},
		{"struct keyword", `extern "C" __global__ static void k(struct Params p, void *unused_not_here) {}`, "", ParseOptions{}, "", nil},
		{"preprocessor and no params", "#define N 3 \\\n  __global__ void no(int x)\nextern \"C\" __global__ void none(void) {}", "none", ParseOptions{},
			`extern "C" __global__ void none()`, nil},
		{"unnamed", `extern "C" __global__ void k(int, const float *) {}`, "k", ParseOptions{},
			`extern "C" __global__ void k(int arg0, const float *arg1)`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.kernel == "" {
				return
			}
			sig, err := ParseSignature(tc.src, tc.kernel, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := sig.String(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			for i, k := range tc.kinds {
				if sig.Params[i].Kind() != k {
					t.Errorf("param %d: kind %v, want %v", i, sig.Params[i].Kind(), k)
				}
			}
			// The canonical spelling reads back the same.
			again, err := ParseSignature(sig.String(), sig.Name, ParseOptions{TypeParams: tc.opts.TypeParams})
			if err != nil {
				t.Fatalf("reparsing %q: %v", sig.String(), err)
			}
			if again.String() != sig.String() || !again.Equal(sig) {
				t.Errorf("reparsed %s", again)
			}
		})
	}
}

func TestParseSignatureStruct(t *testing.T) {
	sig, err := ParseSignature(`extern "C" __global__ void k(struct Params p, const float *x) {}`, "k", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := sig.Params[0]; p.Type != Struct || p.StructName != "Params" || p.Kind() != StructParam {
		t.Errorf("param 0 = %+v", p)
	}
}

func TestParseSignatureErrors(t *testing.T) {
	tests := []struct {
		name, src, kernel string
		want              []string // substrings of the error
	}{
		{"reference", `__global__ void k(double &x) {}`, "k", []string{"kernel k", "parameter 0 (x)", "references"}},
		{"pointer to pointer", `__global__ void k(int n, double **x) {}`, "k", []string{"kernel k", "parameter 1 (x)", "pointers to pointers"}},
		{"array", `__global__ void k(double x[4]) {}`, "k", []string{"parameter 0", "array parameters"}},
		{"pointer to struct", `__global__ void k(Params *p) {}`, "k", []string{"parameter 0 (p)", "pointers to structs"}},
		{"pointer to bool", `__global__ void k(bool *p) {}`, "k", []string{"parameter 0 (p)", "pointer to bool"}},
		{"plain char", `__global__ void k(char c) {}`, "k", []string{"parameter 0 (c)", "plain char"}},
		{"non-type template", `template <int N> __global__ void k(float *x) {}`, "k", []string{"kernel k", "only type parameters"}},
		{"not void", `__global__ int k(float *x) {}`, "k", []string{"return void"}},
		{"overload", `__global__ void k(float *x) {} __global__ void k(double *x) {}`, "k", []string{"kernel k", "declared twice"}},
		{"missing", `__global__ void a(float *x) {}`, "b", []string{"kernel b", "it has a"}},
		{"unterminated", `__global__ void k(float *x`, "k", []string{"kernel k", "unterminated"}},
		{"restrict on scalar", `__global__ void k(int __restrict__ n) {}`, "k", []string{"parameter 0", "__restrict__"}},
		{"duplicate name", `__global__ void k(int n, float n) {}`, "k", []string{"parameter 1 (n)", "duplicate"}},
		{"default arg", `__global__ void k(int n = 3) {}`, "k", []string{"parameter 0", "default arguments"}},
		{"unsupported type", `__global__ void k(long double x) {}`, "k", []string{"parameter 0 (x)", "unsupported type"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSignature(tc.src, tc.kernel, ParseOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("%T, want *ParseError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "kernels: ") {
				t.Errorf("error %q does not start with the package name", err)
			}
		})
	}
}

func TestSignatureDiff(t *testing.T) {
	a, _ := ParseSignature(`extern "C" __global__ void k(const double *x, double *y, int n) {}`, "k", ParseOptions{})
	b, err := ParseHostSignature(`void k(const double *in, double *__restrict__ out, int32_t count)`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := a.Diff(b); d != "" {
		t.Errorf("Diff = %q, want none", d)
	}
	c, err := ParseHostSignature(`void k(double *x, double *y, int n)`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := a.Diff(c); !strings.Contains(d, "parameter 0 (x)") {
		t.Errorf("Diff = %q, want parameter 0 (x)", d)
	}
}

func FuzzParseSignatures(f *testing.F) {
	for _, s := range []string{
		`extern "C" __global__ void axpy(const double* x, double* y, int n, Params p) {}`,
		`template <typename T> __global__ void k(T *x) {}`,
		"extern \"C\" { __global__ void a(unsigned long long n); }",
		`__global__ void __launch_bounds__(128, 2) k(int8_t a, const float *__restrict__ b)`,
		"#define X \\\n __global__ void\n/* __global__ */ // __global__\n",
		`__global__ void k(`, `template <`, `__global__`, `extern "C`, `__global__ void k(double &x, int[3])`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		sigs, err := ParseSignatures(src, ParseOptions{TypeParams: []string{"T"}})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "kernels: ") {
				t.Errorf("error %q does not start with the package name", err)
			}
			return
		}
		for _, s := range sigs {
			again, err := ParseSignature(s.String(), s.Name, ParseOptions{TypeParams: []string{"T"}})
			if err != nil {
				t.Fatalf("%q parsed as %q, which does not parse: %v", src, s.String(), err)
			}
			if again.String() != s.String() {
				t.Fatalf("%q parsed as %q, which reads back as %q", src, s.String(), again.String())
			}
		}
	})
}
