package profiling

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestNVTXCandidates(t *testing.T) {
	t.Setenv("CUDA_HOME", "/opt/cuda")
	t.Setenv("CUDA_PATH", "/opt/cuda")
	got := nvtxCandidates()
	want := append(slices.Clone(nvtxLibraryNames),
		filepath.Join("/opt/cuda/lib64", nvtxLibraryNames[0]), filepath.Join("/opt/cuda/lib64", nvtxLibraryNames[1]),
		filepath.Join("/opt/cuda/lib64", nvtxLibraryNames[2]), filepath.Join("/opt/cuda/lib64", nvtxLibraryNames[3]),
		"/usr/local/cuda/lib64/libnvToolsExt.so.1", "/usr/local/cuda/lib64/libnvtx3interop.so.1",
		"/usr/local/cuda/lib64/libnvToolsExt.so", "/usr/local/cuda/lib64/libnvtx3interop.so")
	if !slices.Equal(got, want) {
		t.Errorf("candidates\n got %q\nwant %q", got, want)
	}
}

func TestRangesWithOrWithoutNVTX(t *testing.T) {
	// Whatever this machine has, ranges work and balance.
	t.Logf("NVTX library: %q", NVTXLibrary())
	end := Range("outer")
	PushRange("pushed")
	Range("inner")()
	PopRange()
	end()
	r := Timed("timed", nil, func() {})
	if r.Name != "timed" {
		t.Error(r)
	}
}

func TestOpenNVTXMissing(t *testing.T) {
	if l := openNVTX("/nonexistent/libnvToolsExt.so.1"); l != nil {
		t.Error("opened a missing library")
	}
}
