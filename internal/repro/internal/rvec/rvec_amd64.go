//go:build !purego

// Package rvec holds package internal/repro's AVX2 kernels: assembly
// generated with avo by internal/repro/asmgen (rvec_amd64.s), which
// package repro calls where HasAVX2. Each kernel does the first n&^15
// elements and returns how many it did; the caller's Go loop does the
// rest. The deposit kernel does, element by element, the floating-point
// operations of package repro's Go deposit, without fused multiply-add,
// and sums the bits of the results as integers.
package rvec

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers, checked once at start-up with CPUID and XGETBV
// (as package backend/cpu's internal/vec checks it).
var HasAVX2 = detectAVX2()

// HasAVX512 reports whether the processor has AVX-512F as well and the
// operating system saves the ZMM registers and opmasks.
var HasAVX512 = HasAVX2 && detectAVX512()

func detectAVX512() bool {
	if xcr0, _ := xgetbv(); xcr0&0xe6 != 0xe6 { // XMM, YMM, opmask, ZMM state
		return false
	}
	_, ebx, _, _ := cpuid(7, 0)
	return ebx&(1<<16) != 0
}

func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx&osxsave == 0 || ecx&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx, _, _ := cpuid(7, 0)
	return ebx&(1<<5) != 0
}
