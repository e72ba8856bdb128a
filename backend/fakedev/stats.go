package fakedev

import "fmt"

// Counts is what a fake device has been asked to do: the counters of
// events (copies, synchronizations, operations, allocations) since the
// device was made or since ResetStats, and the state of what is live now
// (LiveBytes, PinnedLive, PinnedLiveBytes, Streams).
type Counts struct {
	// ToHost, ToDevice and DeviceCopies count copies by direction, blocking
	// and async alike (device copies include Backend.Copy); the Bytes
	// fields are their sizes.
	ToHost, ToDevice, DeviceCopies              int
	ToHostBytes, ToDeviceBytes, DeviceCopyBytes int64
	Async                                       int // the copies above that were async
	PageableAsync                               int // async copies whose host side was not pinned memory
	Syncs                                       int // Synchronize of the backend, a stream or an event
	Kernels                                     int // operations other than copies
	Allocs, Frees                               int // device allocations (Free of an allocation, once)
	PinnedAllocs, PinnedFrees                   int
	LiveBytes                                   int64 // device memory allocated and not freed
	PinnedLive                                  int   // pinned allocations not freed
	PinnedLiveBytes                             int64
	Streams                                     int // streams made by NewStream and not destroyed
}

// Stats returns the device's counts.
func (b *Backend) Stats() Counts {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts
}

// ResetStats zeroes the counters of events; what is live (LiveBytes,
// PinnedLive, PinnedLiveBytes, Streams) is kept.
func (b *Backend) ResetStats() {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.counts
	b.counts = Counts{LiveBytes: c.LiveBytes, PinnedLive: c.PinnedLive, PinnedLiveBytes: c.PinnedLiveBytes, Streams: c.Streams}
}

// Sub returns c minus an earlier reading: what happened in between.
func (c Counts) Sub(before Counts) Counts {
	return Counts{
		ToHost:          c.ToHost - before.ToHost,
		ToDevice:        c.ToDevice - before.ToDevice,
		DeviceCopies:    c.DeviceCopies - before.DeviceCopies,
		ToHostBytes:     c.ToHostBytes - before.ToHostBytes,
		ToDeviceBytes:   c.ToDeviceBytes - before.ToDeviceBytes,
		DeviceCopyBytes: c.DeviceCopyBytes - before.DeviceCopyBytes,
		Async:           c.Async - before.Async,
		PageableAsync:   c.PageableAsync - before.PageableAsync,
		Syncs:           c.Syncs - before.Syncs,
		Kernels:         c.Kernels - before.Kernels,
		Allocs:          c.Allocs - before.Allocs,
		Frees:           c.Frees - before.Frees,
		PinnedAllocs:    c.PinnedAllocs - before.PinnedAllocs,
		PinnedFrees:     c.PinnedFrees - before.PinnedFrees,
		LiveBytes:       c.LiveBytes - before.LiveBytes,
		PinnedLive:      c.PinnedLive - before.PinnedLive,
		PinnedLiveBytes: c.PinnedLiveBytes - before.PinnedLiveBytes,
		Streams:         c.Streams - before.Streams,
	}
}

// String describes the copy counts on one line.
func (c Counts) String() string {
	return fmt.Sprintf("to_host %d (%d B), to_device %d (%d B), device %d (%d B), async %d (pageable %d), syncs %d, kernels %d, pinned allocs %d frees %d live %d",
		c.ToHost, c.ToHostBytes, c.ToDevice, c.ToDeviceBytes, c.DeviceCopies, c.DeviceCopyBytes,
		c.Async, c.PageableAsync, c.Syncs, c.Kernels, c.PinnedAllocs, c.PinnedFrees, c.PinnedLive)
}
