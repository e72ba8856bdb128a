package mpi

import "github.com/xpmpi/xpmpi/launch"

// Launched reports whether the process was started by an MPI launcher,
// without starting MPI. It is launch.Launched, kept here for callers of
// package mpi; XPMPI_MPI=1 or 0 overrides the launcher variables.
func Launched() bool { return launch.Launched() }

// Launcher returns the name of the variable that shows a launcher started
// the process, or "".
//
// Deprecated: use launch.Variable, or launch.Detect for the launcher itself.
func Launcher() string { return launch.Variable() }

// LocalRank returns the launcher's local rank of this process, before MPI
// starts; after Init, NodeRank gives MPI's own answer.
//
// Deprecated: use launch.LocalRank.
func LocalRank() int { return launch.LocalRank() }

// LocalSize returns the launcher's number of ranks on this node, else 1.
//
// Deprecated: use launch.LocalSize.
func LocalSize() int { return launch.LocalSize() }

// LaunchedSize returns the number of ranks the launcher started, or 0 if
// its variables do not say.
//
// Deprecated: use launch.Size.
func LaunchedSize() int { return launch.Size() }
