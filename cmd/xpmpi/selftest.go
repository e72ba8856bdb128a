package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/selfcheck"
)

// selfCheck is one line of the selftest table: a check of package selfcheck
// by its name.
type selfCheck struct {
	name string
}

// selfChecks lists the checks selftest runs, those of selfcheck.Checks.
func selfChecks() []selfCheck {
	var out []selfCheck
	for _, c := range selfcheck.Checks() {
		out = append(out, selfCheck{c.Name})
	}
	return out
}

func faultNames() []string { return selfcheck.FaultNames() }

// selftestReport is what `xpmpi selftest` prints on rank 0, as a table or,
// with --json, as one JSON object.
type selftestReport = selfcheck.Report

func newSelftestCmd(world mpi.Comm) *cobra.Command {
	var (
		fault   string
		rank    int
		timeout time.Duration
		asJSON  bool
	)
	var long strings.Builder
	long.WriteString(`selftest runs these checks at this rank count, checks the results, and
prints a pass/fail table on rank 0 (--json: one JSON object with the same
rows). It exits non-zero if any check fails on any rank.
`)
	for _, c := range selfChecks() {
		fmt.Fprintf(&long, "  %s\n", c.name)
	}
	long.WriteString(`
--fault injects one fault on rank --rank instead, so that an operator can see
on their own cluster that it ends the job promptly with a clear message:
`)
	for _, f := range selfcheck.Faults() {
		fmt.Fprintf(&long, "  %-17s %s\n", f.Name, f.Help)
	}
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Check the MPI job end to end, or inject one fault to see it handled",
		Long:  strings.TrimSuffix(long.String(), "\n"),
		Example: `  mpirun -np 4 xpmpi selftest
  mpirun -np 4 xpmpi selftest --json
  mpirun -np 3 xpmpi selftest --fault panic --rank 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if fault != "" && !slices.Contains(faultNames(), fault) {
				return fmt.Errorf("selftest: --fault %q: want one of %s", fault, strings.Join(faultNames(), ", "))
			}
			if fault != "" {
				if rank < 0 || rank >= world.Size() {
					return fmt.Errorf("selftest: --rank %d is not a rank of this job of %d", rank, world.Size())
				}
				if fault == "hang" && timeout == 0 {
					timeout = 5 * time.Second
				}
			}
			if timeout < 0 {
				return fmt.Errorf("selftest: --timeout %v: want a positive duration (0 or unset: no limit)", timeout)
			}
			opts := selfcheck.Options{Fault: fault, Rank: rank, Timeout: timeout}
			if fault != "" {
				_, err := selfcheck.Run(world, opts)
				return err
			}
			return runSelftest(world, cmd.OutOrStdout(), asJSON, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fault, "fault", "", "inject a fault: "+strings.Join(faultNames(), ", "))
	f.IntVar(&rank, "rank", 0, "the rank where the fault happens")
	f.DurationVar(&timeout, "timeout", 0, "abort the job if it runs longer than this (0: no limit)")
	f.BoolVar(&asJSON, "json", false, "print the results as one JSON object (rank 0)")
	cmd.RegisterFlagCompletionFunc("fault", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, f := range selfcheck.Faults() {
			out = append(out, cobra.CompletionWithDesc(f.Name, f.Help))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// runSelftest runs every check on every rank (selfcheck.Run) and prints the
// table on rank 0.
func runSelftest(world mpi.Comm, w io.Writer, asJSON bool, opts selfcheck.Options) error {
	rep, err := selfcheck.Run(world, opts)
	var failed *selfcheck.FailedError
	if err != nil && !errors.As(err, &failed) {
		return err
	}
	if asJSON {
		if err := writeJSON(w, rep); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "CHECK\tRESULT\tDETAIL\n")
		for _, c := range rep.Checks {
			if c.Error != "" {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Result, c.Error)
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%.1f ms\n", c.Name, c.Result, c.Millis)
			}
		}
		tw.Flush()
		fmt.Fprintf(w, "%d passed, %d failed (ranks %d)\n", rep.Passed, rep.Failed, rep.Ranks)
	}
	if failed != nil {
		return fmt.Errorf("selftest: %d of %d checks failed", failed.Failed, failed.Total)
	}
	return nil
}
