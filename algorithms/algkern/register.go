package algkern

import "github.com/xpmpi/xpmpi/kernels"

// init registers the package's kernels in kernels.Default.
func init() {
	for _, k := range []*kernels.Kernel{mortonKeys2Kernel, mortonKeys3Kernel, segmentSum32Kernel, segmentSum64Kernel,
		maskCountKernel, maskScanKernel, maskIndexKernel, compactKernel} {
		kernels.MustRegister(k)
	}
}
