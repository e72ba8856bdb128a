package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/mpi"
)

// benchFlags are the flags of `xpmpi bench`.
type benchFlags struct {
	Only       string
	Reps       int
	Small      bool
	Threads    int
	JSON       string
	Plot       string
	CPUProfile string
	Ref        string
	Quiet      bool
	Samples    bool
	Peers      []string
	Check      string
	Baseline   string
	AddRun     string
	Note       string
}

func newBenchCmd(world mpi.Comm) *cobra.Command {
	var o benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the benchmark workloads on xpmpi and on a C+MPI reference, side by side",
		Long: `bench runs the workloads of docs/BENCH.md on xpmpi and, in the same MPI job and
alternating repetitions, on a plain C + MPI reference of the same
computation (bench/ref/xpref.c, loaded from a shared library), at the rank
count it was launched with:

  W1  triad y = a*x + y, 2^24 elements, one rank only: one thread against
      single-threaded C, the rank's thread budget against C with OpenMP
  W2  distributed dot of 2^24 elements: local dot + allreduce, 200 times
  W3  Jacobi on a 2048 x 2048 grid in row blocks, 200 iterations
  W4  conjugate gradients, 5-point Laplacian, 1024 x 1024, to 1e-8
  W4F W4 with fused vector updates, against C whose loops are fused and
      vectorized (stencil with p.Ap; x, r updates with r.r; p update)
  W5  sample sort of 2^23 uniform keys
  W6  8-byte allreduce latency; 4 MiB ping-pong between ranks 0 and 1
  W7  checkpoint write and read of 2^26 elements
  W8  2-D FFT 2048^2 complex128, forward and inverse, slab (fft.FFT2/IFFT2
      with TransposedOut) against FFTW
  W9  matrix product 2048^2 (dist.MatMulInto, B replicated, the ring, and
      SUMMA on a 1 x p grid) against OpenBLAS's cblas_dgemm
  W10 batched Newton (optimize.NewtonFDF) on 10^6 Kepler equations, and
      batched RK45 (integrate.SolveIVPIndexed) on 10^5 Van der Pol systems
  W11 percentiles (dist.Quantiles: 1st, 50th, 99th) and distinct values
      (dist.Unique) of 2^23 keys, against a gather to rank 0 and a serial
      selection or sort there (NumPy + mpi4py's way, which --peers adds)
  In a binary built with -tags mpi,petsc, W2 also runs as PETSc's VecDot
  over the same arrays (no copy) and W4 through PETSc's KSP; W3 and W5
  have no PETSc row (PETSc has neither a stencil sweep nor a distributed
  sort of its own: both would be this project's code called from PETSc).

It prints a table on rank 0: the median of each side over the repetitions,
the ratio (xpmpi's time over the reference's, so lower is better; for a
bandwidth, reference GB/s over xpmpi GB/s), the target of issue 4, whether
the checksums agree, and the spread ((max-min)/median, the larger of the two
sides'). A checksum that disagrees fails the bench after the table.

--check FILE is the regression guard: after the table it compares every
row's ratio (the median of the per-repetition ratios) with the baseline
FILE (bench/baseline.json) at the same rank count and size, recorded on
this machine (the CPU model, family and model numbers and CPU count: the
table's "machine:" line), prints the comparison, and fails naming the rows
whose ratio rose beyond the margin, max(10%, 4 x the combined standard
error of the two ratios); a row whose margin would exceed 25% is "noisy"
and does not fail. Rows the baseline has only for other machines are
"other machine", not compared (ratios move between CPUs with the code
unchanged), and a check that compared no row fails with "nothing
checked". --write-baseline FILE merges this run's ratios into FILE,
replacing this machine's rows of this rank count and size, stamped with
the commit, the date, the machine and --baseline-note; with --check on the
same FILE, the run is compared with the old rows first and then replaces
them.
--add-baseline-run FILE adds this run's ratios to this machine's rows
instead of replacing them: each row keeps the ratio of every run added, its ratio
becomes their median and their range ((max-min)/median) its run-to-run
drift, and the margin is at least 1.5 times that drift (a row that moves
between runs of unchanged code by more than the margin allows is "noisy").
Add runs of the same code, an hour or more apart. Both --write-baseline
and --add-baseline-run on the same FILE are refused (the run would count
twice). XPMPI_BENCH_SLOWDOWN=W3=1.3 multiplies xpmpi's measured times of W3
by 1.3, to see the guard fail.

--peers FILE adds the figures of programs run separately before the bench,
at the same rank count and sizes (scripts/bench.sh runs them): W6 as a
plain C + MPI program at MPI_THREAD_SINGLE (bench/ref/w6.c, "C alone") and
W2-W6 in NumPy + mpi4py (bench/peers/mpi4py_w2_w5.py, "mpi4py"). Each peer
gets two columns, its median and xpmpi's ratio against it (xp/PEER), and
its checksums are compared with xpmpi's like the reference's: one that
disagrees fails the bench.

Build both sides with scripts/bench.sh (the binary with -tags mpi, the
library with ` + bench.RefBuildCommand + `).`,
		Example: `  mpirun -np 2 bin/xpmpi bench --json build/bench-np2.json --plot build/bench-np2.png
  bin/xpmpi bench --only W3,W4 --reps 3
  bin/xpmpi bench --small --reps 1
  mpirun -np 2 bin/xpmpi bench --peers build/peers-np2.json
  bin/xpmpi bench --small --reps 7 --check bench/baseline.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchCmd(world, o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Only, "only", "", "run only these workloads, a comma list (W1,W3)")
	f.IntVar(&o.Reps, "reps", 5, "repetitions of each side of each workload")
	f.BoolVar(&o.Small, "small", false, "shrink every workload (about 1/64 of the work), for tests")
	f.IntVar(&o.Threads, "threads", 1, "threads per rank of xpmpi's W2-W5 (the reference runs one per rank); 0: the rank's thread budget")
	f.StringVar(&o.JSON, "json", "", "write the rows to this file as a JSON array")
	f.StringVar(&o.Plot, "plot", "", "draw the ratios as a bar chart into this PNG file")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile (pprof) of rank 0 to this file, of rank r>0 to FILE.rank<r>")
	f.StringVar(&o.Ref, "ref", "", "the reference library (default: $XPMPI_BENCH_REF, else build/libxpref.so)")
	f.BoolVar(&o.Quiet, "quiet", false, "print no progress")
	f.BoolVar(&o.Samples, "samples", false, "also print every repetition's figures")
	f.StringArrayVar(&o.Peers, "peers", nil, "add the figures of separately run programs from this JSON file (bench.ReadPeers); repeatable")
	f.StringVar(&o.Check, "check", "", "compare the ratios with this baseline's rows of this machine (bench/baseline.json) and fail naming the rows that got slower beyond the margin, or if no row could be compared")
	f.StringVar(&o.Baseline, "write-baseline", "", "merge this run's ratios into this baseline file (replacing this machine's rows of this rank count and size)")
	f.StringVar(&o.AddRun, "add-baseline-run", "", "add this run's ratios to this machine's rows of this baseline file (their median becomes the ratio, and their range the run-to-run drift that widens the margin); for runs of the same code")
	f.StringVar(&o.Note, "baseline-note", "", "with --write-baseline or --add-baseline-run: the conditions of the run, recorded with its rows")
	return cmd
}

// runBenchCmd is the bench command on one rank: bench.Run, then on rank 0
// the report, the JSON and the plot; a checksum that disagreed fails it
// after them.
func runBenchCmd(world mpi.Comm, o benchFlags, out io.Writer) error {
	// Every rank has the same flags: each refuses, before any work.
	if o.Baseline != "" && o.AddRun != "" && sameFile(o.Baseline, o.AddRun) {
		return fmt.Errorf("bench: --write-baseline and --add-baseline-run name the same file %s: the first replaces its rows with this run's, the second would then add the same run to them again (counted twice); give one of the two", o.Baseline)
	}
	opts := bench.Options{Only: o.Only, Reps: o.Reps, Small: o.Small, Threads: o.Threads, CPUProfile: o.CPUProfile, Ref: o.Ref}
	if !o.Quiet && world.Rank() == 0 {
		opts.Progress = os.Stderr
	}
	// Rank 0 reads the peers before the bench, so that a wrong file fails
	// at once on every rank.
	var peers []bench.Peer
	var perr error
	if len(o.Peers) > 0 && world.Rank() == 0 {
		if peers, perr = bench.LoadPeers(o.Peers...); perr == nil {
			perr = bench.CheckPeers(peers, world.Size(), o.Small)
		}
	}
	if len(o.Peers) > 0 {
		ok, err := mpi.AllTrue(world, perr == nil)
		if err != nil {
			return err
		}
		if !ok {
			if perr == nil {
				perr = fmt.Errorf("bench: rank 0 could not read the peers %v", o.Peers)
			}
			return perr
		}
	}
	rep, err := bench.Run(world, opts)
	if rep == nil || world.Rank() != 0 {
		return err
	}
	if len(peers) > 0 {
		if perr := rep.AddPeers(peers); perr != nil {
			return perr
		}
		err = rep.Err()
	}
	if werr := rep.WriteText(out, o.Samples); werr != nil {
		return werr
	}
	if o.JSON != "" {
		if werr := rep.WriteJSON(o.JSON); werr != nil {
			return werr
		}
		fmt.Fprintf(out, "wrote %s\n", o.JSON)
	}
	if o.Plot != "" {
		if werr := rep.WritePNG(o.Plot); werr != nil {
			return werr
		}
		fmt.Fprintf(out, "wrote %s\n", o.Plot)
	}
	// The check reads the baseline before --write-baseline replaces its
	// rows, so that one run with both flags on the same file is compared
	// with the old rows and then becomes the new ones.
	if o.Check != "" {
		base, cerr := bench.ReadBaseline(o.Check)
		if cerr != nil {
			return cerr
		}
		vs := bench.Compare(rep, base)
		fmt.Fprintln(out)
		if werr := bench.WriteVerdicts(out, o.Check, vs); werr != nil {
			return werr
		}
		if gerr := bench.GuardError(o.Check, vs); gerr != nil && err == nil {
			err = gerr
		}
	}
	var entries []bench.BaselineEntry
	if o.Baseline != "" || o.AddRun != "" {
		entries = bench.BaselineEntries(rep, bench.GitCommit(), bench.Today(), rep.Machine, o.Note)
	}
	if o.Baseline != "" {
		if werr := bench.WriteBaseline(o.Baseline, entries); werr != nil {
			return werr
		}
		fmt.Fprintf(out, "wrote %d rows to the baseline %s\n", len(entries), o.Baseline)
		// One run's rows carry no run-to-run drift: their margins come
		// from its repetitions alone, which underestimate how far the
		// next run of the same code moves (2026-12-07: W7's read, W10
		// and W11 by 15-16% between two runs half an hour apart).
		fmt.Fprintf(out, "each of these rows has one run: its margin is the repetitions' alone, narrower than the drift between runs of the same code; add runs of this code with --add-baseline-run %s before a check against them can be trusted\n", o.Baseline)
	}
	if o.AddRun != "" {
		if werr := bench.AddBaselineRun(o.AddRun, entries); werr != nil {
			return werr
		}
		fmt.Fprintf(out, "added this run's %d rows to the baseline %s\n", len(entries), o.AddRun)
	}
	return err
}

// sameFile reports whether the paths a and b name one file: the same
// file where both exist (a link, another spelling of the path), else the
// same path once made absolute and cleaned.
func sameFile(a, b string) bool {
	if fa, err := os.Stat(a); err == nil {
		if fb, err := os.Stat(b); err == nil {
			return os.SameFile(fa, fb)
		}
	}
	aa, erra := filepath.Abs(a)
	ab, errb := filepath.Abs(b)
	return erra == nil && errb == nil && aa == ab
}
