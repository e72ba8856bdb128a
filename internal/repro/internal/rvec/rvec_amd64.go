//go:build !purego

// Package rvec holds package internal/repro's AVX2 kernels: assembly
// generated with avo by internal/asmgen (rvec_amd64.s), which package
// repro calls where HasAVX2. Each kernel does the first n&^15 elements
// and returns how many it did; the caller's Go loop does the rest. The
// deposit kernel does, element by element, the floating-point operations
// of package repro's Go deposit, without fused multiply-add, and sums the
// bits of the results as integers.
//
// To regenerate the assembly and its stubs after changing the kernels
// (internal/asmgen/rvec.go), run go generate in this directory (the
// directive below).
package rvec

//go:generate go run -C ../../../asmgen . -out ../internal/rvec/rvec_amd64.s -stubs ../internal/rvec/rvec_stubs_amd64.go -pkg rvec

import "github.com/xpmpi/xpmpi/internal/cpufeat"

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (internal/cpufeat).
var HasAVX2 = cpufeat.AVX2

// HasAVX512 reports whether the processor has AVX-512F as well and the
// operating system saves the ZMM registers and opmasks.
var HasAVX512 = cpufeat.AVX512
