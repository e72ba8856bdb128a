//go:build !amd64 || noasm || gccgo || safe

package fuse

// dotF64 returns the sum of a[i]*b[i] over one chunk: where gonum has no
// assembly, the Go loop with the same order of additions.
func dotF64(a, b []float64) float64 { return dotFK(a, b) }

// axpyF64 sets d = y + s*x: the Go loop where gonum has no assembly.
func axpyF64(d []float64, s float64, x, y []float64) { axpyK(d, s, x, y) }
