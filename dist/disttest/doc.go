// Package disttest is the conformance matrix of package dist (and of
// package fft's transforms of distributed arrays): every operation, on every
// kind of layout, on several small shapes, for the element types the
// operation accepts, on the CPU backend and on the fake device
// (backend/fakedev), at whatever rank count the job has.
//
// A cell of the matrix is one (operation, layout, shape, element type,
// backend). Every rank builds its input from a formula of the global index,
// so that each rank knows the whole input without communicating; it runs the
// operation and compares its own block of the result (or the scalar it
// returned) with the same operation computed serially by the package's own
// reference code: plain Go loops over the global input, never package dist.
// The data are small integers (nonzero, so that quotients and products are
// defined), so that sums, products of integers, comparisons, moves and
// conversions must be exact; the transcendental functions, statistics and
// floating-point products and matrix products are held to a stated relative
// bound (Tolerance).
//
// Where an operation does not support a layout, the matrix says so (the
// expectation of the cell), and the cell is a tested refusal: the call must
// return an error, or panic with a value that the cell recovers, whose
// message names the layout and says what to do; it must never return a
// value. A cell whose operation refuses where the matrix expects a value, or
// returns a value where the matrix expects a refusal, fails.
//
// Every operation also has a freed cell: the call on an array after its Free
// must fail with an error e for which errors.Is(e, dist.ErrFreed) holds (or
// panic with such an error, for the functions that return none), within a
// time limit, so that a hang fails the cell rather than the job.
//
// Run runs the matrix; Cells lists it without running it; SupportPage writes
// the page of docs/SUPPORT.md from it.
package disttest
