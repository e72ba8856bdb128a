package optimize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// TestFuseFuncPanicOrder: with both reserved names given, the panic names
// the first by name, every time (a map's order would name one at random).
func TestFuseFuncPanicOrder(t *testing.T) {
	x := fuse.Var[float64]("x")
	for i := 0; i < 30; i++ {
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			FuseFunc(fuse.Mul(x, x), fuse.Args{"x": nil, "out": nil, "c": nil})
			return ""
		}()
		if !strings.Contains(msg, `"out"`) {
			t.Fatalf("try %d: panic %q, want one naming \"out\"", i, msg)
		}
	}
}
