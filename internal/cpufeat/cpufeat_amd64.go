//go:build !purego

package cpufeat

// detects: the flags come from the processor.
const detects = true

// AVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (CPUID and XGETBV).
var AVX2 = detectAVX2()

// AVX512 reports whether the processor has AVX-512F as well and the
// operating system saves the ZMM registers and the opmasks.
var AVX512 = AVX2 && detectAVX512()

// AMD reports whether the processor is an AMD one (CPUID's vendor string
// "AuthenticAMD").
var AMD = vendor() == "AuthenticAMD"

// vendor returns CPUID's vendor string (leaf 0: EBX, EDX, ECX).
func vendor() string {
	_, ebx, ecx, edx := cpuid(0, 0)
	b := make([]byte, 0, 12)
	for _, r := range []uint32{ebx, edx, ecx} {
		b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return string(b)
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

func detectAVX512() bool {
	if xcr0, _ := xgetbv(); xcr0&0xe6 != 0xe6 { // XMM, YMM, opmask, ZMM state
		return false
	}
	_, ebx, _, _ := cpuid(7, 0)
	return ebx&(1<<16) != 0
}

// cpuid executes CPUID for leaf and sub-leaf.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv reads the extended control register XCR0.
func xgetbv() (eax, edx uint32)
