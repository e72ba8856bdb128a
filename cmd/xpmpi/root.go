package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/mpi"
)

// newRoot returns the command tree. Output meant once per job goes to
// rank 0's standard output only.
func newRoot(world mpi.Comm) *cobra.Command {
	root := &cobra.Command{
		Use:   "xpmpi",
		Short: "MPI-first distributed arrays for Go: jobs and diagnostics",
		Long: `xpmpi runs distributed array jobs and diagnostics on one process or under
mpirun. Build with -tags mpi for several ranks:

  go build -tags mpi -o bin/xpmpi ./cmd/xpmpi
  mpirun -np 4 bin/xpmpi info`,
		SilenceUsage:  true,
		SilenceErrors: true, // Main prints errors with the rank
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			// info and doctor report the environment rather than refuse it.
			switch cmd.Name() {
			case "info", "doctor", "help":
				return nil
			}
			return checkEnv()
		},
	}
	if world.Rank() != 0 {
		// Help and usage once per job, not once per rank.
		root.SetOut(io.Discard)
	} else {
		root.SetOut(os.Stdout)
	}
	root.SetErr(os.Stderr)
	root.AddCommand(newInfoCmd(world), newRunCmd(world), newSelftestCmd(world), newDoctorCmd(world), newBenchCmd(world))
	return root
}
