// Package cpu is the CPU backend of package backend: arrays in host memory
// (Go slices), operations as Go loops, goroutine-parallel above a size
// threshold within the rank's thread budget (backend.Threads).
//
// Importing the package registers the backend as "cpu":
//
//	import _ "github.com/xpmpi/xpmpi/backend/cpu"
//
// after which backend.Wrap, backend.New (with the CPU selected) and the
// generic operations of package backend run here. The backend is also
// usable directly through Default, on buffers.
//
// # Numerics
//
// Elementwise operations are Go arithmetic in the element type: integers
// wrap, float results are rounded once per operation (no fused
// multiply-add), and integer division by zero panics, before any element is
// written, with a message that starts "cpu: integer division by zero".
//
// Sum and Dot of floats accumulate in float64 (float32 elements and their
// products are exact in float64). The input is cut into fixed chunks of 4096
// elements; each chunk is summed with several independent accumulators and
// the per-chunk partial sums are added pairwise in a fixed order, so the
// result is accurate (error about 1e-16 times the sum of the absolute
// values of the terms, times a few hundred at worst) and bitwise the same
// for every thread budget. Integer sums and dots wrap in 64 bits, exactly.
//
// Argmin and Argmax return the first occurrence; a NaN counts as smaller
// (Argmin) or larger (Argmax) than every number, so the first NaN wins.
//
// # Speed
//
// Loops are unrolled by 4 with their slices cut to equal lengths, so that
// the compiler removes bounds checks. float64 and float32 AXPY, float64 Sum
// and Dot, and float32 Dot use gonum's SSE2 assembly, which measured faster
// than the Go loops (see gonum.go and BenchmarkAxpyKernel,
// BenchmarkDotKernel). Elementwise loops go parallel from 2^18 elements
// on, in ranges of about 2^17, reductions from 2^18 elements on, Argmin and
// Argmax above 2^16 elements, Jacobi5 and Laplace5 above 2^16 grid points,
// copies from 4 MiB on: the thresholds measured on the 2-core development
// machine, where splitting smaller arrays lost to one goroutine
// (BenchmarkGrain). Goroutines start in about a microsecond, but waking an
// idle core, or sharing one with other processes, costs tens.
//
// Measured there (Go 1.26, single thread / both cores, GB/s counting the
// bytes each operation must move: 24 per element for AXPY, 16 for Dot, 8
// for Sum, 16 per point for the stencils; the cores are shared with other
// processes, so the figures vary by 2x between runs, and these are the
// better ones): float64 AXPY of 2^24 elements 17-19 / 31-35, Dot 10.5-11.6
// / 20-22, Sum 8.6-9.2 / 20-23, Jacobi5 of a 2048x2048 float64 grid 10-12.7
// / 17-24; in cache (2^10 to 2^16 elements) AXPY reaches 55-90 GB/s.
//
//	go test -run - -bench . ./backend/cpu
package cpu
