// Package dist holds xpmpi's distributed arrays: an N-dimensional Array[T]
// whose global shape is divided among the ranks of an MPI communicator by a
// Layout, each rank holding one contiguous block of the split axis on its
// backend (CPU or CUDA).
//
// Blocks are contiguous and in rank order: for n indices over p ranks, the
// first n%p ranks hold n/p+1 and the others n/p. A rank with no elements is
// legal everywhere. An array can also be replicated: every rank holds all of
// it.
//
// Creation (Zeros, Full, Arange, Linspace, FromFunc, Scatter), elementwise
// operations (Add, Mul, AddScalar, Axpy, Map, ...), reductions over all
// elements or along one axis (Sum, Dot, Norm, Min, Max, Argmin, Argmax,
// SumAxis, ...), Gather and Allgather, halo exchange (Halo) and
// redistribution (Redistribute, Resplit) are collective: every rank of the
// communicator calls them, in the same order, with arrays of the same
// layout. Elementwise operations need no communication; the reductions
// agree on one result on every rank.
//
// Random arrays (Uniform, Normal, UniformInts) draw element g from
// (seed, stream g, draw), so they are the same bit for bit at any rank
// count and on any layout. Sort, SortWithIndex and SortWithOptions sort 1-D
// arrays with a sample sort and return the even block layout.
//
// Save and Load write and read NumPy .npy files, each rank its own block
// (MPI-IO under -tags mpi), and load on any number of ranks and any split
// axis. SaveCheckpoint writes several arrays, a manifest and CRC-32C
// checksums under a temporary name and renames it into place, so a crash
// leaves the previous checkpoint loadable; OpenCheckpoint and LoadArray
// verify everything they read.
//
// Halo blocks on a device exchange through package staging: MPI gets the
// device memory when it is CUDA-aware, and pinned host copies otherwise.
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
