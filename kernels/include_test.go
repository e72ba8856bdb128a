package kernels_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
)

// An #include of anything but a shipped header is refused by New, naming
// the line, the file and the headers that may be included.
func TestIncludeOnlyShippedHeaders(t *testing.T) {
	for _, inc := range []string{"#include <stdio.h>", `#include "mine.h"`, "  #  include <cuda_fp16.h>"} {
		_, err := kernels.New(kernels.Spec{Name: "k", CUDA: "// a kernel\n" + inc + "\nextern \"C\" __global__ void k(float *x) {}"})
		if err == nil || !strings.Contains(err.Error(), "kernels: k (line 2): #include") || !strings.Contains(err.Error(), "xpmpi/reduce.cuh") ||
			!strings.Contains(err.Error(), "only the shipped headers") {
			t.Errorf("%s: %v, want a refusal naming the shipped headers", inc, err)
		}
	}
	if _, err := kernels.New(kernels.Spec{Name: "k", CUDA: "#include \"xpmpi/reduce.cuh\"\nextern \"C\" __global__ void k(float *x) {}"}); err != nil {
		t.Errorf("a shipped header: %v", err)
	}
}
