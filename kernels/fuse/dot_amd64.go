//go:build amd64 && !noasm && !gccgo && !safe

package fuse

import "gonum.org/v1/gonum/floats"

// dotF64 returns the sum of a[i]*b[i] over one chunk with gonum's SSE2
// assembly (f64.DotUnitary), which adds in the order of dotFK: measured
// about twice as fast as the Go loop on this machine's L3-resident
// vectors.
func dotF64(a, b []float64) float64 { return floats.Dot(a, b[:len(a)]) }

// axpyF64 sets d = y + s*x with gonum's SSE2 assembly (f64.AxpyUnitaryTo:
// each product rounded, then the sum, as axpyK; every element's operands
// are read before it is written, so d may be x or y).
func axpyF64(d []float64, s float64, x, y []float64) {
	floats.AddScaledTo(d, y[:len(d)], s, x[:len(d)])
}
