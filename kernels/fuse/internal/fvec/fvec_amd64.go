//go:build !purego

// Package fvec holds package kernels/fuse's AVX2 chunk kernels: assembly
// generated with avo by kernels/fuse/asmgen (fvec_amd64.s), which package
// fuse calls where HasAVX2. Each kernel does the first n&^15 elements of
// its loop and returns how many it did; the caller's Go loop does the
// rest. They compute, lane by lane, what package fuse's Go loops compute,
// in the same order and without fused multiply-add.
package fvec

import "github.com/xpmpi/xpmpi/internal/cpufeat"

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (internal/cpufeat).
var HasAVX2 = cpufeat.AVX2
