//go:build !purego

// Package vec holds the CPU backend's AVX2 kernels: assembly generated
// with avo by backend/cpu/asmgen (vec_amd64.s), which package cpu calls
// where HasAVX2. Each kernel does the first n&^7 elements of its loop
// (n&^15 for LaplaceDotRowAVX2, whose dot has 16 lanes) and returns how
// many it did; the caller's Go loop does the rest. They compute, lane by
// lane, what package cpu's Go loops compute, in the same order and without
// fused multiply-add.
package vec

// HasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers, checked once at start-up with CPUID and XGETBV.
var HasAVX2 = detectAVX2()

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
