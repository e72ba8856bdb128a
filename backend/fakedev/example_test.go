package fakedev_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
)

// A test puts arrays on the fake device and counts the copies that a piece
// of code makes.
func Example() {
	dev := fakedev.New() // or fakedev.Default, registered as "fake"
	x, _ := backend.NewOn[float64](dev, 4)
	backend.Fill(x, 2) // queued on the device's default stream
	before := dev.Stats()
	h, _ := backend.ToHost(x) // one copy to the host, which waits for the Fill
	d := dev.Stats().Sub(before)
	fmt.Println(x.Device(), h.Data(), d.ToHost, d.ToHostBytes)
	// Output:
	// fake:0 [2 2 2 2] 1 32
}
