package cpu

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/sysmem"
)

func TestAllocTooLarge(t *testing.T) {
	for _, n := range []int{maxAlloc/8 + 1, int(^uint(0) >> 1)} {
		if _, err := Default.Alloc(backend.Float64, n); err == nil || !strings.Contains(err.Error(), "cannot allocate") {
			t.Errorf("Alloc(float64, %d) = %v, want a cannot-allocate error", n, err)
		}
	}
}

// An allocation past the node's available memory is an error, not Go's
// fatal out-of-memory crash.
func TestAllocPastAvailableMemory(t *testing.T) {
	avail, err := sysmem.Available()
	if err != nil {
		t.Skip("no memory information:", err)
	}
	want := avail.Bytes + 1<<30
	if want >= maxAlloc {
		t.Skipf("%v available: an allocation past it is past maxAlloc too", avail)
	}
	_, err = Default.Alloc(backend.Float64, int(want/8))
	if err == nil || !strings.Contains(err.Error(), "this node has") || !strings.Contains(err.Error(), avail.Source) {
		t.Fatalf("Alloc of %s with %v available = %v, want an error giving both", sysmem.Bytes(want), avail, err)
	}
}
