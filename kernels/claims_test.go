package kernels_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
)

// TestDocClaims extracts from the documentation (docs/*.md but the
// performance log, which records what was true then, README.md, and the
// Go doc comments of the packages named below) the claims that a fact of
// the code decides, and fails on a claim the code contradicts:
//
//   - the MPI thread level package mpi asks for: mpi/threadlevel.go's
//     defaultThreadLevel; a text that says mpi starts, initializes or asks
//     for MPI at another level must name XPMPI_THREAD_LEVEL in the same
//     paragraph (the variable that asks for it);
//   - whether CUDA sources can include headers: package kernels ships
//     headers (kernels.Headers) that its kernels include, so no text may
//     say that a source, kernel or Spec.CUDA "can include no header" or
//     "may include no header";
//   - whether fuse has a CUDA launcher: kernels/fuse/fusecuda registers
//     one in its init (fuse.SetCUDALauncher), so no text may say that
//     kernels/fuse ships none or has no CUDA launcher without naming
//     fusecuda in the same paragraph.
func TestDocClaims(t *testing.T) {
	root := ".."
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The facts, from the code.
	m := regexp.MustCompile(`const defaultThreadLevel = "(\w+)"`).FindStringSubmatch(read("mpi/threadlevel.go"))
	if m == nil {
		t.Fatal("mpi/threadlevel.go: no defaultThreadLevel constant")
	}
	level := "MPI_THREAD_" + strings.ToUpper(m[1])
	if len(kernels.Headers()) == 0 {
		t.Fatal("kernels ships no headers: the header claim's fact changed")
	}
	if !regexp.MustCompile(`func init\(\) \{\s*if fuse\.SetCUDALauncher\(`).MatchString(read("kernels/fuse/fusecuda/fusecuda.go")) {
		t.Fatal("kernels/fuse/fusecuda no longer registers its launcher in init: the fuse claim's fact changed")
	}

	// The texts: paragraphs of the docs, and Go comment blocks.
	var paras []para
	mds, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	mds = append(mds, filepath.Join(root, "README.md"))
	for _, f := range mds {
		if strings.HasSuffix(f, "PERFORMANCE-LOG.md") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range strings.Split(string(b), "\n\n") {
			paras = append(paras, para{file: f, n: i, text: p})
		}
	}
	for _, dir := range []string{"backend/cuda", "kernels", "kernels/fuse", "kernels/fuse/fusecuda", "kernels/kerneltest", "mpi", "cmd/xpmpi"} {
		gos, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		for _, f := range gos {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range commentBlocks(string(b)) {
				paras = append(paras, para{file: f, n: i, text: c})
			}
		}
	}
	if len(paras) < 100 {
		t.Fatalf("only %d paragraphs read", len(paras))
	}

	space := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	levelClaim := regexp.MustCompile("(?i)(package `?mpi`?|xpmpi|the binding)\\b[^.;]{0,60}?\\b(starts|initializes|asks for|requests|does|runs)\\b[^.;]{0,40}?`?(MPI_THREAD_[A-Z]+)`?")
	headerClaim := regexp.MustCompile(`(?i)(can|may) include no header`)
	fuseClaim := regexp.MustCompile("(?i)(`?kernels/fuse`? ships none|fuse (has|ships) no CUDA launcher|no CUDA launcher)")
	for _, p := range paras {
		text := space(p.text)
		for _, m := range levelClaim.FindAllStringSubmatch(text, -1) {
			if m[3] != level && !strings.Contains(text, "XPMPI_THREAD_LEVEL") && !strings.Contains(text, "PETSc asks") {
				t.Errorf("%s (paragraph %d): %q: package mpi asks for %s (XPMPI_THREAD_LEVEL unset)", p.file, p.n, m[0], level)
			}
		}
		if m := headerClaim.FindString(text); m != "" {
			t.Errorf("%s (paragraph %d): %q: package kernels ships headers that its kernels include (%s)", p.file, p.n, m, strings.Join(kernels.Headers(), ", "))
		}
		if m := fuseClaim.FindString(text); m != "" && !strings.Contains(text, "fusecuda") {
			t.Errorf("%s (paragraph %d): %q: kernels/fuse/fusecuda ships a CUDA launcher, registered when imported", p.file, p.n, m)
		}
	}
}

type para struct {
	file string
	n    int
	text string
}

// commentBlocks returns the runs of // comment lines of a Go file, each
// joined without the slashes.
func commentBlocks(src string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "//go:") {
			cur = append(cur, strings.TrimPrefix(l, "//"))
			continue
		}
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}
