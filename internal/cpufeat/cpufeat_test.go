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

// TestVendor checks AMD against /proc/cpuinfo's vendor_id.
func TestVendor(t *testing.T) {
	if !detects {
		if AMD {
			t.Fatal("AMD without detection")
		}
		t.Skip("no detection in this build (purego or not amd64)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("/proc/cpuinfo is linux's")
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "vendor_id" {
			if want := strings.TrimSpace(v) == "AuthenticAMD"; AMD != want {
				t.Errorf("AMD = %v, /proc/cpuinfo's vendor_id %q", AMD, strings.TrimSpace(v))
			}
			if got := vendor(); got != strings.TrimSpace(v) {
				t.Errorf("vendor() = %q, /proc/cpuinfo's vendor_id %q", got, strings.TrimSpace(v))
			}
			return
		}
	}
	t.Skip("no vendor_id line in /proc/cpuinfo")
}

// TestSetting512: XPMPI_CPU_AVX512's values, and the streaming kernels'
// default by vendor.
func TestSetting512(t *testing.T) {
	for _, c := range []struct {
		env       string
		def, want bool
	}{
		{"", true, true}, {"", false, false},
		{"on", false, true}, {"on", true, true},
		{"off", true, false}, {"off", false, false},
		{"maybe", false, false}, {"maybe", true, true},
	} {
		if got := Setting512(c.env, c.def); got != c.want {
			t.Errorf("Setting512(%q, %v) = %v, want %v", c.env, c.def, got, c.want)
		}
	}
	if want := AVX512 && Setting512(os.Getenv("XPMPI_CPU_AVX512"), !AMD); StreamAVX512 != want {
		t.Errorf("StreamAVX512 = %v with AVX512 %v, AMD %v, XPMPI_CPU_AVX512=%q", StreamAVX512, AVX512, AMD, os.Getenv("XPMPI_CPU_AVX512"))
	}
}
