//go:build !cgo

package profiling

// nvtxLib stands for a loaded NVTX library; without cgo there is none.
type nvtxLib struct{ path string }

// openNVTX returns nil: without cgo NVTX cannot be loaded.
func openNVTX(string) *nvtxLib { return nil }

func (l *nvtxLib) hasStartEnd() bool   { return false }
func (l *nvtxLib) push(string) int     { return -1 }
func (l *nvtxLib) pop() int            { return -1 }
func (l *nvtxLib) start(string) uint64 { return 0 }
func (l *nvtxLib) end(uint64)          {}
