package main

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers"
	"github.com/xpmpi/xpmpi/solvers/heat"
)

// heatFlags names heat.Config's fields after `xpmpi run heat2d`'s flags.
var heatFlags = map[string]string{
	"N":          "--n",
	"Iters":      "--iters",
	"Every":      "--every",
	"Checkpoint": "--checkpoint",
	"Restart":    "--restart",
	"Grid":       "--grid",
	"Dims":       "--dims",
	// CheckpointFormat: "h5" needs a binary built with -tags mpi,hdf5.
	"CheckpointFormat": "--checkpoint-format",
}

// heatReport is what `xpmpi run heat2d` prints on rank 0, as text or, with
// --json, as one JSON object.
type heatReport struct {
	N       int     `json:"n"`
	Iters   int     `json:"iters"`
	Ranks   int     `json:"ranks"`
	Backend string  `json:"backend"`
	Sum     float64 `json:"checksum"`
	PerIter float64 `json:"time_per_iteration_ms"`
	PNG     string  `json:"png,omitempty"`  // the picture written, if any
	Grid    bool    `json:"grid,omitempty"` // on a 2-D process grid (--grid)
}

func newHeat2DCmd(world mpi.Comm) *cobra.Command {
	var (
		cfg     heat.Config
		be, png string
		asJSON  bool
		dims    []int
	)
	cmd := &cobra.Command{
		Use:   "heat2d",
		Short: "2-D heat equation (Jacobi iteration) on a row-block distributed grid",
		Long: `heat2d solves the 2-D heat equation on an n x n interior grid by the plain
5-point Jacobi update (each interior value becomes the average of its four
neighbours), with u = 1 on the top edge and 0 on the other three, starting
from 0. The rows are split into blocks over the ranks, and every iteration
exchanges one ghost row with each neighbour. With --grid the grid is split
over a 2-D process grid instead (--dims rows,cols; a 0 is chosen, as
MPI_Dims_create does), and every iteration exchanges the faces and corners
of each rank's rectangle; the checksum is the same. A checkpoint holds the
whole field: one saved with --grid restarts without it, or on another grid,
and the other way round. --checkpoint-format h5 writes it as one HDF5 file
(checkpoint.h5 in the directory, which h5py reads) instead of .npy files,
with the same guarantees; it needs a binary built with -tags mpi,hdf5
(docs/FORMATS.md), and other builds refuse it before the run. --restart
reads either format.

It prints on standard output (rank 0) the grid, iterations, rank count and
backend, then the checksum (the sum of u over the interior, 16 significant
digits), the time per iteration and the rank count; --json prints the same
as one JSON object. The checksum is the same at any rank count. Progress
goes to standard error (--quiet: none). Every flag, and that the --png
file's directory is writable, is checked before the run starts.

With --checkpoint, SIGTERM and SIGUSR1 stop the run instead of killing it:
the rank that gets one (any rank) tells the others at the end of the
iteration, they save the field to the checkpoint directory, and the job
exits with code 75 (EX_TEMPFAIL), which Slurm's RequeueExit=75 requeues;
--restart with the same directory goes on from there to the same checksum.
Slurm sends SIGTERM at the time limit and on preemption, and SIGUSR1 with
sbatch --signal=USR1@SECONDS (see docs/CLUSTER.md).`,
		Example: `  mpirun -np 2 xpmpi run heat2d --n 2048 --iters 200
  xpmpi run heat2d --n 256 --iters 1000 --png heat.png
  mpirun -np 3 xpmpi run heat2d --iters 100 --checkpoint ck --every 50
  mpirun -np 2 xpmpi run heat2d --iters 200 --restart ck
  mpirun -np 3 xpmpi run heat2d --iters 100 --checkpoint ck5 --checkpoint-format h5
  sbatch --signal=USR1@60 job.sh   # job.sh: mpirun xpmpi run heat2d --checkpoint ck ...
  xpmpi run heat2d --json > result.json
  mpirun -np 4 xpmpi run heat2d --grid
  mpirun -np 4 xpmpi run heat2d --grid --dims 1,4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("every") && cfg.Every <= 0 {
				return fmt.Errorf("heat2d: --every %d: want a positive number of iterations", cfg.Every)
			}
			if cmd.Flags().Changed("dims") {
				if len(dims) != 2 {
					return fmt.Errorf("heat2d: --dims %v: want two numbers, rows,cols", dims)
				}
				cfg.Dims = [2]int{dims[0], dims[1]}
			}
			if err := cfg.Check(); err != nil {
				return solverError("heat2d", heatFlags, err)
			}
			if png != "" {
				// Rank 0 writes the picture; every rank returns its verdict.
				if err := solvers.OnRoot(world, func() error { return checkWritable("--png", png) }); err != nil {
					return fmt.Errorf("heat2d: %w", err)
				}
			}
			if err := heat.CheckMemory(world, cfg.N); err != nil {
				return solverError("heat2d", heatFlags, err)
			}
			be, err := solvers.SelectBackend(be)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			rep := heatReport{N: cfg.N, Iters: cfg.Iters, Ranks: world.Size(), Backend: be, Grid: cfg.Grid}
			if world.Rank() == 0 && slog.Default().Enabled(cmd.Context(), slog.LevelInfo) {
				cfg.Progress = newProgress(cmd.ErrOrStderr(), cfg.Iters)
			}
			cfg.Gather = png != ""
			if !asJSON {
				grid := ""
				if cfg.Grid {
					grid = " on a 2-D process grid"
				}
				fmt.Fprintf(out, "heat2d: %d x %d interior, %d iterations, %d ranks%s, backend %s\n", rep.N, rep.N, rep.Iters, rep.Ranks, grid, rep.Backend)
			}
			if cfg.Checkpoint != "" {
				stopOnSignals(&cfg)
			}
			slog.Debug("heat2d: start", "n", cfg.N, "iters", cfg.Iters, "checkpoint", cfg.Checkpoint, "format", cfg.CheckpointFormat, "restart", cfg.Restart)
			res, err := heat.Solve(world, cfg)
			if err != nil {
				return solverError("heat2d", heatFlags, err)
			}
			rep.Sum, rep.PerIter, rep.Ranks = res.Checksum, res.PerIter*1e3, res.Ranks
			if png != "" && world.Rank() == 0 {
				if err := writeHeatPNG(png, res.Field, res.FieldShape); err != nil {
					return err
				}
				rep.PNG = png
			}
			if asJSON {
				return writeJSON(out, rep)
			}
			fmt.Fprintf(out, "checksum %.16g\n", rep.Sum)
			fmt.Fprintf(out, "time per iteration %.6g ms\n", rep.PerIter)
			fmt.Fprintf(out, "ranks %d\n", rep.Ranks)
			if rep.PNG != "" {
				fmt.Fprintf(out, "wrote %s\n", rep.PNG)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.N, "n", 2048, "interior points per side")
	f.IntVar(&cfg.Iters, "iters", 200, "Jacobi iterations")
	f.StringVar(&be, "backend", "", "backend for the grid: cpu or cuda (default: XPMPI_BACKEND, else cpu)")
	f.StringVar(&png, "png", "", "write a picture of the final field to this PNG file")
	f.StringVar(&cfg.Checkpoint, "checkpoint", "", "save the field to this checkpoint directory every --every iterations and at the end")
	f.StringVar(&cfg.CheckpointFormat, "checkpoint-format", "", "format of the checkpoints: npy (default) or h5 (HDF5; a build with -tags mpi,hdf5)")
	f.IntVar(&cfg.Every, "every", 0, "iterations between checkpoints, with --checkpoint (unset: only at the end)")
	f.StringVar(&cfg.Restart, "restart", "", "continue from this checkpoint directory (any rank count), up to --iters")
	f.BoolVar(&cfg.Grid, "grid", false, "split the grid over a 2-D process grid instead of row blocks")
	f.IntSliceVar(&dims, "dims", nil, "process grid rows,cols with --grid (0: chosen; default 0,0)")
	f.BoolVar(&asJSON, "json", false, "print the result as one JSON object (rank 0)")
	completeBackend(cmd)
	cmd.MarkFlagFilename("png", "png")
	cmd.MarkFlagDirname("checkpoint")
	cmd.MarkFlagDirname("restart")
	cmd.RegisterFlagCompletionFunc("checkpoint-format", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return []cobra.Completion{"npy\t.npy files (every build)", "h5\tone HDF5 file (-tags mpi,hdf5)"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}
