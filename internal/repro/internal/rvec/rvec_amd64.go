//go:build !purego

// Package rvec holds package internal/repro's AVX2 kernels: assembly
// generated with avo by internal/repro/asmgen (rvec_amd64.s), which
// package repro calls where HasAVX2. Each kernel does the first n&^15
// elements and returns how many it did; the caller's Go loop does the
// rest. The deposit kernel does, element by element, the floating-point
// operations of package repro's Go deposit, without fused multiply-add,
// and sums the bits of the results as integers.
package rvec

import "github.com/xpmpi/xpmpi/internal/cpufeat"

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (internal/cpufeat).
var HasAVX2 = cpufeat.AVX2

// HasAVX512 reports whether the processor has AVX-512F as well and the
// operating system saves the ZMM registers and opmasks.
var HasAVX512 = cpufeat.AVX512
