package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

func newRunCmd(world mpi.Comm) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run <example>",
		Short: "Run a distributed example job",
		Long: `run starts one of the distributed example jobs on every rank:

  heat2d   2-D heat equation by Jacobi iteration on row blocks with halo exchange
  cg       2-D Poisson equation by conjugate gradients (matrix-free Laplacian)`,
	}
	var timeout time.Duration
	cmd.PersistentFlags().DurationVar(&timeout, "timeout", 0, "abort the job, naming the collective each rank is in, if it runs longer than this (0: no limit)")
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
		if timeout < 0 {
			return fmt.Errorf("--timeout %v: want a positive duration (0 or unset: no limit)", timeout)
		}
		if timeout > 0 {
			// The watchdog lives until the process ends.
			_, err := mpi.StartWatchdog(world, timeout)
			return err
		}
		return nil
	}
	cmd.AddCommand(newHeat2DCmd(world), newCGCmd(world))
	return cmd
}

func newHeat2DCmd(world mpi.Comm) *cobra.Command {
	var (
		cfg     heatConfig
		be, png string
		quiet   bool
	)
	cmd := &cobra.Command{
		Use:   "heat2d",
		Short: "2-D heat equation (Jacobi iteration) on a row-block distributed grid",
		Long: `heat2d solves the 2-D heat equation on an n x n interior grid by the plain
5-point Jacobi update (each interior value becomes the average of its four
neighbours), with u = 1 on the top edge and 0 on the other three, starting
from 0. The rows are split into blocks over the ranks, and every iteration
exchanges one ghost row with each neighbour.

It prints progress on rank 0, then the checksum (the sum of u over the
interior, 16 significant digits), the time per iteration and the rank count.
The checksum is the same at any rank count.`,
		Example: `  mpirun -np 2 xpmpi run heat2d --n 2048 --iters 200
  xpmpi run heat2d --n 256 --iters 1000 --png heat.png
  mpirun -np 3 xpmpi run heat2d --iters 100 --checkpoint ck --every 50
  mpirun -np 2 xpmpi run heat2d --iters 200 --restart ck`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("every") && cfg.Every <= 0 {
				return fmt.Errorf("heat2d: --every %d: want a positive number of iterations", cfg.Every)
			}
			if err := checkHeatConfig(cfg); err != nil {
				return err
			}
			if err := checkHeatMemory(world, cfg.N); err != nil {
				return err
			}
			if be != "" {
				if err := backend.SelectStrict(be); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			if !quiet && world.Rank() == 0 {
				cfg.Progress = newProgress(out, cfg.Iters)
			}
			cfg.Gather = png != ""
			fmt.Fprintf(out, "heat2d: %d x %d interior, %d iterations, %d ranks, backend %s\n", cfg.N, cfg.N, cfg.Iters, world.Size(), backend.Current().Name())
			res, err := solveHeat(world, cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "checksum %.16g\n", res.Checksum)
			fmt.Fprintf(out, "time per iteration %.6g ms\n", res.PerIter*1e3)
			fmt.Fprintf(out, "ranks %d\n", res.Ranks)
			if png != "" && world.Rank() == 0 {
				if err := writeHeatPNG(png, res.Field, res.FieldShape); err != nil {
					return err
				}
				fmt.Fprintf(out, "wrote %s\n", png)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.N, "n", 2048, "interior points per side")
	f.IntVar(&cfg.Iters, "iters", 200, "Jacobi iterations")
	f.StringVar(&be, "backend", "", "backend for the grid: cpu or cuda (default: XPMPI_BACKEND, else cpu)")
	f.StringVar(&png, "png", "", "write a picture of the final field to this PNG file")
	f.BoolVar(&quiet, "quiet", false, "print no progress")
	f.StringVar(&cfg.Checkpoint, "checkpoint", "", "save the field to this checkpoint directory every --every iterations and at the end")
	f.IntVar(&cfg.Every, "every", 0, "iterations between checkpoints, with --checkpoint (unset: only at the end)")
	f.StringVar(&cfg.Restart, "restart", "", "continue from this checkpoint directory (any rank count), up to --iters")
	return cmd
}

// newProgress returns a progress reporter: a bar redrawn in place on a
// terminal, plain lines at every tenth otherwise.
func newProgress(w io.Writer, total int) func(int) {
	tty := false
	if f, ok := w.(*os.File); ok {
		// Under a launcher the output is forwarded (often through a
		// terminal-like device even when it ends in a file): plain lines.
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 && !mpi.Launched() {
			tty = true
		}
	}
	start := time.Now()
	last := -1
	return func(done int) {
		if total == 0 {
			return
		}
		pct := done * 100 / total
		if tty {
			if pct == last && done != total {
				return
			}
			last = pct
			const width = 40
			k := done * width / total
			fmt.Fprintf(w, "\r[%s%s] %3d%% %d/%d %.1fs", strings.Repeat("#", k), strings.Repeat(".", width-k), pct, done, total, time.Since(start).Seconds())
			if done == total {
				fmt.Fprintln(w)
			}
			return
		}
		if step := pct / 10; step != last && (pct%10 == 0 || done == total) {
			last = step
			fmt.Fprintf(w, "iteration %d/%d (%d%%) %.1fs\n", done, total, pct, time.Since(start).Seconds())
		}
	}
}
