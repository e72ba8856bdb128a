//go:build !amd64 || purego

// Package vec holds the CPU backend's AVX2 kernels (see vec_amd64.go).
// Off amd64, and with the purego tag, there are none: HasAVX2 is false and
// the kernels, never called, do nothing.
package vec

// HasAVX2 is false here: package cpu's Go loops run.
const HasAVX2 = false

// HasAVX512 is false here.
const HasAVX512 = false

func JacobiRowAVX2(out, up, down, left, right *float64, n int) int       { return 0 }
func LaplaceRowAVX2(out, mid, up, down, left, right *float64, n int) int { return 0 }
func LaplaceDotRowAVX2(out, mid, up, down, left, right *float64, n int) (float64, int) {
	return 0, 0
}
func JacobiRowAVX512(out, up, down, left, right *float64, n int) int       { return 0 }
func LaplaceRowAVX512(out, mid, up, down, left, right *float64, n int) int { return 0 }
func LaplaceDotRowAVX512(out, mid, up, down, left, right *float64, n int) (float64, int) {
	return 0, 0
}
func AxpyAVX2(a float64, x, y *float64, n int) int                      { return 0 }
func AxpbyAVX2(a float64, x *float64, b float64, y *float64, n int) int { return 0 }
func AxpyAVX512(a float64, x, y *float64, n int) int                    { return 0 }
func AxpbyAVX512(a float64, x *float64, b float64, y *float64, n int) int {
	return 0
}
func DotAVX2(x, y *float64, n int) (float64, int)   { return 0, 0 }
func DotAVX512(x, y *float64, n int) (float64, int) { return 0, 0 }
func Radix4AVX2(a, b, c, d, y0, y1, y2, y3, w1, w2, w3 *complex128, n int) int {
	return 0
}
func Radix4FirstAVX2(x0, x1, x2, x3, y, w1, w2, w3 *complex128, n int) int { return 0 }
func Radix4S4AVX2(a, b, c, d, y, w1, w2, w3 *complex128, m int)            {}
func Butterflies4AVX2(a, b, c, d, y0, y1, y2, y3 *complex128, n int) int {
	return 0
}
func Butterflies4ScaledAVX2(a, b, c, d, y0, y1, y2, y3 *complex128, scale float64, n int) int {
	return 0
}
func Butterflies2AVX2(a, b, y0, y1 *complex128, n int) int                      { return 0 }
func Butterflies2ScaledAVX2(a, b, y0, y1 *complex128, scale float64, n int) int { return 0 }
