package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// errBenchNeedsMPI is the error of `xpmpi bench` in the default build.
var errBenchNeedsMPI = errors.New("xpmpi bench needs the mpi build (go build -tags mpi) and the reference library (scripts/bench.sh builds both)")

// refBuildCommand builds the reference library, from the repository root.
const refBuildCommand = "mpicc -O3 -march=native -fopenmp -shared -fPIC -o build/libxpref.so bench/ref/xpref.c"

// refParams mirrors xpref_params of bench/ref/xpref.h.
type refParams struct {
	N, Iters, Threads int64
	Seed              uint64
	Tol               float64
}

// benchSample is one repetition of one side of a workload: the seconds of
// the timed region (the slowest rank's), the checksum, workload-specific
// figures, and whether the implementation's own verification passed. It
// mirrors xpref_result.
type benchSample struct {
	Seconds  float64
	Checksum float64
	Extra    [4]float64
	OK       bool
}

// refLib is the C + MPI reference: the library bench/ref/xpref.c, loaded at
// run time in the mpi build (bench_ref_mpi.go), or a stand-in in tests.
type refLib interface {
	// Call runs one repetition of the reference function name (xpref_dot,
	// ...) on every rank.
	Call(name string, p refParams) (benchSample, error)
	// CallLoop calls name calls times from a Go loop and returns the
	// seconds taken (for the W6 breakdown).
	CallLoop(name string, calls int) (float64, error)
	// Close unloads the library.
	Close()
}

// rowKind says how a row's figures compare.
type rowKind int

const (
	// kindTime is a time, lower is better: ratio = xpmpi / reference.
	kindTime rowKind = iota
	// kindRate is a bandwidth, higher is better: ratio = reference /
	// xpmpi, which is again xpmpi's time over the reference's time.
	kindRate
	// kindInfo is a figure compared but not a speed (CG iterations, final
	// residual): ratio = xpmpi / reference, not plotted.
	kindInfo
)

// benchRow is one line of the bench's table, and one object of --json.
type benchRow struct {
	Workload   string  `json:"workload"`
	Ranks      int     `json:"ranks"`
	Backend    string  `json:"backend"`
	Metric     string  `json:"metric"`
	Unit       string  `json:"unit"`
	XPMPI      float64 `json:"xpmpi"`     // median over the repetitions
	Reference  float64 `json:"reference"` // median over the repetitions
	Ratio      float64 `json:"ratio"`     // xpmpi time / reference time: lower is better
	ChecksumOK bool    `json:"checksum_ok"`
	Reps       int     `json:"reps"`
	Spread     float64 `json:"spread"` // (max-min)/median, the larger of the two sides'

	Kind   rowKind `json:"-"`
	Target float64 `json:"-"` // the largest ratio that meets issue 4's target; 0: no target
	// The figures of every repetition, in the order they ran.
	XSamples, RefSamples []float64 `json:"-"`
}

// targetText says whether the row meets its target.
func (r benchRow) targetText() string {
	if r.Target == 0 {
		return "-"
	}
	verdict := "met"
	if !(r.Ratio <= r.Target) {
		verdict = "MISSED"
	}
	return fmt.Sprintf("<=%.3g %s", r.Target, verdict)
}

// median returns the median of v (the mean of the middle two for an even
// count), 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// spread returns (max-min)/median of v, 0 for none or a zero median.
func spread(v []float64) float64 {
	med := median(v)
	if len(v) == 0 || med == 0 {
		return 0
	}
	return (slices.Max(v) - slices.Min(v)) / math.Abs(med)
}

// ratioOf returns xpmpi's time over the reference's: xp/ref for times and
// other figures, ref/xp for bandwidths. A zero denominator gives 0.
func ratioOf(kind rowKind, xp, ref float64) float64 {
	num, den := xp, ref
	if kind == kindRate {
		num, den = ref, xp
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// agree reports whether two checksums agree: exactly for tol 0, else to a
// relative tol.
func agree(a, b, tol float64) bool {
	if tol == 0 {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

// checkLine is the checksum comparison of one workload.
type checkLine struct {
	Workload string
	What     string
	XPMPI    float64
	Ref      float64
	OK       bool
	Detail   string
}

// compareChecksums compares every repetition's checksums of the two
// sides, with relative tolerance tol (0: exact); each side's own
// verification must have passed too.
func compareChecksums(workload, what string, xs, rs []benchSample, tol float64, value func(benchSample) float64) checkLine {
	c := checkLine{Workload: workload, What: what, OK: len(xs) == len(rs) && len(xs) > 0}
	if value == nil {
		value = func(s benchSample) float64 { return s.Checksum }
	}
	for i := range min(len(xs), len(rs)) {
		x, r := value(xs[i]), value(rs[i])
		if i == 0 {
			c.XPMPI, c.Ref = x, r
		}
		switch {
		case !xs[i].OK:
			c.OK, c.Detail = false, fmt.Sprintf("repetition %d: xpmpi's own verification failed", i+1)
		case !rs[i].OK:
			c.OK, c.Detail = false, fmt.Sprintf("repetition %d: the reference's own verification failed", i+1)
		case !agree(x, r, tol) || !agree(x, value(xs[0]), tol) || !agree(r, value(rs[0]), tol):
			c.OK = false
			c.Detail = fmt.Sprintf("repetition %d: xpmpi %.17g, reference %.17g (first repetition %.17g, %.17g)", i+1, x, r, value(xs[0]), value(rs[0]))
		}
		if !c.OK {
			break
		}
	}
	if c.OK {
		if tol == 0 {
			c.Detail = "equal"
		} else {
			d := 0.0
			if m := math.Max(math.Abs(c.XPMPI), math.Abs(c.Ref)); m > 0 {
				d = math.Abs(c.XPMPI-c.Ref) / m
			}
			c.Detail = fmt.Sprintf("relative difference %.2g (tolerance %g)", d, tol)
		}
	}
	return c
}

// newRow makes a row from the per-repetition figures of the two sides.
func newRow(workload string, ranks int, be, metric, unit string, kind rowKind, target float64, xs, rs []float64, ok bool) benchRow {
	r := benchRow{
		Workload: workload, Ranks: ranks, Backend: be, Metric: metric, Unit: unit,
		XPMPI: median(xs), Reference: median(rs), ChecksumOK: ok, Reps: min(len(xs), len(rs)),
		Spread: math.Max(spread(xs), spread(rs)), Kind: kind, Target: target,
		XSamples: slices.Clone(xs), RefSamples: slices.Clone(rs),
	}
	r.Ratio = ratioOf(kind, r.XPMPI, r.Reference)
	return r
}

// figures maps samples to a figure.
func figures(s []benchSample, f func(benchSample) float64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// writeBenchTable prints the rows as an aligned table.
func writeBenchTable(w io.Writer, rows []benchRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tranks\tbackend\tmetric\tunit\txpmpi\treference\tratio\ttarget\tchecksum\treps\tspread")
	for _, r := range rows {
		ck := "ok"
		if !r.ChecksumOK {
			ck = "DISAGREE"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.4g\t%.4g\t%.3f\t%s\t%s\t%d\t%.1f%%\n",
			r.Workload, r.Ranks, r.Backend, r.Metric, r.Unit, r.XPMPI, r.Reference, r.Ratio, r.targetText(), ck, r.Reps, 100*r.Spread)
	}
	return tw.Flush()
}

// formatSamples prints figures compactly.
func formatSamples(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.4g", x)
	}
	return strings.Join(parts, " ")
}

// finite returns v, or 0 for NaN and infinities (which JSON cannot hold).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// writeBenchJSON writes the rows as a JSON array.
func writeBenchJSON(path string, rows []benchRow) error {
	clean := make([]benchRow, len(rows))
	for i, r := range rows {
		r.XPMPI, r.Reference, r.Ratio, r.Spread = finite(r.XPMPI), finite(r.Reference), finite(r.Ratio), finite(r.Spread)
		clean[i] = r
	}
	b, err := json.MarshalIndent(clean, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// benchOptions are the flags of `xpmpi bench`.
type benchOptions struct {
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
}

// benchIDs are the workloads the bench runs, in order.
var benchIDs = []string{"W1", "W2", "W3", "W4", "W5", "W6", "W7"}

// parseOnly returns the workloads --only names (all for ""), in the
// bench's order.
func parseOnly(only string) ([]string, error) {
	if strings.TrimSpace(only) == "" {
		return slices.Clone(benchIDs), nil
	}
	want := map[string]bool{}
	for _, f := range strings.Split(only, ",") {
		id := strings.ToUpper(strings.TrimSpace(f))
		if id == "" {
			continue
		}
		if !slices.Contains(benchIDs, id) {
			return nil, fmt.Errorf("bench: unknown workload %q in --only (have %s)", f, strings.Join(benchIDs, ", "))
		}
		want[id] = true
	}
	var ids []string
	for _, id := range benchIDs {
		if want[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("bench: --only %q names no workload", only)
	}
	return ids, nil
}

// defaultRefPath returns the reference library's path: $XPMPI_BENCH_REF,
// else build/libxpref.so under the working directory, else under the
// parent of the binary's directory (bin/xpmpi -> build/).
func defaultRefPath() string {
	if p := os.Getenv("XPMPI_BENCH_REF"); p != "" {
		return p
	}
	const rel = "build/libxpref.so"
	if _, err := os.Stat(rel); err == nil {
		if abs, err := filepath.Abs(rel); err == nil {
			return abs
		}
		return rel
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(filepath.Dir(exe)), rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return rel
}

func newBenchCmd(world mpi.Comm) *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the benchmark workloads on xpmpi and on a C+MPI reference, side by side",
		Long: `bench runs the workloads of BENCH.md on xpmpi and, in the same MPI job and
alternating repetitions, on a plain C + MPI reference of the same
computation (bench/ref/xpref.c, loaded from a shared library), at the rank
count it was launched with:

  W1  triad y = a*x + y, 2^24 elements, one rank only: one thread against
      single-threaded C, the rank's thread budget against C with OpenMP
  W2  distributed dot of 2^24 elements: local dot + allreduce, 200 times
  W3  Jacobi on a 2048 x 2048 grid in row blocks, 200 iterations
  W4  conjugate gradients, 5-point Laplacian, 1024 x 1024, to 1e-8
  W5  sample sort of 2^23 uniform keys
  W6  8-byte allreduce latency; 4 MiB ping-pong between ranks 0 and 1

It prints a table on rank 0: the median of each side over the repetitions,
the ratio (xpmpi's time over the reference's, so lower is better; for a
bandwidth, reference GB/s over xpmpi GB/s), the target of issue 4, whether
the checksums agree, and the spread ((max-min)/median, the larger of the two
sides'). A checksum that disagrees fails the bench after the table.

Build both sides with scripts/bench.sh (the binary with -tags mpi, the
library with ` + refBuildCommand + `).`,
		Example: `  mpirun -np 2 bin/xpmpi bench --json build/bench-np2.json --plot build/bench-np2.png
  bin/xpmpi bench --only W3,W4 --reps 3
  bin/xpmpi bench --small --reps 1`,
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
	return cmd
}

// runBenchCmd is the bench command on one rank.
func runBenchCmd(world mpi.Comm, o benchOptions, out io.Writer) error {
	if !mpi.Built {
		return errBenchNeedsMPI
	}
	if o.Reps < 1 {
		return fmt.Errorf("bench: --reps must be at least 1, got %d", o.Reps)
	}
	if o.Threads < 0 {
		return fmt.Errorf("bench: --threads must be at least 0, got %d", o.Threads)
	}
	ids, err := parseOnly(o.Only)
	if err != nil {
		return err
	}
	path := o.Ref
	if path == "" {
		path = defaultRefPath()
	}
	ref, err := openRef(path)
	// Every rank loads the library; all must have it before any calls it.
	if ok, aerr := mpi.AllTrue(world, err == nil); aerr != nil {
		return aerr
	} else if !ok {
		if err == nil {
			err = fmt.Errorf("bench: another rank could not load the reference library %s", path)
		}
		return err
	}
	if err := backend.SelectStrict("cpu"); err != nil {
		return err
	}
	if o.CPUProfile != "" {
		p := o.CPUProfile
		if world.Rank() > 0 {
			p = fmt.Sprintf("%s.rank%d", p, world.Rank())
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	e := newBenchEnv(world, ref, o)
	if mpi.Checking() {
		e.note("the checking mode is on (XPMPI_CHECK): every xpmpi collective makes an extra allgather, and xpmpi's figures include it")
	}
	if !o.Quiet && world.Rank() == 0 {
		e.progress = os.Stderr
		fmt.Fprintf(e.progress, "bench: %s, %s, reference %s\n", plural(world.Size(), "rank"), plural(o.Reps, "repetition"), path)
	}
	rows, err := e.run(ids)
	if err != nil {
		return err
	}
	return e.report(out, rows, o)
}

// plural returns "1 rank", "2 ranks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// benchEnv is one run of the bench on one rank.
type benchEnv struct {
	world    mpi.Comm
	ref      refLib
	reps     int
	threads  int // xpmpi's threads per rank in W2-W5
	budget   int // the rank's thread budget, for W1
	sizes    benchSizes
	be       string
	progress io.Writer // rank 0's progress lines, or nil
	notes    []string
	checks   []checkLine
}

func newBenchEnv(world mpi.Comm, ref refLib, o benchOptions) *benchEnv {
	e := &benchEnv{world: world, ref: ref, reps: o.Reps, threads: o.Threads, budget: backend.Threads(), sizes: sizesFor(o.Small), be: backend.Current().Name()}
	if e.threads == 0 {
		e.threads = e.budget
	}
	return e
}

func (e *benchEnv) note(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

func (e *benchEnv) say(format string, args ...any) {
	if e.progress != nil {
		fmt.Fprintf(e.progress, format+"\n", args...)
	}
}

// run runs the workloads ids and returns their rows.
func (e *benchEnv) run(ids []string) ([]benchRow, error) {
	var rows []benchRow
	for _, id := range ids {
		r, err := e.runWorkload(id)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// interleave runs reps repetitions of the two sides, alternating which
// goes first, with a garbage collection before each: both sides see the
// same machine state on average, and drift in the machine's load affects
// both.
func (e *benchEnv) interleave(xp, ref func() (benchSample, error)) (xs, rs []benchSample, err error) {
	for i := 0; i < e.reps; i++ {
		first, second := xp, ref
		if i%2 == 1 {
			first, second = ref, xp
		}
		runtime.GC()
		a, err := first()
		if err != nil {
			return nil, nil, err
		}
		runtime.GC()
		b, err := second()
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			a, b = b, a
		}
		xs, rs = append(xs, a), append(rs, b)
	}
	return xs, rs, nil
}

// report prints the table and the notes on rank 0, writes the JSON and the
// plot, and returns an error if a checksum disagreed.
func (e *benchEnv) report(out io.Writer, rows []benchRow, o benchOptions) error {
	var bad []string
	for _, c := range e.checks {
		if !c.OK && !slices.Contains(bad, c.Workload) {
			bad = append(bad, c.Workload)
		}
	}
	if e.world.Rank() != 0 {
		if len(bad) > 0 {
			return fmt.Errorf("bench: checksums disagree in %s", strings.Join(bad, ", "))
		}
		return nil
	}
	fmt.Fprintf(out, "xpmpi bench: %s, %s of each side, interleaved; medians; ratio = xpmpi time / reference time (lower is better)\n", plural(e.world.Size(), "rank"), plural(e.reps, "repetition"))
	if err := writeBenchTable(out, rows); err != nil {
		return err
	}
	if len(e.checks) > 0 {
		fmt.Fprintln(out, "checksums (first repetition):")
		for _, c := range e.checks {
			verdict := "agree"
			if !c.OK {
				verdict = "DISAGREE"
			}
			fmt.Fprintf(out, "  %s %s: xpmpi %.16g, reference %.16g: %s (%s)\n", c.Workload, c.What, c.XPMPI, c.Ref, verdict, c.Detail)
		}
	}
	if o.Samples {
		fmt.Fprintln(out, "samples (every repetition, in the order run):")
		for _, r := range rows {
			fmt.Fprintf(out, "  %s %s (%s): xpmpi %s; reference %s\n", r.Workload, r.Metric, r.Unit, formatSamples(r.XSamples), formatSamples(r.RefSamples))
		}
	}
	if len(e.notes) > 0 {
		fmt.Fprintln(out, "notes:")
		for _, n := range e.notes {
			fmt.Fprintf(out, "  %s\n", n)
		}
	}
	if o.JSON != "" {
		if err := writeBenchJSON(o.JSON, rows); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s\n", o.JSON)
	}
	if o.Plot != "" {
		title := fmt.Sprintf("xpmpi bench, %s: xpmpi time / C+MPI reference time (lower is better)", plural(e.world.Size(), "rank"))
		if err := writeBenchPNG(o.Plot, rows, title); err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %s\n", o.Plot)
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: checksums disagree in %s", strings.Join(bad, ", "))
	}
	return nil
}
