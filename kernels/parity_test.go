package kernels_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

// TestCatalogParity compares the host implementation of every kernel of
// the catalog with its CUDA source, for every parity case and every
// variant: on the GPU where there is one, else on the fake CUDA driver
// (one build with every variant compiled in, this test run again in a
// child process on it). It skips, saying there is nothing to compare,
// where neither runs (-short).
func TestCatalogParity(t *testing.T) {
	all := kernels.All()
	if len(all) < 3 {
		t.Errorf("the catalog has %d kernels", len(all))
	}
	kerneltest.Parity(t, all...)
}
