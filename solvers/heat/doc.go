// Package heat solves the 2-D heat equation on a grid distributed by row
// blocks over the ranks of a communicator: the plain 5-point Jacobi update
// on an N x N interior with u = 1 on the top edge and 0 on the other three,
// starting from 0, with one ghost row exchanged with each neighbour per
// iteration: two dist arrays with ghost layers (dist.Ghosts), dist's
// exchange and its Jacobi5 stencil. It is what `xpmpi run heat2d` runs.
//
// Solve is collective: every rank calls it with the same Config and gets
// the same Result (the gathered field only on rank 0). The checksum, the
// sum of u over the interior, is the same at any rank count up to rounding
// in the last digits.
//
// A run can save the field to a checkpoint directory (Config.Checkpoint,
// every Config.Every iterations and at the end) and continue from one
// (Config.Restart) at any rank count. A Config that cannot run is refused
// before anything is allocated with a *solvers.ConfigError naming the
// field; a grid that does not fit in the memory of the ranks' nodes is
// refused with the rank count at which it would (CheckMemory).
package heat
