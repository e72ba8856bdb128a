package cpufeat

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestAgreesWithProcCPUInfo checks the flags against the kernel's
// /proc/cpuinfo, where there is one: avx2 and avx512f among the flags of
// the first processor (the kernel lists a feature only where the
// operating system enables its registers).
func TestAgreesWithProcCPUInfo(t *testing.T) {
	if !detects {
		if AVX2 || AVX512 {
			t.Fatalf("AVX2, AVX512 = %v, %v without detection", AVX2, AVX512)
		}
		t.Skip("no detection in this build (purego or not amd64)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("/proc/cpuinfo's flags are for linux/amd64")
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	var flags map[string]bool
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			flags = map[string]bool{}
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
			break
		}
	}
	if flags == nil {
		t.Skip("no flags line in /proc/cpuinfo")
	}
	if AVX2 != flags["avx2"] {
		t.Errorf("AVX2 = %v, /proc/cpuinfo's avx2: %v", AVX2, flags["avx2"])
	}
	if AVX512 != (flags["avx2"] && flags["avx512f"]) {
		t.Errorf("AVX512 = %v, /proc/cpuinfo's avx2 and avx512f: %v, %v", AVX512, flags["avx2"], flags["avx512f"])
	}
}
