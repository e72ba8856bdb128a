package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// ErrNeedsMPI is the error of Run and OpenReference in the default build:
// the reference is C + MPI and runs in the same MPI job as xpmpi's side.
var ErrNeedsMPI = errors.New("xpmpi bench needs the mpi build (go build -tags mpi) and the reference library (scripts/bench.sh builds both)")

// RefBuildCommand builds the reference library, from the repository root.
const RefBuildCommand = "mpicc -O3 -march=native -fopenmp -shared -fPIC -o build/libxpref.so bench/ref/xpref.c -lopenblas"

// Params are the arguments of a reference function; they mirror xpref_params of bench/ref/xpref.h.
type Params struct {
	N, Iters, Threads int64
	Seed              uint64
	Tol               float64
}

// Sample is one repetition of one side of a workload: the seconds of
// the timed region (the slowest rank's), the checksum, workload-specific
// figures, and whether the implementation's own verification passed. It
// mirrors xpref_result.
type Sample struct {
	Seconds  float64
	Checksum float64
	Extra    [4]float64
	OK       bool
}

// Reference is the C + MPI reference: the library bench/ref/xpref.c, loaded at
// run time in the mpi build (OpenReference), or a stand-in of the
// caller's (the tests use serial Go loops).
type Reference interface {
	// Call runs one repetition of the reference function name (xpref_dot,
	// ...) on every rank.
	Call(name string, p Params) (Sample, error)
	// CallLoop calls name calls times from a Go loop and returns the
	// seconds taken (for the W6 breakdown).
	CallLoop(name string, calls int) (float64, error)
	// Close unloads the library.
	Close()
}

// Kind says how a row's figures compare.
type Kind int

const (
	// KindTime is a time, lower is better: ratio = xpmpi / reference.
	KindTime Kind = iota
	// KindRate is a bandwidth, higher is better: ratio = reference /
	// xpmpi, which is again xpmpi's time over the reference's time.
	KindRate
	// KindInfo is a figure compared but not a speed (CG iterations, final
	// residual): ratio = xpmpi / reference, not plotted.
	KindInfo
)

// Row is one line of the bench's table, and one object of --json.
type Row struct {
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

	// The figures of the separately run peers (AddPeers), if any.
	Peers []PeerFigure `json:"peers,omitempty"`

	Kind   Kind    `json:"-"`
	Target float64 `json:"-"` // the largest ratio that meets issue 4's target; 0: no target
	// The figures of every repetition, in the order they ran.
	XSamples, RefSamples []float64 `json:"-"`
}

// targetText says whether the row meets its target.
func (r Row) targetText() string {
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
func ratioOf(kind Kind, xp, ref float64) float64 {
	num, den := xp, ref
	if kind == KindRate {
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

// Check is the checksum comparison of one workload.
type Check struct {
	Workload string
	What     string
	XPMPI    float64
	Ref      float64
	OK       bool
	Detail   string
	// Tol is the relative tolerance of the comparison; 0: exact.
	Tol float64
	// Against names what Ref is the checksum of: "" for the reference,
	// else a peer (AddPeers).
	Against string
}

// compareChecksums compares every repetition's checksums of the two
// sides, with relative tolerance tol (0: exact); each side's own
// verification must have passed too.
func compareChecksums(workload, what string, xs, rs []Sample, tol float64, value func(Sample) float64) Check {
	c := Check{Workload: workload, What: what, OK: len(xs) == len(rs) && len(xs) > 0, Tol: tol}
	if value == nil {
		value = func(s Sample) float64 { return s.Checksum }
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
func newRow(workload string, ranks int, be, metric, unit string, kind Kind, target float64, xs, rs []float64, ok bool) Row {
	r := Row{
		Workload: workload, Ranks: ranks, Backend: be, Metric: metric, Unit: unit,
		XPMPI: median(xs), Reference: median(rs), ChecksumOK: ok, Reps: min(len(xs), len(rs)),
		Spread: math.Max(spread(xs), spread(rs)), Kind: kind, Target: target,
		XSamples: slices.Clone(xs), RefSamples: slices.Clone(rs),
	}
	r.Ratio = ratioOf(kind, r.XPMPI, r.Reference)
	return r
}

// figures maps samples to a figure.
func figures(s []Sample, f func(Sample) float64) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// writeBenchTable prints the rows as an aligned table.
func writeBenchTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	peers := peerNames(rows) // their columns follow the reference's ratio
	fmt.Fprintln(tw, "workload\tranks\tbackend\tmetric\tunit\txpmpi\treference\tratio\t"+peerHeader(peers)+"target\tchecksum\treps\tspread")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.4g\t%.4g\t%.3f\t%s%s\t%s\t%d\t%.1f%%\n",
			r.Workload, r.Ranks, r.Backend, r.Metric, r.Unit, r.XPMPI, r.Reference, r.Ratio, peerCells(peers, r), r.targetText(), checksumCell(r), r.Reps, 100*r.Spread)
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
func writeBenchJSON(path string, rows []Row) error {
	clean := make([]Row, len(rows))
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

// Options say what a run of the bench does. The zero value is not valid:
// Reps must be at least 1 (the command's default is 5). The errors that
// refuse an option name the command's flag (--reps, --only, ...).
type Options struct {
	// Only names the workloads to run, a comma list ("W1,W3"); "" runs
	// them all (Workloads).
	Only string
	// Reps is the number of repetitions of each side of each workload.
	Reps int
	// Small shrinks every workload to about 1/64 of docs/BENCH.md's work.
	Small bool
	// Threads is xpmpi's threads per rank in W2-W5 (the reference runs
	// one per rank); 0 means the rank's thread budget.
	Threads int
	// CPUProfile, if not "", is where rank 0 writes a CPU profile (pprof)
	// of the run; rank r>0 writes CPUProfile.rank<r>.
	CPUProfile string
	// Ref is the path of the reference library (bench/ref/xpref.c built
	// by RefBuildCommand); "" means DefaultRefPath().
	Ref string
	// Progress, if not nil, receives progress lines (the command passes
	// os.Stderr on rank 0 unless --quiet).
	Progress io.Writer
}

// benchIDs are the workloads the bench runs, in order.
var benchIDs = []string{"W1", "W2", "W3", "W4", "W4F", "W5", "W6", "W7", fftID, matmulID, "W10", "W11"}

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

// DefaultRefPath returns the reference library's path: $XPMPI_BENCH_REF,
// else build/libxpref.so under the working directory, else under the
// parent of the binary's directory (bin/xpmpi -> build/).
func DefaultRefPath() string {
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

// Workloads returns the identifiers of the workloads the bench runs, in
// the order it runs them.
func Workloads() []string { return slices.Clone(benchIDs) }

// Run runs the workloads of o on every rank of comm, each repetition of
// xpmpi's side alternating with one of the C + MPI reference's, and
// returns the report. It is collective: every rank of comm calls it with
// the same options, and every rank gets the same rows.
//
// It needs the mpi build and the reference library: in the default build
// it returns ErrNeedsMPI. A library that does not load on some rank is an
// error on every rank. When the checksums of the two sides disagree, Run
// returns the whole report together with an error naming the workloads, so
// that the table can be printed before the failure.
func Run(comm mpi.Comm, o Options) (*Report, error) {
	if !mpi.Built {
		return nil, ErrNeedsMPI
	}
	if o.Reps < 1 {
		return nil, fmt.Errorf("bench: --reps must be at least 1, got %d", o.Reps)
	}
	if o.Threads < 0 {
		return nil, fmt.Errorf("bench: --threads must be at least 0, got %d", o.Threads)
	}
	ids, err := parseOnly(o.Only)
	if err != nil {
		return nil, err
	}
	path := o.Ref
	if path == "" {
		path = DefaultRefPath()
	}
	ref, err := OpenReference(path)
	// Every rank loads the library; all must have it before any calls it.
	if ok, aerr := mpi.AllTrue(comm, err == nil); aerr != nil {
		return nil, aerr
	} else if !ok {
		if err == nil {
			err = fmt.Errorf("bench: another rank could not load the reference library %s", path)
		}
		return nil, err
	}
	if err := backend.SelectStrict("cpu"); err != nil {
		return nil, err
	}
	if o.CPUProfile != "" {
		p := o.CPUProfile
		if comm.Rank() > 0 {
			p = fmt.Sprintf("%s.rank%d", p, comm.Rank())
		}
		f, err := os.Create(p)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	e := newBenchEnv(comm, ref, o)
	if e.slow, err = parseSlowdown(os.Getenv("XPMPI_BENCH_SLOWDOWN")); err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(e.slow)) {
		e.note("XPMPI_BENCH_SLOWDOWN: xpmpi's measured times of %s are multiplied by %g (a test of the regression guard, not a measurement)", id, e.slow[id])
	}
	if lvl := mpi.LibraryInfo().ThreadLevel; lvl != "multiple" {
		e.note("MPI runs at thread level %s (XPMPI_THREAD_LEVEL): the in-job C reference shares it, and the committed baseline and docs/PERFORMANCE.md's table were measured at the default, multiple", lvl)
	}
	if mpi.Checking() {
		e.note("the checking mode is on (XPMPI_CHECK): every xpmpi collective makes an extra allgather, and xpmpi's figures include it")
	}
	if o.Progress != nil {
		e.progress = o.Progress
		fmt.Fprintf(e.progress, "bench: %s, %s, reference %s\n", plural(comm.Size(), "rank"), plural(o.Reps, "repetition"), path)
	}
	rows, err := e.run(ids)
	if err != nil {
		return nil, err
	}
	return e.report(rows)
}

// CheckSlowdownEnv returns the error Run would give for the value of
// XPMPI_BENCH_SLOWDOWN (nil where it is unset or valid), for the CLI's
// check of the environment.
func CheckSlowdownEnv() error {
	_, err := parseSlowdown(os.Getenv("XPMPI_BENCH_SLOWDOWN"))
	return err
}

// parseSlowdown parses XPMPI_BENCH_SLOWDOWN, a comma list of WORKLOAD=FACTOR
// (W3=1.3): the regression guard's test hook, which multiplies the
// seconds that xpmpi's side of those workloads measured (Sample.Seconds:
// every figure except W4's per-iteration time and W7's) by FACTOR.
func parseSlowdown(s string) (map[string]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]float64{}
	for _, f := range strings.Split(s, ",") {
		id, val, ok := strings.Cut(strings.TrimSpace(f), "=")
		id = strings.ToUpper(strings.TrimSpace(id))
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if !ok || err != nil || !(x > 0) || math.IsInf(x, 0) || !slices.Contains(benchIDs, id) {
			return nil, fmt.Errorf("bench: XPMPI_BENCH_SLOWDOWN=%q: want a comma list of WORKLOAD=FACTOR (W3=1.3) with workloads of %s and positive factors", s, strings.Join(benchIDs, ", "))
		}
		out[id] = x
	}
	return out, nil
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
	ref      Reference
	reps     int
	threads  int // xpmpi's threads per rank in W2-W5
	budget   int // the rank's thread budget, for W1
	sizes    benchSizes
	be       string
	progress io.Writer // rank 0's progress lines, or nil
	notes    []string
	checks   []Check
	small    bool
	// current is the workload running; slow scales xpmpi's measured
	// time of the workloads it names (XPMPI_BENCH_SLOWDOWN, a test hook
	// of the regression guard).
	current string
	slow    map[string]float64
}

func newBenchEnv(world mpi.Comm, ref Reference, o Options) *benchEnv {
	e := &benchEnv{world: world, ref: ref, reps: o.Reps, threads: o.Threads, budget: backend.Threads(), sizes: sizesFor(o.Small), be: backend.Current().Name(), small: o.Small}
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
// In a -tags petsc build, PETSc is finalized after the last workload
// that uses it (petscWorkloads), or on an error.
func (e *benchEnv) run(ids []string) (rows []Row, err error) {
	last := -1 // the index in ids of the last workload through PETSc
	if petscHooks != nil {
		for i, id := range ids {
			if slices.Contains(petscWorkloads, id) {
				last = i
			}
		}
	}
	if last >= 0 {
		// stop does nothing once PETSc is finalized (or if the program,
		// not the bench, started it), so this only acts on an error
		// before the last workload through PETSc.
		defer func() {
			if serr := petscHooks.stop(); serr != nil && err == nil {
				rows, err = nil, serr
			}
		}()
	}
	for i, id := range ids {
		e.current = id
		r, err := e.runWorkload(id)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
		if i == last {
			if err := petscHooks.stop(); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// interleave runs reps repetitions of the two sides, alternating which
// goes first, with a garbage collection before each: both sides see the
// same machine state on average, and drift in the machine's load affects
// both.
func (e *benchEnv) interleave(xp, ref func() (Sample, error)) (xs, rs []Sample, err error) {
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
		if f, ok := e.slow[e.current]; ok {
			a.Seconds *= f
		}
		xs, rs = append(xs, a), append(rs, b)
	}
	return xs, rs, nil
}

// Report is the outcome of a run: the rows of the table, the checksum
// comparison of each workload and the notes, the same on every rank.
type Report struct {
	Ranks  int      // the ranks the bench ran on
	Reps   int      // repetitions of each side of each workload
	Rows   []Row    // the table, one row per figure
	Checks []Check  // the checksum comparison of each workload
	Notes  []string // what the reader of the table should know
	Small  bool     // the run was --small
	// Machine names the machine of the run (MachineName; empty where the
	// report does not say). The guard compares a run with the baseline
	// rows of its machine only.
	Machine string
}

// report makes the report of rows, and the error of the checksums that
// disagree.
func (e *benchEnv) report(rows []Row) (*Report, error) {
	r := &Report{Ranks: e.world.Size(), Reps: e.reps, Rows: rows, Checks: e.checks, Notes: e.notes, Small: e.small, Machine: MachineName()}
	return r, r.Err()
}

// Err returns an error naming the workloads whose checksums disagree, or
// nil when all agree.
func (r *Report) Err() error {
	var bad []string
	for _, c := range r.Checks {
		if !c.OK && !slices.Contains(bad, c.Workload) {
			bad = append(bad, c.Workload)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: checksums disagree in %s", strings.Join(bad, ", "))
	}
	return nil
}

// WriteText writes the report as `xpmpi bench` prints it: a header line,
// the table, the checksums, every repetition's figures if samples, and the
// notes. Not collective: the command calls it on rank 0 only.
func (r *Report) WriteText(w io.Writer, samples bool) error {
	fmt.Fprintf(w, "xpmpi bench: %s, %s of each side, interleaved; medians; ratio = xpmpi time / reference time (lower is better)\n", plural(r.Ranks, "rank"), plural(r.Reps, "repetition"))
	if r.Machine != "" {
		fmt.Fprintf(w, "machine: %s\n", r.Machine)
	}
	if peers := peerNames(r.Rows); len(peers) > 0 {
		fmt.Fprintf(w, "peers run separately before the bench (see the notes): %s; xp/PEER = xpmpi time / the peer's time\n", strings.Join(peers, ", "))
	}
	if err := writeBenchTable(w, r.Rows); err != nil {
		return err
	}
	if len(r.Checks) > 0 {
		fmt.Fprintln(w, "checksums (first repetition):")
		for _, c := range r.Checks {
			verdict := "agree"
			if !c.OK {
				verdict = "DISAGREE"
			}
			against := "reference"
			if c.Against != "" {
				against = c.Against
			}
			fmt.Fprintf(w, "  %s %s: xpmpi %.16g, %s %.16g: %s (%s)\n", c.Workload, c.What, c.XPMPI, against, c.Ref, verdict, c.Detail)
		}
	}
	if samples {
		fmt.Fprintln(w, "samples (every repetition, in the order run):")
		for _, row := range r.Rows {
			fmt.Fprintf(w, "  %s %s (%s): xpmpi %s; reference %s%s\n", row.Workload, row.Metric, row.Unit, formatSamples(row.XSamples), formatSamples(row.RefSamples), peerSamples(row))
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "notes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	return nil
}

// WriteJSON writes the rows to path as a JSON array (the objects of Row,
// with NaN and infinities as 0), making its directory if need be. Not
// collective.
func (r *Report) WriteJSON(path string) error { return writeBenchJSON(path, r.Rows) }

// WritePNG draws the ratios of the speed rows as a bar chart into the PNG
// file path. Not collective.
func (r *Report) WritePNG(path string) error {
	title := fmt.Sprintf("xpmpi bench, %s: xpmpi time / C+MPI reference time (lower is better)", plural(r.Ranks, "rank"))
	return writeBenchPNG(path, r.Rows, title)
}
