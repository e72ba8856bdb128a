// Package profiling accounts for data movement: transfer events (host/device
// copies and the like) with counters, "assert no transfers" and transfer
// budgets; MPI traffic counters; timed regions; and NVTX ranges.
//
// It is the bottom layer of xpmpi and imports nothing from it: backend,
// staging, kernels, dist and mpi call it.
//
// # Transfer events
//
// Every place in the library that moves data between host and device (or
// converts kernel arguments, falls back to a host kernel, copies device to
// device, or synchronizes with a device) calls Record with an Event: its
// Kind, a description, its size in bytes (or UnknownBytes), and whether it
// blocked and whether it was implicit. Record fills in the call site: the
// first caller outside the library, as "dir/file.go:line".
//
// When nothing is active, Record costs one atomic load (about a nanosecond),
// so the library records unconditionally; Active tells a caller whether it
// is worth building a description.
//
// Three things consume events:
//
//   - a Counter (Count, Counting) counts them by kind and call site, and
//     reports;
//   - AssertNoTransfers fails when a block of code moved data between host
//     and device (proftest.NoTransfers does the same in a test);
//   - a Budget holds named phases, each allowing some kinds of event within
//     limits, and reports every violation with Check, in the exact forms of
//     the project's SEMANTICS.md.
//
// Counters and assertion scopes nest: each active one sees every event, from
// every goroutine. A budget gives each event to its innermost open phase.
//
// # MPI traffic
//
// RecordMessage records one MPI operation (its name, its peer or Collective,
// its bytes); a Traffic counter (CountTraffic) counts them per peer and per
// operation. It too costs one atomic load when nothing counts.
//
// # Timing and NVTX
//
// Region times a region of code, synchronizing the device before reading the
// clock at both ends, and marks it as an NVTX range. Range, PushRange and
// PopRange make NVTX ranges for Nsight Systems: the NVTX library
// (libnvToolsExt.so.1, or libnvtx3interop.so.1 from CUDA 13 on) is loaded
// with dlopen on first use, so the build needs no NVIDIA file; where it is
// absent, or without cgo, ranges do nothing.
package profiling
