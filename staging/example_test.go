package staging_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/staging"
)

// One call site serves both kinds of MPI: here a rank sends a device array
// to itself through leases, with an MPI that is not CUDA-aware (the arrays
// live on the fake device of the tests, which stands for a GPU).
func Example() {
	notAware := staging.WithCUDAAware(func() staging.CUDAAwareness {
		return staging.CUDAAwareness{Known: true, Source: "example"} // as XPMPI_CUDA_AWARE=0 says
	})
	dev := fakedev.New()
	x, _ := backend.NewOn[float64](dev, 3)
	y, _ := backend.NewOn[float64](dev, 3)
	backend.Fill(x, 1.5)
	send := staging.NewStaging[float64](dev, 3, notAware) // once, outside the loop
	recv := staging.NewStaging[float64](dev, 3, notAware)
	defer send.Close()
	defer recv.Close()

	c := mpi.World()
	me := c.Rank()
	counter := profiling.Count()
	rl, _ := recv.Lease(y, false)
	req, _ := c.Irecv(rl.Ptr(), rl.Len(), mpi.Float64, me, 0)
	rl.Attach(req) // Release waits for it, then copies to the device
	sl, _ := send.Lease(x, true)
	sreq, _ := c.Isend(sl.Ptr(), sl.Len(), mpi.Float64, me, 0)
	sl.Attach(sreq)
	sl.Release()
	rl.Release()
	counter.Stop()

	h, _ := backend.ToHost(y)
	fmt.Println(h.Data(), sl.Staged())
	fmt.Println(counter.Count(profiling.ToHost), "to_host,", counter.Count(profiling.ToDevice), "to_device,", counter.Bytes(profiling.ToDevice), "bytes")
	// Output:
	// [1.5 1.5 1.5] true
	// 1 to_host, 1 to_device, 24 bytes
}

// A ring of pinned buffers takes copies to the host that return at once,
// while the device goes on.
func ExampleRing() {
	dev := fakedev.New()
	x, _ := backend.NewOn[int32](dev, 4)
	ring, _ := staging.NewRing[int32](dev, 4, 2)
	defer ring.Close()
	var copies []*staging.Pending[int32]
	for step := int32(1); step <= 3; step++ {
		backend.Fill(x, step) // the computation of a step
		p, _ := ring.Copy(x)  // returns at once; x may change at once
		copies = append(copies, p)
	}
	_, err := copies[0].Result() // its slot was reused by the third copy
	fmt.Println(err == staging.ErrReused)
	for _, p := range copies[1:] {
		h, _ := p.Result()
		fmt.Println(h)
	}
	// Output:
	// true
	// [2 2 2 2]
	// [3 3 3 3]
}

// A mirror gives a host buffer owned by someone else a device side, and
// copies in place, so that the owner sees the results in its own slice.
func ExampleMirror() {
	owned := []float64{1, 2, 3}
	m := staging.NewMirror(fakedev.New(), owned)
	d, _ := m.ToDevice()
	backend.Scale(10, d)
	m.ToHost()
	fmt.Println(owned)
	// Output:
	// [10 20 30]
}

// SynchronizeForMPI waits for what produced device memory before MPI reads
// it: here every device that owns one of the arrays.
func ExampleSynchronizeForMPI() {
	dev := fakedev.New()
	x, _ := backend.NewOn[float64](dev, 1000)
	backend.Fill(x, 1) // queued on the device
	if err := staging.SynchronizeForMPI(nil, nil, x); err != nil {
		fmt.Println(err)
	}
	fmt.Println("x is ready for a CUDA-aware MPI")
	// Output:
	// x is ready for a CUDA-aware MPI
}
