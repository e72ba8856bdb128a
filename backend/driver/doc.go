// Package driver holds what someone implementing a backend needs, as
// database/sql/driver does for database/sql: the Backend interface and the
// Buffer, Scalar and Device it speaks in; the optional capabilities a
// backend may add (Async with Stream and Event, Math, ComplexArith,
// ComplexKernels, ComplexMath, Converter, AxisReducer, StatsReducer,
// Sorter, FFTer, GEMM, RandomFiller, Stencils, WeightedStencils,
// StencilDots, Describer) and the op types their methods take; the helpers
// every implementation shares (HostBuffer, DeviceView, CheckGemm, CheckFFT,
// CheckRandom, ConvertValue, HistogramEdges); the errors a device reports
// (ErrDevice, DeviceError, ErrFreed); and Register, which an
// implementation calls from its init function.
//
// Who imports which: a program, and a package of arrays such as dist,
// imports package backend, whose Array[T], conversions and selection run
// on whatever backends are registered. An implementation (backend/cpu,
// backend/cuda, backend/fakedev) imports this package for what it
// implements, and package backend for what it shares with the users: the
// element types, the thread budget (backend.ParallelFor) and, in its
// tests, arrays. Code that calls a capability directly (dist's device
// paths) imports both. This package imports nothing of the module above
// package dtype, so that package backend can import it.
//
// Package backend re-exports the names its own functions take or return
// (Backend, Device, Kind, Scalar, BinaryOp, the errors), and forwards the
// rest of this package's names as deprecated aliases for a forwarding
// period: backend.Buffer is driver.Buffer.
//
// A new backend implements Backend, registers itself:
//
//	func init() {
//		driver.Register("mydev", func() (driver.Backend, error) { return open() })
//	}
//
// passes the conformance suite of package backendtest (TestBackend
// and, for the optional capabilities it implements, TestCapabilities), and
// is selected by its users with XPMPI_BACKEND=mydev or backend.Select.
package driver
