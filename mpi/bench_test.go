package mpi_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
)

// BenchmarkAllreduceValue8B is the per-call cost of an 8-byte allreduce
// through the binding (the W6 latency figure's Go side).
func BenchmarkAllreduceValue8B(b *testing.B) {
	c := mpi.World()
	for b.Loop() {
		mpi.AllreduceValue(c, 1.0, mpi.Sum)
	}
}

// BenchmarkAllreduceSlice8B is the same through the slice form.
func BenchmarkAllreduceSlice8B(b *testing.B) {
	c := mpi.World()
	x, y := []float64{1}, []float64{0}
	for b.Loop() {
		mpi.Allreduce(c, x, y, mpi.Sum)
	}
}
