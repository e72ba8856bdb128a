package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/mpi"
)

func newModelCmd(world mpi.Comm) *cobra.Command {
	var small bool
	var reps int
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Fit the scaling model to this machine and predict W3 and W4 to 1,024 ranks",
		Long: `model measures what docs/SCALING.md's latency-bandwidth model needs, at
the rank count it was launched with: one-way message times between ranks 0
and 1 from 8 bytes to 4 MiB (fitted to alpha + beta*bytes), the 8-byte
allreduce, and the compute cost per point of a Jacobi sweep and of a CG
iteration with every rank sweeping its block at once. It then runs W3
(Jacobi) and W4 (CG) themselves and prints the model's prediction for this
machine beside the measured time per iteration, and the model's strong and
weak scaling of W3 (row blocks and a 2-D process grid) and W4 (CG and
pipelined CG) to 1,024 ranks on 64-core nodes linked by HDR InfiniBand,
with the measured compute costs and this machine's link inside a node.

Run it at 2 ranks or more (the ping-pong needs two), with every core busy
for the compute costs to be a full node's:

  mpirun -np 2 xpmpi model`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var progress io.Writer
			if world.Rank() == 0 {
				progress = cmd.ErrOrStderr()
			}
			cal, err := bench.Calibrate(world, bench.CalibrateOptions{Small: small, Reps: reps, Progress: progress})
			if err != nil {
				return err
			}
			if world.Rank() != 0 {
				return nil
			}
			out := cmd.OutOrStdout()
			if err := cal.WriteText(out); err != nil {
				return err
			}
			if cal.Ranks < 2 {
				fmt.Fprintln(out, "\nno link was measured at 1 rank: run at 2 ranks or more for the scaling tables")
				return nil
			}
			m := bench.Model{Machine: bench.HDR(cal.Link), Costs: cal.Costs}
			fmt.Fprintf(out, "\nmodel of %s\ninter-node link: alpha %.3g us, %.3g GB/s (%s)\n\n",
				m.Machine.Name, m.Machine.Inter.Alpha*1e6, m.Machine.Inter.GBs(), m.Machine.Source)
			w3n, w4n := cal.Checks[0].N, cal.Checks[1].N
			if err := m.WriteScaling(out, bench.ScalingRanks(), w3n, w4n); err != nil {
				return err
			}
			ps := bench.ScalingRanks()
			say := func(what string, p int) {
				if p == 0 {
					fmt.Fprintf(out, "%s: communication stays below compute to %d ranks\n", what, ps[len(ps)-1])
				} else {
					fmt.Fprintf(out, "%s: communication reaches compute at %d ranks\n", what, p)
				}
			}
			fmt.Fprintln(out)
			say("W3 strong, row blocks", bench.Crossover(ps, func(p int) bench.Prediction { return m.Jacobi(p, w3n, false) }))
			say("W3 strong, 2-D grid", bench.Crossover(ps, func(p int) bench.Prediction { return m.Jacobi(p, w3n, true) }))
			say("W4 strong, CG", bench.Crossover(ps, func(p int) bench.Prediction { return m.CG(p, w4n, false) }))
			say("W4 strong, pipelined CG", bench.Crossover(ps, func(p int) bench.Prediction { return m.CG(p, w4n, true) }))
			return nil
		},
	}
	cmd.Flags().BoolVar(&small, "small", false, "use --small's workload sizes (about 1/64 of the work)")
	cmd.Flags().IntVar(&reps, "reps", 3, "repetitions of each measurement (the median is used)")
	return cmd
}
