//go:build cgo

package profiling

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A stand-in for libnvToolsExt: push returns the nesting depth plus 1000
// times the number of started ranges not yet ended.
const fakeNVTX = `
#include <stdint.h>
static int depth, open;
static uint64_t next = 7;
int nvtxRangePushA(const char *m) { (void)m; return depth++ + 1000 * open; }
int nvtxRangePop(void) { return --depth; }
#ifdef WITH_START
uint64_t nvtxRangeStartA(const char *m) { (void)m; open++; return next++; }
void nvtxRangeEnd(uint64_t id) { if (id == next - 1) open--; else open += 100; }
#endif
`

const fakeNoPush = `int nvtxRangePop(void) { return 0; }`

// buildFake compiles a shared library from C source, or skips the test.
func buildFake(t *testing.T, name, src string, defs ...string) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s) to build a fake NVTX library", cc)
	}
	dir := t.TempDir()
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, name+".so")
	args := append([]string{"-shared", "-fPIC", "-o", lib, c}, defs...)
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
	}
	return lib
}

func TestNVTXFakeLibrary(t *testing.T) {
	l := openNVTX(buildFake(t, "nvtx_start", fakeNVTX, "-DWITH_START"))
	if l == nil || !l.hasStartEnd() {
		t.Fatalf("open: %v", l)
	}
	if got := l.push("a"); got != 0 {
		t.Errorf("push = %d, want depth 0", got)
	}
	if got := l.push("b"); got != 1 {
		t.Errorf("push = %d, want depth 1", got)
	}
	l.pop()
	l.pop()
	// Range uses start/end: the id comes back to end.
	end := rangeOn(l, "r")
	if got := l.push("x"); got != 1000 {
		t.Errorf("push inside a range = %d, want 1000 (one open range)", got)
	}
	l.pop()
	end()
	if got := l.push("x"); got != 0 {
		t.Errorf("push after the range = %d, want 0 (ended with its id)", got)
	}
	l.pop()

	// pushOn/popOn balance.
	pushOn(l, "p")
	if got := l.push("q"); got != 1 {
		t.Errorf("push inside PushRange = %d", got)
	}
	l.pop()
	popOn(l)
	if got := l.push("q"); got != 0 {
		t.Errorf("push after PopRange = %d", got)
	}
	l.pop()
}

func TestNVTXFakeLibraryWithoutStart(t *testing.T) {
	l := openNVTX(buildFake(t, "nvtx_push", fakeNVTX))
	if l == nil || l.hasStartEnd() {
		t.Fatalf("open: %v", l)
	}
	end := rangeOn(l, "r") // falls back to push/pop
	if got := l.push("x"); got != 1 {
		t.Errorf("push inside a range = %d, want depth 1", got)
	}
	l.pop()
	end()
	if got := l.push("x"); got != 0 {
		t.Errorf("push after the range = %d, want 0", got)
	}
	l.pop()
}

func TestNVTXFakeLibraryWithoutPush(t *testing.T) {
	if l := openNVTX(buildFake(t, "nvtx_nopush", fakeNoPush)); l != nil {
		t.Error("opened a library without nvtxRangePushA")
	}
}
