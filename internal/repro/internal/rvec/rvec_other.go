//go:build !amd64 || purego

// Package rvec holds package internal/repro's AVX2 kernels (see
// rvec_amd64.go). Off amd64, and with the purego tag, there are none:
// HasAVX2 is false and the kernels, never called, do nothing.
package rvec

// HasAVX2 is false here: package repro's Go loops run.
const HasAVX2 = false

func MaxAbsAVX2(x *float64, n int) (m float64, done int)       { return 0, 0 }
func MulMaxAVX2(p, x, y *float64, n int) (m float64, done int) { return 0, 0 }
func DepositAVX2(x *float64, n int, st *[48]float64) int       { return 0 }
