// Package dist holds xpmpi's distributed arrays: an N-dimensional Array[T]
// whose global shape is divided among the ranks of an MPI communicator by a
// Layout, each rank holding one block on its backend (CPU or CUDA).
//
// A layout splits one axis (the default) or several over a process grid,
// or replicates the array. Split on one axis, blocks are contiguous and in
// rank order: for n indices over p ranks, the first n%p ranks hold n/p+1
// and the others n/p. A rank with no elements is legal everywhere. On a
// process grid, as PETSc's DMDA has (NewGridLayout, NewGridLayoutCounts,
// or the ProcessGrid and GridBlockSizes options; ProcessGrid(0, 0) lets
// mpi.DimsCreate choose the grid), ranks are in row-major order over the
// grid, each holding one box of the global index space (Layout.Block,
// Layout.Coords, Layout.Neighbor), and the layout's Axis is Grid.
// Creation, elementwise operations, reductions, Get/Set, Gather/Scatter,
// Save/Load and Redistribute work on grids; axis reductions redistribute
// first; Sort and Halo refuse them.
//
// Creation (Zeros, Full, Arange, Linspace, FromFunc, Scatter, FromLocal),
// elementwise operations (Add, Mul, AddScalar, Axpy, Axpby, Map, ...),
// reductions over all elements or along one axis (Sum, Dot, Norm, Min, Max,
// Argmin, Argmax, SumAxis, ...), Gather and Allgather, and redistribution
// (Redistribute, Resplit, between any two layouts) are collective: every
// rank of the communicator calls them, in the same order, with arrays of
// the same layout. Elementwise operations need no communication; the
// reductions agree on one result on every rank. SumRepro, DotRepro and
// NormRepro give the same bits at any rank count, layout and thread count,
// at about Sum's cost, by binned summation (error at most n·2^-50·max|x|
// plus half an ulp); SumExact, DotExact and NormExact do too, correctly
// rounded and about 34 times slower.
//
// Element types are float32, float64, int8, int16, int32, int64, uint8,
// uint16, uint32 and uint64 (backend.Element, the ordered types), and
// complex64 and complex128 (backend.Numeric adds them). Complex arrays take
// creation, moves and Redistribute, elementwise arithmetic, Sum, Dot (no
// conjugation), Vdot, Norm, ProdComplex, MeanComplex, Conj, Real, Imag,
// AbsComplex and Angle (real results), and Exp, Log, Sqrt, Pow and
// PowScalar (math/cmplx, with NumPy's special values where they differ),
// Where and Compact, Cumsum and Cumprod, SumAxis, DotAxis, ProdAxis,
// MeanAxisComplex and NormAxisComplex, and MatMul, MatMulInto and MatVec
// (complex GEMM);
// ordered operations (comparisons, Min, Max, their axis forms, Sort) take
// the real types only, as NumPy's lexicographic order of complex numbers
// is not followed, and Astype from complex to real needs DiscardImag. Masks are uint8 arrays holding 0 and 1. The
// comparisons (Less, ..., NotEqual, and their Scalar forms) make them, with
// NumPy's NaN rule, Where selects by them, and Compact gathers the
// selected elements into a new evenly split 1-D array. Astype converts
// between element types on the array's device; Load converts a file of
// another element type only when given Convert.
//
// Elementwise math: Exp, Log, Sqrt, Sin, Cos, Tanh, Floor, Pow, PowScalar
// (float32, float64), Abs and Clip (every element type) follow NumPy's
// results, special values included (log(0) = -Inf, sqrt(-1) = NaN,
// pow(0, -1) = +Inf, exp(1000) = +Inf, Clip of NaN = NaN, lo > hi gives
// hi); they run on the block's device through backend.Math and are not
// collective. Accuracy bounds against NumPy are in math.go.
//
// RunFused runs a fused expression of package kernels/fuse (outputs and
// Sum, Dot, ReduceMax and ReduceMin reductions) on the blocks of arrays of
// one layout, in one pass on their device with no copy to the host, and
// combines the reductions over the ranks: sums by an allreduce as Sum does
// (the same bits at a given rank count; SumRepro and DotRepro for any rank
// count), maxima and minima exactly, empty blocks contributing the
// identity. It is collective; Map, by contrast, runs a Go function on the
// host, copying device blocks there and back.
//
// Statistics (Mean, Var, Std, Prod, Any, All, Histogram, HistogramAuto,
// MeanAxis, VarAxis, StdAxis) follow NumPy's definitions and give every
// rank the same bits: each rank's partial results are gathered and
// combined in rank order (variances by Chan's formula, stable for a large
// mean). Cumsum and Cumprod along any axis return an array of the same
// layout; along the split axis each rank starts from an exclusive scan of
// the earlier ranks' block totals.
//
// Slicing by global index ranges (Slice, SetSlice, SetSliceScalar, with
// NumPy's start:stop:step rules as Range), Reshape, Transpose (with
// NumPy's axes) and Concatenate along any axis move elements in one
// all-to-all of the parts each rank needs, packed on the device for device
// blocks, on every layout, process grids included; Broadcast applies an
// elementwise operation with an operand broadcast by NumPy's rules (a row
// vector, a column, a scalar-shaped array), without communication where
// that operand is replicated, and otherwise after one all-to-all of the
// part each rank meets.
//
// Indexing (Take, TakeFlat, FillWhere, AssignWhere, Place, Roll,
// RollAxes, RollFlat, Flip, Tile, Repeat, RepeatFlat, Pad, PadConstant,
// Diff) follows NumPy on every layout, process grids included: Take's
// indices are a distributed integer array answered by an all-to-all of
// requests and replies, mask assignment ranks the selected elements by a
// distributed prefix count, and the others move each block's parts, by
// an index map per axis, in one all-to-all. A result of the input's shape
// has its layout; a new shape keeps its kind (see each function).
//
// MatMul multiplies 2-D arrays (a split by rows or replicated; b
// replicated, or split, its blocks passed around a ring of the ranks or
// allgathered: MatMulWithOptions; or a and b on one 2-D process grid, by
// SUMMA, panels broadcast along the grid's rows and columns), MatMulInto
// writes the product into an existing array, and MatVec multiplies by a
// vector, on the arrays' device where the backend implements
// backend.GEMM, else on recorded host copies. Package fft transforms
// complex128 arrays: along a local axis, and over several axes of split
// arrays by the slab and pencil methods (local FFTs on the array's device
// where its backend is a backend.FFTer, as the CPU backend, the fake
// device and CUDA are, and Redistribute).
//
// Arrays with ghost layers (the Ghosts, Periodic and PeriodicAxes options)
// along split axis 0, or along every axis on a process grid, fill them with
// Exchange, or Start and Finish to overlap the exchange with work;
// FillBoundary sets the ghosts outside the array. On axis 0 the block is a
// view inside the ghosted storage; on a grid it is a separate array that
// Exchange copies in before filling faces, edges and corners. Stencils read
// the ghosts and write the owned block: Jacobi5, Laplace5, Laplace5Dot
// (Laplace5 with this rank's src.dst, in the same pass where the backend's
// stencils have backend.StencilDots), Stencil9 (2-D),
// Stencil7 (3-D) and ApplyStencil (a kernel of the caller's), with the same
// results on row blocks and grids; they do not communicate, so exchange
// first. Halo is the older ghosted block for an array split along a later
// axis.
//
// Random arrays (Uniform, Normal, UniformInts) draw element g from
// (seed, stream g, draw), so they are the same bit for bit at any rank
// count and on any layout. On a device whose backend is a
// backend.RandomFiller (the fake device, CUDA) the blocks are filled on the
// device, with no copy; normal deviates on CUDA agree with the host's to
// about 1e-14. Sort, SortWithIndex and SortWithOptions sort 1-D
// arrays with a sample sort and return the even block layout; SortInto
// writes that result into an existing array, or sorts an array in place
// (SortInto(x, x)).
//
// Save and Load write and read NumPy .npy files, each rank its own block
// (pread and pwrite on one node, MPI-IO across nodes under -tags mpi), and
// load on any number of ranks and any layout (with MPI-IO, every rank reads
// its own block of any layout in one collective read through a file view); LoadInto reads into an
// existing array. SaveCheckpoint writes several arrays, a manifest and
// CRC-32C checksums under a temporary name and renames it into place, so a
// crash leaves the previous checkpoint loadable; OpenCheckpoint and
// LoadArray verify everything they read.
//
// Axes and indices are read as NumPy reads them where a user types them:
// a negative axis counts from the end (-1 is the last) in the axis
// reductions (SumAxis, ..., MeanAxis, VarAxis, StdAxis), Cumsum, Cumprod,
// Concatenate and package fft's transforms, and a negative index in Get
// and Set counts from the end of its dimension; an axis or index out of
// range panics, naming the function and the valid range. The axis of a
// layout (SplitAxis, Resplit, NewLayout, NewLayoutCounts) is the
// exception: there -1 is Replicated and -2 Grid.
//
// dist differs from NumPy where a distributed array or Go makes it so:
//   - Slice returns a copy, not a view: a view of a strided part of blocks
//     on several ranks would be an array of no layout. SetSlice and
//     SetSliceScalar write into the original.
//   - Arithmetic is in one element type: no type promotion (Astype
//     converts), and integer sums, products, Cumsum and Cumprod wrap in
//     the array's type where NumPy widens int32 and uint32 to 64 bits.
//   - Integer division (Div, DivScalar) truncates toward zero, as Go's /
//     does, where NumPy's // floors (-7 / 2 is -3 here, -7 // 2 is -4 in
//     NumPy); integer division by zero panics where NumPy gives 0 with a
//     warning.
//   - Floating-point sums are taken in float64 in the order of the data
//     and combined across ranks in rank order, not pairwise in the
//     array's type; results can differ from NumPy's in the last bits
//     (SumExact and SumRepro give the correctly rounded and reproducible
//     sums).
//   - Masks are uint8 arrays of 0 and 1 (NumPy's bool storage), and
//     MeanAxis returns float64 for every real type (MeanAxisComplex keeps
//     a complex type).
//   - Broadcasting (Broadcast) takes operands whose shapes broadcast to
//     the result's shape (as NumPy's out= argument), not any two shapes.
//
// An array's memory is released by Free, which is per rank: every rank
// frees its own block, and an array must be freed on every rank or on
// none. Any use of a freed array (by the functions and methods of the
// package but the accessors Comm, Layout, Shape, Len, LocalShape, Range,
// Device, String, Freed, Ghosts, IsPeriodic, GhostedShape, Local and
// Ghosted, and but SaveCheckpoint, which panics on the block's first
// read) fails at once, before any communication, with an error
// wrapping ErrFreed that names the operation; a function that returns no
// error (Add, Fill, Axpy, SetSliceScalar, Jacobi5, ...) panics with that
// error as its value, so that errors.Is(recover().(error), ErrFreed)
// holds. Free of a freed array does nothing. The block a freed array's
// Local returns is a freed backend.Array, which package backend and a
// kernel launch (package kernels) refuse in the same way. An array freed
// on some ranks only and used on all is a program error: the others would
// wait in the operation's communication for the ranks that returned; in
// checking mode (XPMPI_CHECK=1, mpi.SetChecking) the ranks whose array is
// freed join the check of the collective call, so that every rank gets an
// error instead (a *mpi.MismatchError on the others) for the operations
// whose first communication is that check (the reductions, Get, Set,
// Gather, Allgather, Redistribute, Slice, the axis reductions, ...).
//
// Blocks on a device go to MPI through package staging (ghost exchange,
// Gather, Scatter, Redistribute, slicing, Sort, MatMul's ring): MPI gets
// the device memory when it is CUDA-aware, and pinned host copies
// otherwise.
//
// A device reports a fault late, as CUDA does (backend.ErrDevice): the
// kernel that faulted was queued long before. A device fault is recorded
// and returned at the next call that communicates an agreement or reads
// back, on every rank, as an error wrapping backend.ErrDevice (the
// faulting rank's error wraps the driver's too); no rank panics, or
// returns, while the others wait for it. The reductions (Sum, Dot, Norm,
// Mean, Var, Prod, Any, All, Histogram, Min, Max, Argmin, Argmax, the
// Exact and Repro forms), the axis reductions along the split axis
// (SumAxis, ProdAxis, MinAxis, MeanAxis, VarAxis, ...), Gather,
// Allgather, Get and the order operations (Sort, Unique, Argsort,
// Searchsorted, Median, Quantile, ...) agree on the outcome of their
// local step before they communicate its data: in the message that
// agrees on their result where they have one (a failure count beside
// Sum's value), else in one small allreduce. The ghost exchange, run at
// every iteration of a solver, adds no message: a rank whose device
// faulted sends zeros for what it could not read, drops what it could
// not write, returns no error, and records the fault, which the next call
// that agrees (the solver's Dot or Norm, say) returns on every rank, and
// then forgets. Elementwise operations (Add, Axpy, Fill, ...) queue work
// and do not check: their fault is the device's, reported by the next
// call that waits for it. An operation that does not communicate (an
// axis reduction along an axis that is not split, one on a replicated
// array) reports a fault on its rank alone, or leaves it to the next call
// that agrees.
//
// A program runs the same on one process (the default build's stand-in
// communicator) and under mpirun (built with -tags mpi):
//
//	func main() { os.Exit(mpi.Main(run)) }
//
//	func run(world mpi.Comm) error {
//		x, err := dist.Linspace(world, 0.0, 1.0, 1000)
//		...
//	}
package dist
