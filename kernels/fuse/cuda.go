package fuse

// CUDAProgram is the CUDA source of a kernel (placeholder).
type CUDAProgram struct {
	Source  string
	Arrays  []string
	Params  []string
	Results []string
}

// CUDA returns the kernel's CUDA program.
func (k *Kernel) CUDA() (*CUDAProgram, error) { return nil, nil }
