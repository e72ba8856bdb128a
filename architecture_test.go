package xpmpi

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitecture checks docs/ARCHITECTURE.md's package table against
// go list: every package of the module has a row, and each row's imports
// are the module's packages that the package imports (non-test files, in
// the default build and with -tags mpi,petsc,hdf5).
func TestArchitecture(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: it lists the packages and their imports")
	}
	have := map[string][]string{}
	for _, tags := range []string{"", "mpi,petsc,hdf5"} {
		args := []string{"list", "-f", "{{.ImportPath}}:{{range .Imports}} {{.}}{{end}}"}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		out, err := exec.Command(goBin, append(args, "./...")...).Output()
		if err != nil {
			t.Fatalf("go %s: %v", strings.Join(args, " "), err)
		}
		for line := range strings.Lines(string(out)) {
			pkg, imports, _ := strings.Cut(strings.TrimSpace(line), ":")
			pkg = short(pkg)
			have[pkg] = append(have[pkg], []string{}...)
			for _, imp := range strings.Fields(imports) {
				if s := short(imp); s != imp && !slices.Contains(have[pkg], s) {
					have[pkg] = append(have[pkg], s)
				}
			}
		}
	}

	doc := readTable(t, "docs/ARCHITECTURE.md")
	for pkg, imports := range have {
		documented, ok := doc[pkg]
		if !ok {
			t.Errorf("docs/ARCHITECTURE.md has no row for package %s (it imports %v)", pkg, sorted(imports))
			continue
		}
		if !slices.Equal(sorted(imports), sorted(documented)) {
			t.Errorf("docs/ARCHITECTURE.md: %s imports %v, go list says %v", pkg, sorted(documented), sorted(imports))
		}
	}
	for pkg := range doc {
		if _, ok := have[pkg]; !ok {
			t.Errorf("docs/ARCHITECTURE.md has a row for %s, which go list does not list", pkg)
		}
	}
}

// short returns an import path of the module relative to the module
// ("dist", "(root)"), and any other path as it is.
func short(path string) string {
	if path == modulePath {
		return "(root)"
	}
	if rest, ok := strings.CutPrefix(path, modulePath+"/"); ok {
		return rest
	}
	return path
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

var (
	tableRow = regexp.MustCompile("^\\| `([^`]+)` \\|.*\\|(.*)\\|$")
	codeSpan = regexp.MustCompile("`([^`]+)`")
)

// readTable returns the package table of the page at path: each package
// with the packages of its third column.
func readTable(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc := map[string][]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages"
		case in:
			m := tableRow.FindStringSubmatch(line)
			if m == nil || m[1] == "package" {
				continue
			}
			imports := []string{}
			for _, c := range codeSpan.FindAllStringSubmatch(m[2], -1) {
				imports = append(imports, c[1])
			}
			if _, dup := doc[m[1]]; dup {
				t.Errorf("%s: two rows for %s", path, m[1])
			}
			doc[m[1]] = imports
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(doc) == 0 {
		t.Fatalf("%s: no package table under \"## Packages\"", path)
	}
	return doc
}

// TestLayerEdges checks the edges the layers forbid, through every import
// (go list -deps, default build and -tags mpi,petsc,hdf5): the MPI binding
// does not depend on package backend, and no library package depends on a
// backend implementation (a program registers the backends it uses by
// importing backend/cpu or backend/all, docs/DECISIONS.md).
func TestLayerEdges(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: it lists the packages' dependencies")
	}
	const mod = "github.com/xpmpi/xpmpi/"
	forbidden := map[string][]string{
		"mpi":          {"backend", "backend/cpu", "backend/cuda"},
		"dist":         {"backend/cpu", "backend/cuda"},
		"fft":          {"backend/cpu", "backend/cuda"},
		"linalg":       {"backend/cpu", "backend/cuda"},
		"solvers/cg":   {"backend/cpu", "backend/cuda"},
		"solvers/heat": {"backend/cpu", "backend/cuda"},
		"staging":      {"backend/cpu", "backend/cuda"},
	}
	for _, tags := range []string{"", "mpi,petsc,hdf5"} {
		for pkg, bad := range forbidden {
			args := []string{"list", "-deps"}
			if tags != "" {
				args = append(args, "-tags", tags)
			}
			out, err := exec.Command(goBin, append(args, "./"+pkg)...).Output()
			if err != nil {
				t.Fatalf("go %s ./%s: %v", strings.Join(args, " "), pkg, err)
			}
			deps := strings.Fields(string(out))
			for _, b := range bad {
				if slices.Contains(deps, mod+b) {
					t.Errorf("%s depends on %s (tags %q): that edge is not in the layers (docs/ARCHITECTURE.md)", pkg, b, tags)
				}
			}
		}
	}
}
