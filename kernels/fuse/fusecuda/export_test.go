//go:build cgo

package fusecuda

// ScratchAllocs returns the number of device allocations made for the
// memory of reductions so far.
func ScratchAllocs() int64 { return scratchAllocs.Load() }
