package fuse_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/kernels/fuse"
)

// TestSmallIntsRefused checks that expressions over the 8- and 16-bit
// integers, for which fused kernels have no steps, fail to compile with an
// error that names the type, rather than running the wrong steps.
func TestSmallIntsRefused(t *testing.T) {
	x := fuse.Var[float64]("x")
	for _, tc := range []struct {
		name string
		e    *fuse.Expr
		typ  string
	}{
		{"Var", fuse.Out("y", fuse.Var[int8]("a")), "int8"},
		{"Param", fuse.Out("y", fuse.Mul(fuse.Param[uint16]("s"), fuse.Var[uint16]("a"))), "uint16"},
		{"Const", fuse.Out("y", fuse.Add(fuse.Var[int16]("a"), fuse.Const[int16](1))), "int16"},
		{"Cast", fuse.Out("y", fuse.Cast[uint8](x)), "uint8"},
	} {
		_, err := fuse.Compile(tc.e)
		if err == nil || !strings.Contains(err.Error(), tc.typ) {
			t.Errorf("%s: Compile error %v, want one naming %s", tc.name, err, tc.typ)
		}
	}
	if _, err := fuse.Compile(fuse.Out("y", fuse.Cast[int32](x))); err != nil {
		t.Errorf("Cast to int32: %v", err)
	}
}
