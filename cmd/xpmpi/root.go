package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/mpi"
)

// newRoot returns the command tree. Output meant once per job goes to
// rank 0's standard output only; messages (progress, warnings, debug
// detail) go to every rank's standard error through log/slog.
func newRoot(world mpi.Comm) *cobra.Command {
	root := &cobra.Command{
		Use:   "xpmpi",
		Short: "MPI-first distributed arrays for Go: jobs and diagnostics",
		Long: `xpmpi runs distributed array jobs and diagnostics on one process or under
mpirun. Build with -tags mpi for several ranks:

  go build -tags mpi -o bin/xpmpi ./cmd/xpmpi
  mpirun -np 4 bin/xpmpi info

Results go to standard output (rank 0's only); progress and other messages
go to standard error, one line each, prefixed with the rank. --verbose adds
debug messages, --quiet keeps only warnings and errors; without either,
XPMPI_LOG=debug|info|warn sets the level (default info).`,
		Version:       versionDocument(world).text(),
		Args:          subcommandArgs,
		SilenceUsage:  true,
		SilenceErrors: true, // Main prints errors with the rank
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			level, err := logLevel(cmd)
			slog.SetDefault(newLogger(cmd.ErrOrStderr(), world.Rank(), level))
			if reportsEnv(cmd) {
				// These report the environment rather than refuse it; an
				// invalid --verbose --quiet is still refused.
				if err != nil && !strings.HasPrefix(err.Error(), "XPMPI_LOG") {
					return err
				}
				return nil
			}
			if err != nil {
				return err
			}
			slog.Debug("command", "path", cmd.CommandPath(), "ranks", world.Size())
			return checkEnv()
		},
	}
	root.SetVersionTemplate("{{.Version}}")
	pf := root.PersistentFlags()
	pf.Bool("verbose", false, "also print debug messages on standard error (XPMPI_LOG=debug)")
	pf.Bool("quiet", false, "print only warnings and errors on standard error, no progress (XPMPI_LOG=warn)")
	if world.Rank() != 0 {
		// Help and usage once per job, not once per rank.
		root.SetOut(io.Discard)
	} else {
		root.SetOut(os.Stdout)
	}
	root.SetErr(os.Stderr)
	root.AddCommand(newInfoCmd(world), newRunCmd(world), newSelftestCmd(world), newDoctorCmd(world), newBenchCmd(world), newKernelsCmd(world), newModelCmd(world), newVersionCmd(world))
	return root
}

// reportsEnv says whether cmd reports the environment (info, doctor,
// version, help, shell completion) instead of refusing a bad one.
func reportsEnv(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch n := c.Name(); {
		case n == "info", n == "doctor", n == "version", n == "help", n == "completion",
			strings.HasPrefix(n, cobra.ShellCompRequestCmd), strings.HasPrefix(n, cobra.ShellCompNoDescRequestCmd):
			return true
		}
	}
	return false
}

// subcommandArgs is the Args of a command whose first argument names a
// subcommand: reaching it with an argument means the name is unknown, which
// is an error with the closest names.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: unknown command %q", cmd.CommandPath(), args[0])
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, set only for the root
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return fmt.Errorf("%s (did you mean %s?)", msg, strings.Join(s, " or "))
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return errors.New(msg + " (want one of: " + strings.Join(names, ", ") + ")")
}
