//go:build !amd64 || purego

// Package fvec holds package kernels/fuse's AVX2 and AVX-512 chunk kernels (see
// fvec_amd64.go). Off amd64, and with the purego tag, there are none:
// HasAVX2 is false and the kernels, never called, do nothing.
package fvec

// HasAVX2 is false here: package fuse's Go loops run.
const HasAVX2 = false

// HasAVX512 is false here.
const HasAVX512 = false

func DotAVX2(a, b *float64, n int) (sum float64, done int)                            { return 0, 0 }
func AxpyToAVX2(d *float64, s float64, x, y *float64, n int) int                      { return 0 }
func AxpyDotAVX2(d *float64, s float64, x, y *float64, n int) (sum float64, done int) { return 0, 0 }
func Axpy2DotAVX2(d1 *float64, s1 float64, x1, y1, d2 *float64, s2 float64, x2, y2 *float64, n int) (sum float64, done int) {
	return 0, 0
}
func Chain4AVX2(d *float64, s float64, x *float64, gs *[4]float64, y1, y2, y3, y4 *float64, n int) int {
	return 0
}
func DotAVX512(a, b *float64, n int) (sum float64, done int)                            { return 0, 0 }
func AxpyToAVX512(d *float64, s float64, x, y *float64, n int) int                      { return 0 }
func AxpyDotAVX512(d *float64, s float64, x, y *float64, n int) (sum float64, done int) { return 0, 0 }
func Axpy2DotAVX512(d1 *float64, s1 float64, x1, y1, d2 *float64, s2 float64, x2, y2 *float64, n int) (sum float64, done int) {
	return 0, 0
}
func Chain4AVX512(d *float64, s float64, x *float64, gs *[4]float64, y1, y2, y3, y4 *float64, n int) int {
	return 0
}
