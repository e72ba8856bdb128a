// Package linalg is dense linear algebra on distributed arrays of package
// dist, as numpy.linalg: Outer (numpy.outer), Solve (numpy.linalg.solve,
// LU with partial pivoting), QR (numpy.linalg.qr, by TSQR), Lstsq
// (numpy.linalg.lstsq, for tall matrices of full column rank) and Norm
// (numpy.linalg.norm, with NumPy's ords, along axes).
//
// Every function is collective: all ranks of the arrays' communicator call
// it, in the same order, with arrays of the same global shapes and
// layouts. Each takes every layout of dist (row blocks, uneven blocks,
// columns, replicated, process grids, ghost layers), redistributing where
// its algorithm needs row blocks, and says its communication in its
// documentation. Bad shapes, arrays on different communicators and
// freed arrays (wrapping dist.ErrFreed) are errors, not panics; an exactly
// singular system is a *SingularError (ErrSingular), a rank-deficient
// least-squares problem a *RankError (ErrRankDeficient).
//
// Element types: Solve, QR and Lstsq take float32, float64, complex64 and
// complex128 and compute in the element type, as LAPACK's s, d, c and z
// routines (singular values in float64); Norm takes float32 and float64,
// NormComplex complex64 and complex128; Outer every element type.
//
// The factorizations run on host copies of the blocks (a device block is
// copied, recorded), with gonum's BLAS for the level-3 products: Outer and
// the Norms are dist's own operations and run where the blocks are.
//
// Why not ScaLAPACK: see Solve, and docs/DECISIONS.md.
package linalg
