//go:build unix

package dist_test

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// BenchmarkCheckpointRead reads a checkpoint array of 128 MiB with its
// checksum verified: chunked (the default) or in one piece (the read,
// then the checksum over the whole block), at one and two threads. It
// reports the process's CPU time per read beside the wall time.
func BenchmarkCheckpointRead(b *testing.B) {
	c := mpi.World()
	n := 1 << 24
	if testing.Short() {
		n = 1 << 20
	}
	dir := filepath.Join(b.TempDir(), "ck")
	x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0] % 1000) })
	if err != nil {
		b.Fatal(err)
	}
	if err := dist.SaveCheckpoint(c, dir, 1, nil, dist.Entry("a", x)); err != nil {
		b.Fatal(err)
	}
	x.Free()
	defer dist.SetWritePath("posix")()
	for _, chunk := range []int{8 << 20, 1 << 40} {
		for _, threads := range []int{1, 2} {
			name := fmt.Sprintf("chunk=%dMiB/threads=%d", chunk>>20, threads)
			if chunk == 1<<40 {
				name = fmt.Sprintf("whole/threads=%d", threads)
			}
			b.Run(name, func(b *testing.B) {
				defer dist.SetSumChunkBytes(chunk)()
				defer backend.SetThreads(backend.SetThreads(threads))
				b.SetBytes(int64(n) * 8)
				cpu0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					r, err := dist.OpenCheckpoint(c, dir)
					if err != nil {
						b.Fatal(err)
					}
					y, err := dist.LoadArray[float64](r, "a")
					if err != nil {
						b.Fatal(err)
					}
					y.Free()
				}
				b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e9, "cpu-ns/op")
			})
		}
	}
}

// cpuSeconds returns the CPU time of this process, user and system.
func cpuSeconds() float64 {
	var r syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return float64(r.Utime.Nano()+r.Stime.Nano()) * 1e-9
}
