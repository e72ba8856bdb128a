//go:build mpi || petsc

package mpi

import (
	"runtime"
	"sync"
	"testing"
	"unsafe"
)

// BenchmarkCallCost splits the cost of an 8-byte allreduce through the
// binding into its pieces (issue 15). Run it at 1 and 2 ranks:
//
//	go test -tags mpi -c -o /tmp/mpi.test ./mpi
//	mpirun -np 2 /tmp/mpi.test -test.run XXX -test.bench CallCost -test.benchtime 200000x
//
// A fixed count (-test.benchtime Nx) is needed at more than one rank: every
// rank must make the same number of calls.
//
// The sub-benchmarks, from the bottom up:
//
//	CLoop:          a C loop of MPI_Allreduce (the in-job C reference)
//	CgoNoop:        a Go loop calling an empty C function (the cgo transition)
//	Lock:           lib.Lock and lib.Unlock (the library lock as configured)
//	Mutex:          a sync.Mutex Lock and Unlock, uncontended
//	CgoAllreduce:   a Go loop calling C that calls MPI_Allreduce once
//	Comm:           (*comm).allreduceValue: lock, code maps, cgo, MPI
//	Checked:        the checking wrapper's allreduceValue over it
//	AllreduceValue: mpi.AllreduceValue[float64] on the world (generic)
//	Method:         world.Allreduce with pointers to Go memory
//	LockedThread:   the Comm call made by a goroutine locked to its OS
//	                thread, handed each call over a channel (the design
//	                of a dedicated MPI thread, measured against the lock)
//
// Each reports cpu-ns/op beside ns/op: the process's CPU time per call,
// which at one rank leaves out the time the process waited for a CPU on a
// loaded machine (at more ranks it includes MPI's polling for the others).
// The level (XPMPI_THREAD_LEVEL) changes Lock, Comm and everything above
// it, and CLoop with them.
func BenchmarkCallCost(b *testing.B) {
	world := World()
	cpu := func(b *testing.B) func() {
		t0 := costCPUTime()
		return func() { b.ReportMetric((costCPUTime()-t0)/float64(b.N)*1e9, "cpu-ns/op") }
	}
	m := unwrap(world).(*comm)
	w := world.(*checked)
	b.Run("CLoop", func(b *testing.B) {
		defer cpu(b)()
		costAllreduceLoop(world, b.N)
	})
	b.Run("CgoNoop", func(b *testing.B) {
		defer cpu(b)()
		for b.Loop() {
			costNoop()
		}
	})
	b.Run("Lock", func(b *testing.B) {
		defer cpu(b)()
		for b.Loop() {
			lib.Lock()
			lib.Unlock()
		}
	})
	b.Run("Mutex", func(b *testing.B) {
		defer cpu(b)()
		var mu sync.Mutex
		for b.Loop() {
			mu.Lock()
			mu.Unlock() //nolint:staticcheck // the empty section is what is measured
		}
	})
	b.Run("CgoAllreduce", func(b *testing.B) {
		defer cpu(b)()
		for b.Loop() {
			costAllreduceRaw(world)
		}
	})
	b.Run("Comm", func(b *testing.B) {
		defer cpu(b)()
		b.ReportAllocs()
		bits := uint64(0x3ff0000000000000) // 1.0
		for b.Loop() {
			if _, err := m.allreduceValue(bits, Float64, Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Checked", func(b *testing.B) {
		defer cpu(b)()
		b.ReportAllocs()
		bits := uint64(0x3ff0000000000000)
		for b.Loop() {
			if _, err := w.allreduceValue(bits, Float64, Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AllreduceValue", func(b *testing.B) {
		defer cpu(b)()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AllreduceValue(world, 1.0, Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("LockedThread", func(b *testing.B) {
		defer cpu(b)()
		type call struct {
			bits uint64
			done chan uint64
		}
		calls := make(chan call)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for c := range calls {
				v, _ := m.allreduceValue(c.bits, Float64, Sum)
				c.done <- v
			}
		}()
		done := make(chan uint64)
		for b.Loop() {
			calls <- call{0x3ff0000000000000, done}
			<-done
		}
		close(calls)
	})
	b.Run("Method", func(b *testing.B) {
		defer cpu(b)()
		b.ReportAllocs()
		one, out := 1.0, 0.0
		for b.Loop() {
			if err := world.Allreduce(unsafe.Pointer(&one), unsafe.Pointer(&out), 1, Float64, Sum); err != nil {
				b.Fatal(err)
			}
		}
	})
}
