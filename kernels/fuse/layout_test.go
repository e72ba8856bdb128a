package fuse

import (
	"math"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu"
)

// TestArenaReuse checks that a long chain of operations uses few chunk
// buffers, and still computes what the chain says, casts between sizes
// included.
func TestArenaReuse(t *testing.T) {
	x := Var[float64]("x")
	e := x
	for i := 0; i < 20; i++ {
		e = Add(Mul(e, Const(0.5)), Sqrt(Abs(e)))
		e = Cast[float64](Cast[float32](e))
	}
	k := MustCompile(Out("y", e))
	if blocks := k.arena / ChunkLen; blocks > 4 {
		t.Errorf("%d chunk buffers for a chain", blocks)
	}
	n := 1500
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = float64(i) - 700.25
	}
	if _, err := k.Run(Args{"x": backend.Wrap(xs), "y": backend.Wrap(ys)}); err != nil {
		t.Fatal(err)
	}
	for i, v := range xs {
		for range 20 {
			v = float64(v*0.5) + math.Sqrt(math.Abs(v)) // float64(): no fused multiply-add
			v = float64(float32(v))
		}
		if ys[i] != v {
			t.Fatalf("y[%d] = %v, want %v", i, ys[i], v)
		}
	}
}
