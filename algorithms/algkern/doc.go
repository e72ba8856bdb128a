// Package algkern runs the algorithms of package algorithms on backend
// arrays wherever they live: Morton keys (MortonKeys2, MortonKeys3),
// segment sums by sorted key (SegmentSum) and compaction by a mask
// (MaskIndex, Compact). Each runs kernels of package kernels, one per
// pass, registered in kernels.Default (morton_keys2, morton_keys3,
// segment_sum_i32, segment_sum_i64, mask_count, mask_scan, mask_index,
// mask_compact), each with a host implementation (algorithms' arithmetic)
// and CUDA source that gives the same bits: on host arrays the host
// implementation runs, on a CUDA device the CUDA kernel, and on a device
// that runs no CUDA code (the fake device) the host implementation, as a
// fallback that package kernels records.
//
// # Determinism
//
// Every result is the same on every run, on the host and on every device:
//
//   - Morton keys are computed per point by the formulas of
//     algorithms.CellIndex and Morton2/Morton3, in double (the shipped
//     CUDA headers xpmpi/cell.cuh and xpmpi/morton.cuh), compiled without
//     fused multiply-adds.
//   - A segment sum adds each output element's rows in increasing row
//     order from zero, serially, as algorithms.SegmentSum does: one CUDA
//     thread per output element, whose rows two binary searches of the
//     sorted keys find. No atomics, so no order that depends on timing.
//   - Compaction counts the selected elements of each tile of 512 mask
//     bytes (a thread per tile), scans the counts exclusively (one block)
//     and scatters each tile's elements from its offset, in order (a
//     thread per tile): exact integers throughout, so the result does not
//     depend on the order of the threads.
//
// # Sorting by key
//
// There is no sort here: sorting a device array's keys is the job of
// backend.Sorter (dist.Sort uses it on each rank's block); catalog kernels
// of radix passes would duplicate a CUDA implementation of it.
//
// # Where it sits
//
// algkern imports algorithms, kernels and backend; algorithms stays a
// leaf package of host code over slices (backend/cpu imports it), so the
// kernels cannot live there without making the CPU backend depend on
// package kernels. Programs that want the kernels in `xpmpi kernels`
// (and its --compile and --parity) import this package, as cmd/xpmpi
// does.
//
// # Errors
//
// Arguments that the caller can check (lengths, levels, bounds, width,
// aliasing, unsorted keys on the host) cause a panic whose message starts
// with "algkern: "; arrays on different devices and failed launches are
// errors, as package kernels returns them.
package algkern
