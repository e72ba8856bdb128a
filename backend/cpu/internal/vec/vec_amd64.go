//go:build !purego

// Package vec holds the CPU backend's AVX2 kernels: assembly generated
// with avo by internal/asmgen (vec_amd64.s), which package cpu calls where
// HasAVX2 (and the AVX-512 forms JacobiRowAVX512, LaplaceRowAVX512,
// LaplaceDotRowAVX512, DotAVX512, AxpyAVX512 and AxpbyAVX512 where
// HasAVX512), and
// the FFT passes (Radix4AVX2, Radix4FirstAVX2, Radix4S4AVX2,
// Butterflies4AVX2, Butterflies2AVX2 and their scaled forms), which
// package fftk calls. Each kernel does the first n&^7 elements of its
// loop (n&^15 for LaplaceDotRowAVX2, whose dot has 16 lanes, and for the
// AVX-512 stencils, axpy and axpby; n&^31 for
// the dots; n&^1 complex128 values for the FFT passes, all m of
// Radix4S4AVX2's) and returns how many it did; the caller's Go loop does the rest. They compute, lane by lane,
// what the Go loops compute, in the same order and without fused
// multiply-add.
//
// To regenerate the assembly and its stubs after changing the kernels
// (internal/asmgen/vec.go), run go generate in this directory (the
// directive below).
package vec

//go:generate go run -C ../../../../internal/asmgen . -out ../internal/vec/vec_amd64.s -stubs ../internal/vec/vec_stubs_amd64.go -pkg vec

import "github.com/xpmpi/xpmpi/internal/cpufeat"

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (internal/cpufeat).
var HasAVX2 = cpufeat.AVX2

// HasAVX512 reports whether the processor has AVX-512F as well and the
// operating system saves the ZMM registers (internal/cpufeat): DotAVX512
// runs there.
var HasAVX512 = cpufeat.AVX512
