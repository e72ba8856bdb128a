package fakecudatest

import (
	"slices"
	"strings"
	"testing"
)

func TestDepFiles(t *testing.T) {
	for _, c := range []struct {
		rule string
		want []string
	}{
		{"x: a.cpp b.h\n", []string{"a.cpp", "b.h"}},
		{"x: /d/a.cpp \\\n /usr/include/c++/12/cmath \\\n  /d/my\\ dir/k.cu\n", []string{"/d/a.cpp", "/usr/include/c++/12/cmath", "/d/my dir/k.cu"}},
		{"x:\n", nil},
	} {
		if got := depFiles(c.rule); !slices.Equal(got, c.want) {
			t.Errorf("depFiles(%q) = %q, want %q", c.rule, got, c.want)
		}
	}
}

func TestTranslationUnit(t *testing.T) {
	tu := TranslationUnit(
		Source{Code: "void a() {}", Entries: []Entry{{Name: "a"}}},
		Source{Code: "void b() {}", Scope: "ns_b", Entries: []Entry{{Name: "b", Syncs: true}, {Name: "c"}}},
	)
	for _, want := range []string{Shims, "void a() {}\nXP_REGISTER(a, 0)\n",
		"namespace ns_b {\nvoid b() {}\nXP_REGISTER(b, 1)\nXP_REGISTER(c, 0)\n} // namespace ns_b\n"} {
		if !strings.Contains(tu, want) {
			t.Errorf("the translation unit has no %q:\n%s", want, tu)
		}
	}
	for name, srcs := range map[string][]Source{
		"entry given twice":  {{Entries: []Entry{{Name: "a"}}}, {Entries: []Entry{{Name: "a"}}}},
		"not a C identifier": {{Entries: []Entry{{Name: "a-b"}}}},
		"scope":              {{Scope: "1x"}},
	} {
		func() {
			defer func() {
				r, _ := recover().(string)
				if !strings.HasPrefix(r, "fakecudatest: ") || !strings.Contains(r, strings.Fields(name)[0]) {
					t.Errorf("%s: panic %q", name, r)
				}
			}()
			TranslationUnit(srcs...)
		}()
	}
}
