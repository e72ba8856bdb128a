//go:build !amd64 || purego

// Package rvec holds package internal/repro's AVX2 kernels (see
// rvec_amd64.go). Off amd64, and with the purego tag, there are none:
// HasAVX2 is false and the kernels, never called, do nothing.
package rvec

// HasAVX2 is false here: package repro's Go loops run.
const HasAVX2 = false

// HasAVX512 is false here.
const HasAVX512 = false

func MaxHiAVX2(x *float64, n int) (hi uint32, done int)                      { return 0, 0 }
func MulMaxHiAVX2(p, x, y *float64, n int) (hi uint32, done int)             { return 0, 0 }
func DepositAVX2(x *float64, n int, c1, c2 float64) (a1, a2 int64, done int) { return 0, 0, 0 }
func DepositMaxAVX2(x, y *float64, n int, c1, c2 float64) (a1, a2 int64, hi uint32, done int) {
	return 0, 0, 0, 0
}
func DepositMaxAVX512(x, y *float64, n int, c1, c2 float64) (a1, a2 int64, hi uint32, done int) {
	return 0, 0, 0, 0
}
