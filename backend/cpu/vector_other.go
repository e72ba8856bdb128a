//go:build !amd64 || purego

package cpu

// hasAVX2 is false off amd64 (and with the purego tag): the Go loops run.
const hasAVX2 = false

// The kernels of vector_amd64.s do nothing here; useVector is never true.

func jacobiRowAVX2(out, up, down, left, right *float64, n int) int       { return 0 }
func laplaceRowAVX2(out, mid, up, down, left, right *float64, n int) int { return 0 }
func axpyAVX2(a float64, x, y *float64, n int) int                       { return 0 }
func axpbyAVX2(a float64, x *float64, b float64, y *float64, n int) int  { return 0 }
