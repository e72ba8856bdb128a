package all_test

import (
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/all"
)

func TestRegistersEveryBackend(t *testing.T) {
	names := backend.Names()
	for _, name := range []string{"cpu", "cuda"} {
		if !slices.Contains(names, name) {
			t.Errorf("backend %q is not registered by backend/all: %v", name, names)
		}
	}
}
