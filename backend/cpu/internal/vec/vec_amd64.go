//go:build !purego

// Package vec holds the CPU backend's AVX2 kernels: assembly generated
// with avo by backend/cpu/asmgen (vec_amd64.s), which package cpu calls
// where HasAVX2. Each kernel does the first n&^7 elements of its loop
// (n&^15 for LaplaceDotRowAVX2, whose dot has 16 lanes) and returns how
// many it did; the caller's Go loop does the rest. They compute, lane by
// lane, what package cpu's Go loops compute, in the same order and without
// fused multiply-add.
package vec

import "github.com/xpmpi/xpmpi/internal/cpufeat"

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (internal/cpufeat).
var HasAVX2 = cpufeat.AVX2
