// Package dtype is the one list of the project's element types: the type
// sets that generic code is written over (Element, Complex, Numeric, Float,
// Inexact) and DType, which names an element type at run time.
//
// It is a leaf, imported by both package backend (which re-exports every
// name: backend.DType is dtype.DType) and package mpi (whose Datatype
// follows from it), so that the MPI binding does not depend on the
// backends.
package dtype
