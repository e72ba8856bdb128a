package staging_test

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/staging"
)

// The fake device's memory is host memory, so MPI takes its pointers: the
// probe must say "aware" at every rank count, as it does for the CPU.
func TestProbeCUDAAware(t *testing.T) {
	c := mpitest.World(t)
	for name, b := range map[string]backend.Backend{"fake": fakedev.Default, "cpu": cpu.Default} {
		ok, err := staging.ProbeCUDAAware(c, b)
		if err != nil || !ok {
			t.Errorf("%s: probe = %v, %v", name, ok, err)
		}
	}
}

// blind is a device whose buffers hand MPI the address of other memory, as
// a library that cannot see device memory would read something else: the
// probe must say "not aware".
type blind struct{ backend.Backend }

type blindBuf struct {
	backend.Buffer
	decoy []float64
}

func (b blindBuf) Ptr() unsafe.Pointer { return unsafe.Pointer(&b.decoy[0]) }

func (b blind) Alloc(dt backend.DType, n int) (backend.Buffer, error) {
	buf, err := b.Backend.Alloc(dt, n)
	if err != nil {
		return nil, err
	}
	return blindBuf{Buffer: buf, decoy: make([]float64, n)}, nil
}

// inner returns the device's own buffer under a blind one.
func inner(buf backend.Buffer) backend.Buffer {
	if bb, ok := buf.(blindBuf); ok {
		return bb.Buffer
	}
	return buf
}

func (b blind) Free(buf backend.Buffer) { b.Backend.Free(inner(buf)) }

func (b blind) Slice(buf backend.Buffer, lo, hi int) backend.Buffer {
	return b.Backend.Slice(inner(buf), lo, hi)
}

func (b blind) CopyFromHost(dst backend.Buffer, src unsafe.Pointer) error {
	return b.Backend.CopyFromHost(inner(dst), src)
}

func (b blind) CopyToHost(dst unsafe.Pointer, src backend.Buffer) error {
	return b.Backend.CopyToHost(dst, inner(src))
}

func TestProbeDetectsBlindMPI(t *testing.T) {
	c := mpitest.World(t)
	ok, err := staging.ProbeCUDAAware(c, blind{fakedev.Default})
	if ok || err == nil || !strings.Contains(err.Error(), "received") {
		t.Fatalf("probe through a blind MPI = %v, %v", ok, err)
	}
}
