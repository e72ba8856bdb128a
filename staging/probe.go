package staging

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// probeTag is the MPI tag of the probe's messages.
const probeTag = 0x5052

// ProbeCUDAAware tests whether MPI can be handed device memory of backend
// b: each rank sends 4 float64 values in device memory to the next rank of
// a ring with Sendrecv, copies what it received to the host and checks it,
// and the ranks agree with a logical-and allreduce; any failure on any
// rank means "not aware". It is collective.
//
// A library that is not CUDA-aware can crash on a device pointer instead of
// failing: run the probe in a process of its own (xpmpi doctor does), and
// record its answer with RecordCUDAAwareProbe.
func ProbeCUDAAware(c mpi.Comm, b backend.Backend) (bool, error) {
	me, p := c.Rank(), c.Size()
	ok, detail := probeRing(c, b, me, p)
	all, err := mpi.AllTrue(c, ok)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("staging: CUDA-aware probe on rank %d: %s", me, detail)
	}
	return all, nil
}

func probeRing(c mpi.Comm, b backend.Backend, me, p int) (bool, string) {
	val := func(r, i int) float64 { return float64(1000*r+i) + 0.5 }
	send, err := backend.NewOn[float64](b, 4)
	if err != nil {
		return false, err.Error()
	}
	defer send.Free()
	recv, err := backend.NewOn[float64](b, 4)
	if err != nil {
		return false, err.Error()
	}
	defer recv.Free()
	host := []float64{val(me, 0), val(me, 1), val(me, 2), val(me, 3)}
	if err := backend.CopyFromHostSlice(send, host); err != nil {
		return false, err.Error()
	}
	if err := b.Synchronize(); err != nil {
		return false, err.Error()
	}
	prev := (me + p - 1) % p
	if _, err := c.Sendrecv(send.Ptr(), 4, (me+1)%p, probeTag, recv.Ptr(), 4, prev, probeTag, mpi.Float64); err != nil {
		return false, err.Error()
	}
	got := make([]float64, 4)
	if err := backend.CopyToHostSlice(got, recv); err != nil {
		return false, err.Error()
	}
	for i, v := range got {
		if v != val(prev, i) {
			return false, fmt.Sprintf("received %v from rank %d, want %v", got, prev, []float64{val(prev, 0), val(prev, 1), val(prev, 2), val(prev, 3)})
		}
	}
	return true, ""
}
