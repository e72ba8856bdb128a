package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers"
)

func newRunCmd(world mpi.Comm) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run <example>",
		Short: "Run a distributed example job",
		Long: `run starts one of the distributed example jobs on every rank:

  heat2d   2-D heat equation by Jacobi iteration on row blocks with halo exchange
  cg       2-D Poisson equation by conjugate gradients (matrix-free Laplacian)`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("xpmpi run: name the example to run: heat2d or cg (xpmpi run --help)")
		},
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c != cmd {
			return err
		}
		// A misspelt example with its flags (run cgg --n 8) is an unknown
		// example, not an unknown flag of run: the words before the flag
		// that failed are what was taken for an example.
		if words := c.Flags().Args(); len(words) > 0 {
			return subcommandArgs(c, words)
		}
		// A flag before the example's name (run --n 8 heat2d).
		return fmt.Errorf("xpmpi run: %v: an example's flags go after its name (xpmpi run heat2d --n 64; xpmpi run --help)", err)
	})
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

// solverError returns err with the fields of a *solvers.ConfigError named
// after the command's flags ("heat2d: --n 0: want at least 1"), and err
// itself otherwise. flags maps a Config field to its flag; the result
// wraps err, so errors.Is and errors.As see what it wraps.
func solverError(command string, flags map[string]string, err error) error {
	var ce *solvers.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	return &flagError{msg: ce.Message(command, func(field string) string { return flags[field] }), err: err}
}

// flagError is a solver's error in the words of the command line.
type flagError struct {
	msg string
	err error
}

func (e *flagError) Error() string { return e.msg }
func (e *flagError) Unwrap() error { return e.err }

// completeBackend completes the values of cmd's --backend flag.
func completeBackend(cmd *cobra.Command) {
	cmd.RegisterFlagCompletionFunc("backend", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return backend.Names(), cobra.ShellCompDirectiveNoFileComp
	})
}

// checkWritable says whether a file can be created at path, naming the
// flag, without leaving anything behind.
func checkWritable(flag, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s %s: is a directory", flag, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: directory %s: %w", flag, path, dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, ".xpmpi-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: directory %s is not writable: %w", flag, path, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// newProgress returns a progress reporter for standard error: a bar redrawn
// in place on a terminal, an info message at every tenth otherwise.
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
			slog.Info(fmt.Sprintf("iteration %d/%d (%d%%) %.1fs", done, total, pct, time.Since(start).Seconds()))
		}
	}
}
