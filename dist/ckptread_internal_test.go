package dist

import (
	"errors"
	"fmt"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"github.com/xpmpi/xpmpi/mpi"
)

// SetSumChunkBytes sets the chunk size of checksummed reads, until
// restore.
func SetSumChunkBytes(n int) (restore func()) {
	old := sumChunkBytes
	sumChunkBytes = n
	return func() { sumChunkBytes = old }
}

// TestReadSummed checks readSummed against crc32c.Checksum of the same
// bytes, on both of its paths (one thread, and the checksum goroutine),
// with lengths around the chunk size, and that a failed read stops it.
func TestReadSummed(t *testing.T) {
	const chunk = 64
	defer SetSumChunkBytes(chunk)()
	file := make([]byte, 1000)
	for i := range file {
		file[i] = byte(i*131 + i>>3)
	}
	const dataOff = 128 // the data starts here, as after a .npy header
	for _, threads := range []int{1, 2, 4} {
		prev := backend.SetThreads(threads)
		for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 3*chunk - 1, 3 * chunk, 3*chunk + 1, len(file) - dataOff} {
			for _, sumOff := range []int64{0, 5} {
				if dataOff+int(sumOff)+n > len(file) {
					continue
				}
				var reads []int64
				pread := func(off int64, b []byte) error {
					reads = append(reads, off)
					copy(b, file[off:])
					return nil
				}
				b := make([]byte, n)
				var crc crcSum
				if err := readSummed(pread, dataOff, sumOff, b, &crc); err != nil {
					t.Fatal(err)
				}
				data := file[dataOff : dataOff+int(sumOff)+n]
				if string(b) != string(data[sumOff:]) {
					t.Errorf("threads %d, %d bytes at %d: read the wrong bytes", threads, n, sumOff)
				}
				// The data is sumOff bytes of zeros (another rank's part,
				// here none) followed by this rank's bytes.
				want := make([]byte, len(data))
				copy(want[sumOff:], data[sumOff:])
				total := int64(len(data))
				if got, w := crc32c.Finish(crc.Part(total), total), crc32c.Checksum(want); got != w {
					t.Errorf("threads %d, %d bytes at %d: checksum %08x, want %08x", threads, n, sumOff, got, w)
				}
				if calls := (n + chunk - 1) / chunk; len(reads) != calls {
					t.Errorf("threads %d, %d bytes: %d reads, want %d", threads, n, len(reads), calls)
				}
			}
		}
		// A read that fails in the first, a middle or the last chunk is
		// the error, and nothing is read after it.
		for _, bad := range []int{0, 2, 4} {
			calls := 0
			boom := fmt.Errorf("chunk %d failed", bad)
			pread := func(off int64, b []byte) error {
				calls++
				if off == dataOff+int64(bad*chunk) {
					return boom
				}
				return nil
			}
			var crc crcSum
			err := readSummed(pread, dataOff, 0, make([]byte, 5*chunk), &crc)
			if !errors.Is(err, boom) || calls != bad+1 {
				t.Errorf("threads %d, failure in chunk %d: %v after %d reads", threads, bad, err, calls)
			}
		}
		backend.SetThreads(prev)
	}
}

// TestViewRead checks which reads go through MPI-IO file views: every
// layout on the MPI-IO path (an empty array none), none on the POSIX path.
func TestViewRead(t *testing.T) {
	c := mpi.NewSerial()
	grid := NewGridLayout([]int{5, 7}, []int{1, 1})
	for _, tc := range []struct {
		how  ioPath
		l    Layout
		want bool
	}{
		{ioMPI, NewLayout([]int{5, 7}, 1, 1), true},
		{ioMPI, grid, true},
		{ioMPI, NewLayout([]int{0, 7}, 1, 1), false},
		{ioPOSIX, NewLayout([]int{5, 7}, 1, 1), false},
		{ioPOSIX, grid, false},
	} {
		old := ioOverride
		ioOverride = tc.how
		if got := viewRead(c, tc.l); got != tc.want {
			t.Errorf("%v, %v: viewRead = %v, want %v", tc.how, tc.l, got, tc.want)
		}
		ioOverride = old
	}
}
