package tests

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The README's example program, which the tests build and run so that the
// README and the API cannot drift apart.
const readmeSection = "## Using `dist` in your own program"

// readmeExample returns the Go block under readmeSection and the sum its
// comment promises ("// 64000 on any number of ranks").
func readmeExample(t *testing.T) (src, sum string) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+readmeSection+"\n")
	if i < 0 {
		t.Fatalf("README.md has no section %q", readmeSection)
	}
	s = s[i+len(readmeSection)+2:]
	if next := strings.Index(s, "\n## "); next >= 0 {
		s = s[:next]
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)\n```").FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("README.md: no ```go block under %q", readmeSection)
	}
	want := regexp.MustCompile(`fmt\.Println\("sum:", sum\) // (\S+) on any number of ranks`).FindStringSubmatch(m[1])
	if want == nil {
		t.Fatalf("README.md: the example does not say what it prints (// N on any number of ranks):\n%s", m[1])
	}
	return m[1] + "\n", want[1]
}

// goTool returns the go command that runs this test, or skips.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skip("no go command to build with")
	}
	return p
}

// buildReadmeExample writes the README's example into a module of its own
// that requires this repository through a replace directive, builds it
// with the build tags given, and returns the program and the sum it should
// print.
func buildReadmeExample(t *testing.T, tags string) (prog, sum string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: building the README's example takes a while")
	}
	goCmd := goTool(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).FindString(string(mod))
	src, sum := readmeExample(t)
	dir := t.TempDir()
	gomod := "module example.com/readme\n\n" + goLine + "\n\nrequire github.com/xpmpi/xpmpi v0.0.0\n\nreplace github.com/xpmpi/xpmpi => " + root + "\n"
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sums, "main.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prog = filepath.Join(dir, "prog")
	args := []string{"build", "-o", prog}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, append(args, ".")...)
	cmd.Dir = dir
	// -mod=mod lets go complete go.sum from the module cache or proxy.
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("building the README's example (tags %q) in %s: %v\n%s\ngo.mod:\n%s\nmain.go:\n%s", tags, dir, err, out, gomod, src)
	}
	return prog, sum
}

// TestReadmeExample builds the README's example in the default build and
// runs it on one rank: it prints the sum its comment promises, alone.
func TestReadmeExample(t *testing.T) {
	t.Parallel() // see doc.go
	prog, sum := buildReadmeExample(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's example: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if got, want := stdout.String(), "sum: "+sum+"\n"; got != want {
		t.Errorf("the README's example printed %q, its comment promises %q (stderr: %q)", got, want, stderr.String())
	}
}
