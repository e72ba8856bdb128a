package backend

import "unsafe"

// Backend is a place where arrays live and local compute runs. Its methods
// are type-erased: buffers carry their DType, scalars are Scalar values of
// the buffer's DType. Callers (the generic functions of this package) have
// checked that lengths, types and devices agree before a method is called;
// backends may assume it.
//
// Integer arithmetic wraps as Go's does; integer division by zero panics on
// the CPU. Reductions of floating-point data accumulate in float64 with a
// summation whose result does not depend on the number of threads.
type Backend interface {
	// Name returns the backend's name, as XPMPI_BACKEND spells it.
	Name() string
	// Device returns the device where the backend makes new arrays.
	Device() Device

	// Alloc returns a zeroed buffer of n elements.
	Alloc(dt DType, n int) (Buffer, error)
	// Free releases a buffer made by Alloc. Views need not be freed.
	Free(b Buffer)
	// Slice returns a view of elements [lo, hi) of b.
	Slice(b Buffer, lo, hi int) Buffer
	// Synchronize waits until all work queued on the device has finished.
	Synchronize() error

	// CopyFromHost copies len(b) elements from host memory at src into b.
	CopyFromHost(dst Buffer, src unsafe.Pointer) error
	// CopyToHost copies b into host memory at dst.
	CopyToHost(dst unsafe.Pointer, src Buffer) error

	// Fill sets every element of x to v.
	Fill(x Buffer, v Scalar)
	// Copy copies src into dst, two buffers on this backend's device that
	// must not overlap.
	Copy(dst, src Buffer)
	// Scale multiplies x by a in place.
	Scale(x Buffer, a Scalar)
	// Axpy sets y = a*x + y.
	Axpy(a Scalar, x, y Buffer)
	// Axpby sets y = a*x + b*y.
	Axpby(a Scalar, x Buffer, b Scalar, y Buffer)
	// Binary sets dst = x op y elementwise; dst may be x or y.
	Binary(op BinaryOp, dst, x, y Buffer)
	// BinaryScalar sets dst = x op s elementwise; dst may be x.
	BinaryScalar(op BinaryOp, dst, x Buffer, s Scalar)

	// Sum returns the sum of x: a Float64 scalar for floating-point x, an
	// Int64 or Uint64 scalar (wrapping) for integers, a Complex128 scalar
	// for complex x.
	Sum(x Buffer) Scalar
	// Dot returns the sum of x[i]*y[i], typed as Sum's result (complex x
	// is not conjugated).
	Dot(x, y Buffer) Scalar
	// Argmin returns the index of the first smallest element and its value
	// as a Scalar of x's type, or -1 and a zero of x's type for an empty x.
	// A NaN counts as smaller than every number.
	Argmin(x Buffer) (int, Scalar)
	// Argmax returns the index of the first largest element and its value
	// as a Scalar of x's type, or -1 and a zero of x's type for an empty x.
	// A NaN counts as larger than every number.
	Argmax(x Buffer) (int, Scalar)
}

// Stencils are the 5-point stencils of the heat and Poisson solvers on a
// row-major float grid. They are not part of Backend, which holds only
// what every array needs: a backend implements them as an optional
// interface (the CPU backend, the fake device and CUDA do), and
// UseStencils swaps in another implementation for a backend, as gonum's
// blas64.Use swaps BLAS implementations (package kernels' catalog has
// host and CUDA kernels of both). Jacobi5 and Laplace5 of this package
// dispatch to them.
type Stencils interface {
	// Jacobi5 applies one 5-point Jacobi sweep to a rows x cols row-major
	// float grid: for 1 <= i < rows-1 and 1 <= j < cols-1,
	// dst[i][j] = 0.25*(src[i-1][j] + src[i+1][j] + src[i][j-1] + src[i][j+1]).
	// Other elements of dst are left as they are.
	Jacobi5(dst, src Buffer, rows, cols int)
	// Laplace5 applies the 5-point Laplacian (with the sign that makes it
	// positive definite) to a rows x cols row-major float grid: for
	// 1 <= i < rows-1 and 1 <= j < cols-1,
	// dst[i][j] = 4*src[i][j] - src[i-1][j] - src[i+1][j] - src[i][j-1] - src[i][j+1].
	// Other elements of dst are left as they are.
	Laplace5(dst, src Buffer, rows, cols int)
}
