package integrate

import (
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
)

// benchOsc runs oscProblem's damped oscillators (without the failing
// systems) with the host batches and the device batch.
func benchOsc(b *testing.B, n int, run string, be backend.Backend) {
	y0, a, bb, c := oscProblem(n, 0)
	for s := range c {
		c[s] = 0
		if s%23 == 11 || s%23 == 17 {
			a[s], bb[s], y0[2*s+1] = 2, 0.5, 1
		}
	}
	opts := &IVPOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-9}
	t := &testing.T{}
	hf, df, free := oscFuncs(t, be, a, bb, c)
	defer free()
	idx := func(idx []int, tv, y, dy []float64) {
		for k, s := range idx {
			oscHost(a[s], bb[s], c[s], y[2*k:2*k+2], dy[2*k:2*k+2])
		}
	}
	y0d := onDevice(t, y0, be)
	defer y0d.Free()
	for b.Loop() {
		var err error
		switch run {
		case "batch":
			_, err = SolveIVPBatch(hf, n, 2, 0, 10, y0, opts)
		case "indexed":
			_, err = SolveIVPIndexed(idx, n, 2, 0, 10, y0, opts)
		default:
			var r *ArrayBatchResult
			r, err = SolveIVPBatchArray(df, n, 2, 0, 10, y0d, opts)
			r.Free()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOscBatch10000(b *testing.B)          { benchOsc(b, 10000, "batch", backend.Current()) }
func BenchmarkOscIndexed10000(b *testing.B)        { benchOsc(b, 10000, "indexed", backend.Current()) }
func BenchmarkOscBatchArray10000(b *testing.B)     { benchOsc(b, 10000, "array", backend.Current()) }
func BenchmarkOscBatchArrayFake10000(b *testing.B) { benchOsc(b, 10000, "array", fakedev.Default) }
