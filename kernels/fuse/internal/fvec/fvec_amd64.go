//go:build !purego

// Package fvec holds package kernels/fuse's AVX2 chunk kernels: assembly
// generated with avo by internal/asmgen (fvec_amd64.s), which package
// fuse calls where HasAVX2, and their AVX-512 forms (NameAVX512, the
// same operations on the same elements, the same bits), which it calls
// where HasAVX512. Each kernel does the first n&^15 elements of
// its loop and returns how many it did; the caller's Go loop does the
// rest. They compute, lane by lane, what package fuse's Go loops compute,
// in the same order and without fused multiply-add.
//
// To regenerate the assembly and its stubs after changing the kernels
// (internal/asmgen/fvec.go), run go generate in this directory (the
// directive below).
package fvec

//go:generate go run -C ../../../../internal/asmgen . -out ../internal/fvec/fvec_amd64.s -stubs ../internal/fvec/fvec_stubs_amd64.go -pkg fvec

import "github.com/xpmpi/xpmpi/internal/cpufeat"

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (internal/cpufeat).
var HasAVX2 = cpufeat.AVX2

// HasAVX512 reports whether the processor has AVX-512F as well and the
// operating system saves the ZMM registers (internal/cpufeat).
var HasAVX512 = cpufeat.AVX512
