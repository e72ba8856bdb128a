package zarr_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/zarr"
)

// TestAttributesPanicOrder: of several bad attributes, the panic names the
// first by name, every time (a map's order would name one at random, and a
// different one on each rank).
func TestAttributesPanicOrder(t *testing.T) {
	for i := 0; i < 30; i++ {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			zarr.Attributes(map[string]any{"c": struct{}{}, "a": struct{}{}, "b": struct{}{}, "ok": 1})
			return ""
		}()
		if !strings.Contains(msg, `attribute "a"`) {
			t.Fatalf("try %d: panic %q, want one naming attribute \"a\"", i, msg)
		}
	}
}
