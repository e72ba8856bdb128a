package heat

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers"
)

// Config is one run of the 2-D heat equation.
type Config struct {
	N     int // interior points per side, at least 1
	Iters int // Jacobi iterations, 0 or more
	// Progress, if set, is called on rank 0 after each iteration with the
	// number of iterations done.
	Progress func(done int)
	// Gather asks for the final field in Result.Field on rank 0.
	Gather bool
	// Checkpoint, if set, is the directory where the field is saved every
	// Every iterations (0: only at the end) and at the end.
	Checkpoint string
	Every      int
	// Restart, if set, is a checkpoint directory of a run with the same N
	// to continue from: the run then does the iterations from the
	// checkpoint's iteration to Iters. It may be Checkpoint.
	Restart string
	// CheckpointFormat is the format of the checkpoints the run writes:
	// "npy" (the default, also ""), one .npy file per array, or "h5", one
	// HDF5 file (package h5: a binary built with -tags mpi,hdf5; another
	// build refuses it in Check, saying how to build one). Both keep every
	// guarantee of dist.SaveCheckpoint (verified before the commit, the
	// previous checkpoint kept on a failure); a restart reads either
	// format, whatever this says.
	CheckpointFormat string
	// Stoppable makes the run stop on request: after every iteration but
	// the last, every rank asks mpi.StopRequested whether a stop is
	// pending on any rank (a signal given to mpi.NotifyStop, or
	// mpi.RequestStop); if one is, the field is saved to Checkpoint and
	// Solve returns an *mpi.StopError (errors.Is mpi.ErrStopped) on every
	// rank. It needs Checkpoint, and costs one small allreduce per
	// iteration.
	Stoppable bool
	// Grid splits the grid over a 2-D process grid of Dims (rows, then
	// columns) instead of row blocks: each rank holds a rectangle with one
	// ghost index on each side, and every iteration exchanges its faces
	// and corners (dist.ProcessGrid, dist.Ghosts). A zero in Dims lets
	// mpi.DimsCreate choose (Dims {0, 0}: the most balanced grid). The
	// checksum is the row blocks' one, up to the order of summation. A
	// checkpoint holds the global field, whatever the layout: one saved
	// on a grid restarts on row blocks or on another grid, at any number
	// of ranks, and the other way round.
	Grid bool
	Dims [2]int
}

// Result is what a run reports, the same on every rank except Field.
type Result struct {
	Checksum   float64   // sum of u over the N x N interior points
	PerIter    float64   // seconds per iteration, slowest rank (0 if no iteration ran)
	Ranks      int       // ranks in the run
	Field      []float64 // rank 0 with Config.Gather: the N rows of N+2 values (interior and side walls), row-major
	FieldShape []int     // rank 0 with Config.Gather: [N, N+2]
}

// Check returns a *solvers.ConfigError if cfg cannot run, naming the
// field, and nil otherwise. It needs no communication; Solve calls it
// first.
func (cfg Config) Check() error {
	bad := func(field string, value any, reason string) error {
		return &solvers.ConfigError{Solver: "heat", Field: field, Value: value, Reason: reason}
	}
	switch {
	case cfg.N < 1:
		return bad("N", cfg.N, "want at least 1")
	case cfg.N > math.MaxInt-2:
		return &solvers.ConfigError{Solver: "heat", Field: "N", Value: cfg.N,
			Reason: dist.ErrTooLarge.Error() + ": n+2 columns overflow an int", Err: dist.ErrTooLarge}
	case cfg.Iters < 0:
		return bad("Iters", cfg.Iters, "want 0 or more")
	case cfg.Every < 0:
		return bad("Every", cfg.Every, "want a positive number of iterations")
	case cfg.Stoppable && cfg.Checkpoint == "":
		return &solvers.ConfigError{Solver: "heat", Field: "Stoppable", Value: true, Without: "Checkpoint", Reason: "say where to save"}
	case cfg.Every > 0 && cfg.Checkpoint == "":
		return &solvers.ConfigError{Solver: "heat", Field: "Every", Value: cfg.Every, Without: "Checkpoint", Reason: "say where to save"}
	case cfg.CheckpointFormat != "" && cfg.CheckpointFormat != "npy" && cfg.CheckpointFormat != "h5":
		return bad("CheckpointFormat", cfg.CheckpointFormat, "want npy or h5")
	case cfg.CheckpointFormat != "" && cfg.Checkpoint == "":
		return &solvers.ConfigError{Solver: "heat", Field: "CheckpointFormat", Value: cfg.CheckpointFormat, Without: "Checkpoint", Reason: "say where to save"}
	case cfg.CheckpointFormat == "h5" && !h5.Available():
		return &solvers.ConfigError{Solver: "heat", Field: "CheckpointFormat", Value: "h5", Reason: h5.ErrUnavailable.Error(), Err: h5.ErrUnavailable}
	case cfg.Dims[0] < 0 || cfg.Dims[1] < 0:
		return bad("Dims", cfg.Dims, "want 0 (chosen) or more ranks along each axis")
	case cfg.Dims != [2]int{} && !cfg.Grid:
		return &solvers.ConfigError{Solver: "heat", Field: "Dims", Value: cfg.Dims, Without: "Grid", Reason: "a process grid's dimensions go with it"}
	}
	if _, err := dist.ShapeLen([]int{cfg.N, cfg.N + 2}); err != nil {
		return &solvers.ConfigError{Solver: "heat", Field: "N", Value: cfg.N, Reason: err.Error(), Err: err}
	}
	return nil
}

// Solve runs the Jacobi iteration for the 2-D heat equation on an N x N
// interior with fixed boundary values: u = 1 on the top edge, 0 on the
// other three. The grid is a dist array of shape [N, N+2] (columns 0 and
// N+1 are the side walls) whose rows are split into blocks over the ranks
// of comm, with one ghost row on either side (dist.Ghosts(1)); the ghost
// rows beyond the first and last row hold the top and bottom edges
// (dist.FillBoundary). Every iteration exchanges the ghost rows and
// replaces each interior value by the average of its four neighbours
// (dist.Jacobi5) into a second such array, and the two swap roles. The
// grid lives on the current backend. With Config.Grid the array is split
// over a 2-D process grid instead, with one ghost index on each side of
// both axes, and the iteration is the same.
//
// Solve is collective. It refuses a Config that Check refuses, and a grid
// that CheckMemory refuses, before allocating anything; every error is the
// same on every rank.
func Solve(comm mpi.Comm, cfg Config) (Result, error) {
	if err := cfg.Check(); err != nil {
		return Result{}, err
	}
	if err := CheckMemory(comm, cfg.N); err != nil {
		return Result{}, err
	}
	n := cfg.N
	cols := n + 2 // the side walls are columns 0 and n+1
	opts := []dist.Option{dist.Ghosts(1)}
	if cfg.Grid {
		if err := checkDims(cfg.Dims, comm.Size()); err != nil {
			return Result{}, err
		}
		if err := checkGridMemory(comm, n, cfg.Dims); err != nil {
			return Result{}, err
		}
		opts = append(opts, dist.ProcessGrid(cfg.Dims[0], cfg.Dims[1]))
	}
	layout := opts[1:] // without the ghosts: how a restart reads the field
	u, err := dist.Zeros[float64](comm, []int{n, cols}, opts...)
	if err != nil {
		return Result{}, err
	}
	defer func() { u.Free() }()
	v, err := dist.ZerosLike(u)
	if err != nil {
		return Result{}, err
	}
	defer func() { v.Free() }()
	// Every element is written once before the timer starts, so that the
	// iterations do not pay for the first touch of fresh pages (the C
	// reference memsets its grids before its timed loop, too; Go hands a
	// large allocation untouched pages, which the first iterations would
	// fault in).
	dist.Fill(u, 0)
	dist.Fill(v, 0)
	// The top edge is the ghost row above global row 0, which no exchange
	// writes; the walls and the bottom edge stay 0.
	dist.FillBoundary(u, 1, 0)
	dist.FillBoundary(v, 1, 0)
	first := 0
	if cfg.Restart != "" {
		if first, err = restart(comm, cfg, u, layout); err != nil {
			return Result{}, err
		}
	}
	save := func(step int) error {
		meta := map[string]string{"app": checkpointApp, "n": strconv.Itoa(n)}
		if cfg.CheckpointFormat == "h5" {
			return h5.SaveCheckpoint(comm, cfg.Checkpoint, int64(step), meta, h5.CheckpointEntry("u", u))
		}
		return dist.SaveCheckpoint(comm, cfg.Checkpoint, int64(step), meta, dist.Entry("u", u))
	}
	t, err := solvers.StartTimer(comm)
	if err != nil {
		return Result{}, err
	}
	for it := first; it < cfg.Iters; it++ {
		if err := u.Exchange(); err != nil {
			return Result{}, err
		}
		dist.Jacobi5(v, u)
		u, v = v, u
		if cfg.Progress != nil && comm.Rank() == 0 {
			cfg.Progress(it + 1)
		}
		if cfg.Checkpoint != "" && cfg.Every > 0 && (it+1)%cfg.Every == 0 {
			if err := save(it + 1); err != nil {
				return Result{}, err
			}
		}
		if cfg.Stoppable && it+1 < cfg.Iters {
			if err := stopHere(comm, cfg, it+1, save); err != nil {
				return Result{}, err
			}
		}
	}
	if cfg.Checkpoint != "" && (cfg.Every <= 0 || cfg.Iters%cfg.Every != 0) && cfg.Iters > first {
		if err := save(cfg.Iters); err != nil {
			return Result{}, err
		}
	}
	if err := u.Synchronize(); err != nil {
		return Result{}, err
	}
	elapsed, err := t.Stop()
	if err != nil {
		return Result{}, err
	}
	res := Result{Ranks: comm.Size()}
	if cfg.Iters > first {
		res.PerIter = elapsed / float64(cfg.Iters-first)
	}
	// The walls are 0, so the sum of the block is the sum of the interior.
	if res.Checksum, err = dist.SumRepro(u); err != nil {
		return Result{}, err
	}
	if cfg.Gather {
		if res.Field, err = dist.Gather(u, 0); err != nil {
			return Result{}, err
		}
		res.FieldShape = []int{n, cols}
	}
	return res, nil
}

// checkDims returns a *solvers.ConfigError unless a process grid of dims
// (zeros chosen) can have p ranks.
func checkDims(dims [2]int, p int) error {
	fixed := max(dims[0], 1) * max(dims[1], 1)
	if p%fixed != 0 || (dims[0] > 0 && dims[1] > 0 && fixed != p) {
		return &solvers.ConfigError{Solver: "heat", Field: "Dims", Value: dims, Ranks: p, Reason: fmt.Sprintf("no process grid of %d ranks has those dimensions", p)}
	}
	return nil
}

// checkGridMemory is CheckMemory for a process grid of dims (checked by
// checkDims): each rank holds two blocks and two ghosted copies of them
// (dist.Ghosts on a process grid keeps the block apart), float64, with the
// largest block's rows and columns. Every error is the same on every rank.
func checkGridMemory(comm mpi.Comm, n int, dims [2]int) error {
	d, err := mpi.DimsCreate(comm.Size(), 2, []int{dims[0], dims[1]})
	if err != nil {
		return &solvers.ConfigError{Solver: "heat", Field: "Dims", Value: dims, Ranks: comm.Size(), Reason: err.Error()}
	}
	rows := int64((n + d[0] - 1) / d[0])
	cols := int64((n + 2 + d[1] - 1) / d[1])
	// Four ghosted blocks' worth of float64: a little more than it takes.
	need, err := dist.MulBytes(rows+2, cols+2)
	if err == nil {
		need, err = dist.MulBytes(need, 32)
	}
	if err != nil {
		return &solvers.ConfigError{Solver: "heat", Field: "N", Value: n, Ranks: comm.Size(), Reason: err.Error(), Err: err}
	}
	if err := dist.CheckMemory(comm, fmt.Sprintf("heat: N %d on a %d x %d process grid", n, d[0], d[1]), need); err != nil {
		return &solvers.ConfigError{Solver: "heat", Field: "N", Value: n, Ranks: comm.Size(), Reason: err.Error(), Err: err}
	}
	return nil
}

// checkpointApp is the "app" of a checkpoint's metadata: the name the
// command had when the first checkpoints were written, kept so that they
// still load.
const checkpointApp = "heat2d"

// restart loads the field of a heat checkpoint into field, whose layout
// is the row blocks or the process grid of opts, and returns the iteration
// it was saved at. Every failure is the same on every rank.
func restart(comm mpi.Comm, cfg Config, field *dist.Array[float64], opts []dist.Option) (int, error) {
	bad := func(field string, value any, reason string, err error) error {
		return &solvers.ConfigError{Solver: "heat", Field: field, Value: value, Reason: reason, Err: err}
	}
	r, err := dist.OpenCheckpoint(comm, cfg.Restart)
	if err != nil {
		return 0, bad("Restart", cfg.Restart, err.Error(), err)
	}
	m := r.Manifest()
	if m.Meta["app"] != checkpointApp || m.Meta["n"] != strconv.Itoa(cfg.N) {
		return 0, bad("Restart", cfg.Restart, fmt.Sprintf("a checkpoint of %s with n=%s, not of %s with n=%d", m.Meta["app"], m.Meta["n"], checkpointApp, cfg.N), nil)
	}
	if m.Step > int64(cfg.Iters) {
		return 0, bad("Iters", cfg.Iters, fmt.Sprintf("the checkpoint %s is already at iteration %d", cfg.Restart, m.Step), nil)
	}
	// A checkpoint whose metadata says heat2d and n but whose field has
	// another shape (written by another program, or damaged consistently):
	// both shapes, not the blocks of this run's layout.
	var shape []int
	if info, ok := m.Array("u"); ok {
		shape = info.Shape
	} else if h5.IsCheckpoint(m) {
		shape, _ = h5.CheckpointShape(m, "u")
	}
	if shape != nil && !slices.Equal(shape, field.Layout().Shape()) {
		return 0, bad("Restart", cfg.Restart, fmt.Sprintf("the checkpoint's field u has shape %v, and a run with n=%d needs shape %v", shape, cfg.N, field.Layout().Shape()), nil)
	}
	if len(opts) == 0 {
		opts = []dist.Option{dist.BlockSizes(field.Layout().Counts())}
	}
	var u *dist.Array[float64]
	if h5.IsCheckpoint(m) {
		// An HDF5 checkpoint (CheckpointFormat "h5"), whatever this run
		// writes.
		u, err = h5.LoadCheckpointArray[float64](comm, r, "u", opts...)
	} else {
		u, err = dist.LoadArray[float64](r, "u", opts...)
	}
	if err != nil {
		return 0, bad("Restart", cfg.Restart, err.Error(), err)
	}
	defer u.Free()
	dist.Copy(field, u)
	return int(m.Step), nil
}
