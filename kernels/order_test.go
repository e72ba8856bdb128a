package kernels_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// TestDefineErrorOrder: of several bad defines, New and Launch name the
// first by name, every time (a map's order would name one at random, and a
// different one on each rank).
func TestDefineErrorOrder(t *testing.T) {
	bad := map[string]string{"C-3": "1", "A-1": "1", "B-2": "1", "OK": "1"}
	for i := 0; i < 30; i++ {
		_, err := kernels.New(kernels.Spec{
			Name:    "fill",
			CUDA:    `extern "C" __global__ void fill(float *x, long long n) {}`,
			Defines: bad,
		})
		if err == nil || !strings.Contains(err.Error(), "define A-1=") {
			t.Fatalf("New, try %d: %v, want an error naming A-1", i, err)
		}
	}
	k := kernels.MustNew(kernels.Spec{
		Name: "fill",
		CUDA: `extern "C" __global__ void fill(float *x, long long n) {}`,
		Host: func(c *kernels.HostCall) error { return nil },
	})
	x := backend.Wrap([]float32{0, 0})
	for i := 0; i < 30; i++ {
		err := k.Launch(kernels.Config{Defines: bad}, kernels.Array(x), kernels.Int(2))
		if err == nil || !strings.Contains(err.Error(), "define A-1=") {
			t.Fatalf("Launch, try %d: %v, want an error naming A-1", i, err)
		}
	}
}
