package kernels_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
)

// TestCatalogParity runs the parity cases of every kernel of the catalog
// on the host and on the device (a GPU where there is one, else the fake
// device).
func TestCatalogParity(t *testing.T) {
	all := kernels.All()
	if len(all) < 3 {
		t.Errorf("the catalog has %d kernels", len(all))
	}
	for _, k := range all {
		t.Run(k.Name(), func(t *testing.T) { kerneltest.Parity(t, k) })
	}
}
