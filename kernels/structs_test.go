package kernels_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

type inner struct {
	A float32
	B [3]int16
}

type params struct {
	Dt    float64
	N     int32
	Steps int64 // Go pads 4 bytes before it
	Flag  bool
	W     [2][3]float32
	In    inner `cuda:"in,Inner"`
	_     [3]byte
	Last  uint8
}

func TestStructLayout(t *testing.T) {
	st, err := kernels.StructOf[params]("Params")
	if err != nil {
		t.Fatal(err)
	}
	if st.Name() != "Params" || st.Size() != 72 || st.Align() != 8 {
		t.Errorf("Params: name %s size %d align %d, want Params 72 8", st.Name(), st.Size(), st.Align())
	}
	want := []struct {
		name   string
		offset int
	}{{"Dt", 0}, {"N", 8}, {"Steps", 16}, {"Flag", 24}, {"W", 28}, {"in", 52}, {"_", 64}, {"Last", 67}}
	fs := st.Fields()
	if len(fs) != len(want) {
		t.Fatalf("%d fields, want %d", len(fs), len(want))
	}
	for i, w := range want {
		if fs[i].Name != w.name || fs[i].Offset != w.offset {
			t.Errorf("field %d: %s at %d, want %s at %d", i, fs[i].Name, fs[i].Offset, w.name, w.offset)
		}
	}
	decl := st.Decl()
	for _, s := range []string{"typedef struct Inner {", "short B[3];", "typedef struct Params {", "unsigned char _pad0[4]; /* offset 12: padding */",
		"long long Steps; /* offset 16 */", "float W[2][3];", "Inner in; /* offset 52 */", "} Params;"} {
		if !strings.Contains(decl, s) {
			t.Errorf("Decl lacks %q:\n%s", s, decl)
		}
	}
	// The generated declaration reads back with Go's layout.
	if declared, err := st.CheckSource(decl); !declared || err != nil {
		t.Errorf("CheckSource(Decl) = %v, %v", declared, err)
	}
	if declared, err := st.CheckSource("struct Other { int x; };"); declared || err != nil {
		t.Errorf("CheckSource of a source without Params = %v, %v", declared, err)
	}
}

type small struct {
	X float64
	N int32
	M int32
}

func TestStructSourceMismatch(t *testing.T) {
	st := kernels.MustStructOf[small]("Small")
	tests := []struct {
		name, src string
		want      []string
	}{
		{"same", "struct Small { double X; int N; int32_t M; };", nil},
		{"typedef", "typedef struct { double X; int N; int M; } Small;", nil},
		{"unknown type", "struct Small { double X; Foo N; int M; };", []string{"struct Small", `unknown type "Foo"`}},
		{"type", "struct Small { double X; float N; int M; };", []string{"struct Small, field N", "C type float, Go type int (int32)"}},
		{"order", "struct Small { double X; int M; int N; };", []string{"field N", "has M here"}},
		{"offset", "struct Small { int X0; double X; int N; int M; };", []string{"field X", "has X0"}},
		{"size", "struct Small { double X; long long N; int M; };", []string{"field N", "C type long long, Go type int (int32)"}},
		{"missing", "struct Small { double X; int N; };", []string{"field M", "missing"}},
		{"extra", "struct Small { double X; int N; int M; int K; };", []string{"field K", "not in the Go type"}},
		{"trailing", "struct Small { double X; int N; int M; double pad; };", []string{"field pad"}},
		{"bitfield", "struct Small { double X; int N : 3; int M; };", []string{"member N", "bit fields"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			declared, err := st.CheckSource(tc.src)
			if tc.want == nil {
				if !declared || err != nil {
					t.Fatalf("CheckSource = %v, %v", declared, err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

type padded struct {
	A int32
	_ [4]byte
	B float64
}

type nested struct {
	P padded
	C float32
}

func TestStructOfRefuses(t *testing.T) {
	type withInt struct{ N int }
	type withPtr struct{ P *float64 }
	type withString struct{ S string }
	type lower struct{ n int32 }
	type empty struct{}
	type withEmpty struct {
		A int32
		E struct{}
	}
	type badNested struct {
		I struct{ X uintptr }
	}
	for _, tc := range []struct {
		name string
		f    func() error
		want string
	}{
		{"int", func() error { _, err := kernels.StructOf[withInt]("S"); return err }, "field N: int has no fixed size"},
		{"pointer", func() error { _, err := kernels.StructOf[withPtr]("S"); return err }, "field P"},
		{"string", func() error { _, err := kernels.StructOf[withString]("S"); return err }, "field S"},
		{"unexported", func() error { _, err := kernels.StructOf[lower]("S"); return err }, "field n: unexported"},
		{"empty", func() error { _, err := kernels.StructOf[empty]("S"); return err }, "no fields"},
		{"zero-size field", func() error { _, err := kernels.StructOf[withEmpty]("S"); return err }, "field E: size 0"},
		{"nested", func() error { _, err := kernels.StructOf[badNested]("S"); return err }, "field I"},
		{"not a struct", func() error { _, err := kernels.StructOf[float64]("S"); return err }, "not a struct"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "kernels: ") {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	// Blank fields and nesting are fine.
	st, err := kernels.StructOf[nested]("")
	if err != nil {
		t.Fatal(err)
	}
	if st.Name() != "nested" || st.Size() != 24 {
		t.Errorf("nested: %s, size %d", st.Name(), st.Size())
	}
	// A hand-written explicit padding member is padding.
	pd := kernels.MustStructOf[padded]("")
	if declared, err := pd.CheckSource("struct padded { int A; unsigned char _pad0[4]; double B; };"); !declared || err != nil {
		t.Errorf("explicit padding: %v, %v", declared, err)
	}
}

// TestStructLayoutNVRTC has NVRTC compile the layout assertions: the
// generated declaration passes, and a hand-written one that differs is an
// error naming the field.
func TestStructLayoutNVRTC(t *testing.T) {
	kerneltest.NeedNVRTC(t)
	st := kernels.MustStructOf[params]("Params")
	if err := st.CheckLayout(""); err != nil {
		t.Fatalf("the generated declaration: %v", err)
	}
	sm := kernels.MustStructOf[small]("Small")
	if err := sm.CheckLayout("struct Small { double X; int N; int M; };"); err != nil {
		t.Errorf("a matching declaration: %v", err)
	}
	err := sm.CheckLayout("struct Small { double X; long long N; int M; };")
	if err == nil || !strings.Contains(err.Error(), "struct Small, field N") {
		t.Errorf("a mismatched declaration: %v, want an error naming field N", err)
	}
	var no *kernels.NoNVRTCError
	if errors.As(err, &no) {
		t.Errorf("error %v is NoNVRTCError", err)
	}
}

// FuzzCheckSource: reading C struct declarations never panics, and an
// error names the package.
func FuzzCheckSource(f *testing.F) {
	for _, s := range []string{
		"struct Small { double X; int N; int M; };",
		"typedef struct { double X; int N : 3; } Small;",
		"struct Small { double X[2][3]; struct Inner in; };",
		"struct Small {", "typedef struct", "struct Small { int N[; };", "struct Small { unsigned long long int x, y[4]; };",
	} {
		f.Add(s)
	}
	st := kernels.MustStructOf[small]("Small")
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := st.CheckSource(src); err != nil && !strings.HasPrefix(err.Error(), "kernels: ") {
			t.Errorf("error %q does not start with the package name", err)
		}
	})
}
