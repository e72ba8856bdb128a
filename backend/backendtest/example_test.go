package backendtest_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend/backendtest"
	"github.com/xpmpi/xpmpi/backend/cpu"
)

// A backend's own test file runs the whole suite with one call. (This
// example is compiled but not run: it needs the *testing.T of a test.)
func ExampleTestBackend() {
	_ = func(t *testing.T) {
		backendtest.TestBackend(t, cpu.Default)
	}
}
