//go:build !mpi

package cuda_test

import (
	"debug/elf"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestOnlyLibc checks that the test binary, which holds the whole backend,
// needs no library but libc: the driver and NVRTC are loaded at run time.
// (Built with -tags mpi, it also needs libmpi, hence the build constraint.)
func TestOnlyLibc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ELF check on linux only")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range libs {
		if l != "libc.so.6" && !strings.HasPrefix(l, "ld-linux") {
			t.Errorf("the binary needs %s (needs: %v); only libc is allowed", l, libs)
		}
	}
	t.Logf("needs %v", libs)
}
