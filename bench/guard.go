package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// The regression guard: `xpmpi bench --check FILE` compares this run's
// ratios, row by row (workload, metric, rank count, --small or not), with
// a committed baseline (bench/baseline.json), and fails naming the rows
// that got slower beyond a margin; `--write-baseline FILE` records this
// run's ratios in the baseline.
//
// A row's ratio for the guard is the median of its per-repetition ratios
// (xpmpi's repetition i over the reference's repetition i, which ran next
// to it), not the ratio of the two medians the table shows: a load burst
// that slows one pair of repetitions moves one ratio, not the median. Its
// noise is the relative standard error of that median estimated from the
// repetitions themselves: 1.858 * MAD / median / sqrt(n) (MAD, the median
// absolute deviation, times 1.4826 estimates a standard deviation; the
// median's standard error is 1.253 standard deviations over sqrt(n)).
//
// A row is slower when its ratio exceeds the baseline's by more than
//
//	margin = max(GuardMinMargin, GuardNoiseFactor * sqrt(noise_base^2 + noise_now^2))
//
// and faster when it is below the baseline's by the same margin. The
// constants were chosen from measured spreads (docs/PERFORMANCE.md, "The
// regression guard"): on the shared 2-core machine, unchanged code's
// ratios moved from run to run by up to 3.6 of their combined standard
// errors (W7's read; most rows under 2.6), so the factor is 4. A margin
// above GuardMaxMargin means the run is too noisy to tell a slowdown of
// 30% from noise: such a row is reported as "noisy" and does not fail the
// check (run again with more --reps). So a row made 30% slower is either
// flagged or reported as noisy, never passed as "same".
//
// The standard errors are those of one run's repetitions; on a shared
// host a row can also move between runs an hour apart by more than they
// say (W10 by 25-45% with unchanged code). A baseline set from several
// runs (--add-baseline-run, each run added to the rows) records that
// run-to-run drift, (max-min)/median of the runs' ratios, and the margin
// is at least GuardDriftFactor times it:
//
//	margin = max(GuardMinMargin, GuardNoiseFactor * sqrt(noise_base^2 + noise_now^2), GuardDriftFactor * drift)
//
// A row that drifts so much is reported as noisy rather than flagged.

// GuardMinMargin is the smallest relative margin of the guard.
const GuardMinMargin = 0.10

// GuardNoiseFactor multiplies the combined noise of the baseline and the
// run in the guard's margin.
const GuardNoiseFactor = 4.0

// GuardDriftFactor multiplies the baseline's run-to-run drift in the
// guard's margin: the range of two or three runs underestimates the range
// of runs to come (for normal draws, 1.1 and 1.7 standard deviations on
// average), so 1.5 ranges cover about 2.5 standard deviations of three.
const GuardDriftFactor = 1.5

// GuardMaxMargin is the largest margin at which the guard still judges a
// row; a noisier row is reported as "noisy" and passes.
const GuardMaxMargin = 0.25

// Baseline is the guard's reference file (bench/baseline.json).
type Baseline struct {
	// Doc says what the file is and under which conditions it was
	// measured.
	Doc     string          `json:"doc"`
	Entries []BaselineEntry `json:"entries"`
}

// BaselineEntry is one row's ratio in a baseline.
type BaselineEntry struct {
	Workload string  `json:"workload"`
	Metric   string  `json:"metric"`
	Ranks    int     `json:"ranks"`
	Small    bool    `json:"small"`
	Ratio    float64 `json:"ratio"`  // median of the per-repetition ratios
	Noise    float64 `json:"noise"`  // relative standard error of Ratio
	Spread   float64 `json:"spread"` // (max-min)/median of the per-repetition ratios
	// Runs are the ratios of the runs that set the entry, oldest first,
	// where more than one did (AddRun); Ratio is then their median.
	Runs []float64 `json:"runs,omitempty"`
	// Drift is (max-min)/median of Runs: how far the row moved between
	// runs (0 for one run).
	Drift   float64 `json:"drift,omitempty"`
	Reps    int     `json:"reps"`
	Commit  string  `json:"commit"`
	Date    string  `json:"date"`
	Machine string  `json:"machine"`
	Note    string  `json:"note,omitempty"` // the conditions of the measurement
}

func (b BaselineEntry) key() string {
	return fmt.Sprintf("%s|%s|%d|%v", b.Workload, b.Metric, b.Ranks, b.Small)
}

// pairRatios returns the per-repetition ratios of r, or nil where the row
// has no samples of both sides.
func pairRatios(r Row) []float64 {
	if len(r.XSamples) == 0 || len(r.XSamples) != len(r.RefSamples) {
		return nil
	}
	q := make([]float64, 0, len(r.XSamples))
	for i := range r.XSamples {
		if v := ratioOf(r.Kind, r.XSamples[i], r.RefSamples[i]); v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			q = append(q, v)
		}
	}
	return q
}

// guardFigures returns the guard's ratio of r, its relative noise and the
// spread of the per-repetition ratios. A row without samples falls back
// on the table's ratio, with a noise of half its spread over sqrt(reps).
func guardFigures(r Row) (ratio, noise, sprd float64) {
	q := pairRatios(r)
	if len(q) == 0 {
		n := math.Max(1, float64(r.Reps))
		return r.Ratio, r.Spread / 2 / math.Sqrt(n), r.Spread
	}
	ratio = median(q)
	if ratio == 0 {
		return 0, 0, 0
	}
	dev := make([]float64, len(q))
	for i, v := range q {
		dev[i] = math.Abs(v - ratio)
	}
	noise = 1.858 * median(dev) / ratio / math.Sqrt(float64(len(q)))
	return ratio, noise, spread(q)
}

// guarded reports whether the guard compares row r: speeds, not
// iteration counts or residuals.
func guarded(r Row) bool { return r.Kind != KindInfo }

// BaselineEntries returns the baseline entries of rep's rows, stamped
// with commit, date, machine and note.
func BaselineEntries(rep *Report, commit, date, machine, note string) []BaselineEntry {
	var out []BaselineEntry
	for _, r := range rep.Rows {
		if !guarded(r) {
			continue
		}
		ratio, noise, sp := guardFigures(r)
		out = append(out, BaselineEntry{Workload: r.Workload, Metric: r.Metric, Ranks: r.Ranks, Small: rep.Small,
			Ratio: ratio, Noise: noise, Spread: sp, Reps: r.Reps, Commit: commit, Date: date, Machine: machine, Note: note})
	}
	return out
}

// find returns the index in entries of the entry of e's workload, metric,
// rank count and size recorded on e's machine (SameMachine), or -1.
func find(entries []BaselineEntry, e BaselineEntry) int {
	return slices.IndexFunc(entries, func(o BaselineEntry) bool {
		return o.key() == e.key() && SameMachine(o.Machine, e.Machine)
	})
}

// Merge returns b with entries added, replacing those of the same
// workload, metric, rank count, size and machine (SameMachine); the rows
// of other machines stay. The entries are kept sorted.
func (b Baseline) Merge(entries []BaselineEntry) Baseline {
	out := Baseline{Doc: b.Doc, Entries: slices.Clone(b.Entries)}
	for _, e := range entries {
		if i := find(out.Entries, e); i >= 0 {
			out.Entries[i] = e
		} else {
			out.Entries = append(out.Entries, e)
		}
	}
	slices.SortStableFunc(out.Entries, func(x, y BaselineEntry) int {
		if c := strings.Compare(x.Machine, y.Machine); c != 0 {
			return c
		}
		if c := compareBool(x.Small, y.Small); c != 0 {
			return c
		}
		if x.Ranks != y.Ranks {
			return x.Ranks - y.Ranks
		}
		return benchOrder(x.Workload) - benchOrder(y.Workload)
	})
	return out
}

// AddRun returns b with the entries of one more run added to its rows:
// an entry of the same workload, metric, rank count, size and machine
// (SameMachine) keeps the ratios of every run (its Runs; an entry of one
// run counts as one), and its Ratio becomes their median, Drift their
// (max-min)/median, Noise and Spread the largest of the runs', Reps their
// sum, Commit and Note list those of the runs (each once), and its date
// and machine name are the last run's. An entry new to b, or to b's rows
// of its machine, is added as it is. Add runs of the same code only: the
// drift is meant to measure the host, not a change.
func (b Baseline) AddRun(entries []BaselineEntry) Baseline {
	merged := make([]BaselineEntry, 0, len(entries))
	for _, e := range entries {
		i := find(b.Entries, e)
		if i < 0 {
			merged = append(merged, e)
			continue
		}
		old := b.Entries[i]
		runs := slices.Clone(old.Runs)
		if len(runs) == 0 {
			runs = []float64{old.Ratio}
		}
		runs = append(runs, e.Ratio)
		n := old
		n.Runs = runs
		n.Ratio = median(runs)
		n.Drift = spread(runs)
		n.Noise = math.Max(old.Noise, e.Noise)
		n.Spread = math.Max(old.Spread, e.Spread)
		n.Reps = old.Reps + e.Reps
		n.Commit = joinOnce(old.Commit, e.Commit)
		n.Machine = e.Machine // the same machine, named as this version names it
		n.Note = joinOnce(old.Note, e.Note)
		n.Date = e.Date
		merged = append(merged, n)
	}
	return b.Merge(merged)
}

// joinOnce returns list, a "; "-separated list, with item added unless it
// is empty or already there.
func joinOnce(list, item string) string {
	if item == "" || slices.Contains(strings.Split(list, "; "), item) {
		return list
	}
	if list == "" {
		return item
	}
	return list + "; " + item
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// benchOrder is a workload's place in the bench's order.
func benchOrder(w string) int {
	if i := slices.Index(benchIDs, w); i >= 0 {
		return i
	}
	return len(benchIDs)
}

// baselineDoc is the Doc of a baseline file written anew.
const baselineDoc = "The regression guard's baseline (xpmpi bench --check, scripts/bench.sh --check): per workload, metric, rank count, size (small: --small) and machine (a run is compared with its own machine's rows only), " +
	"the median of the per-repetition ratios xpmpi/C (lower is better), its relative standard error (noise), the spread of the per-repetition ratios, " +
	"where several runs set a row their ratios (runs) and run-to-run drift ((max-min)/median), " +
	"and the commit, date, machine and conditions of the runs that set it. Written by xpmpi bench --write-baseline and --add-baseline-run; see docs/PERFORMANCE.md."

// ReadBaseline reads a baseline file.
func ReadBaseline(path string) (Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Baseline{}, fmt.Errorf("bench: baseline: %w", err)
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return Baseline{}, fmt.Errorf("bench: baseline %s: %w", path, err)
	}
	return b, nil
}

// WriteBaseline merges entries into the baseline file at path (created
// if it does not exist) and writes it.
func WriteBaseline(path string, entries []BaselineEntry) error {
	return updateBaseline(path, func(b Baseline) Baseline { return b.Merge(entries) })
}

// AddBaselineRun adds the entries of one more run to the rows of the
// baseline file at path (Baseline.AddRun; created if it does not exist)
// and writes it.
func AddBaselineRun(path string, entries []BaselineEntry) error {
	return updateBaseline(path, func(b Baseline) Baseline { return b.AddRun(entries) })
}

func updateBaseline(path string, update func(Baseline) Baseline) error {
	b, err := ReadBaseline(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		b = Baseline{}
	}
	b = update(b)
	b.Doc = baselineDoc // what the fields mean: this version's
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Verdict is the guard's judgement of one row.
type Verdict struct {
	Workload, Metric string
	Ranks            int
	Base, Now        float64 // the guard's ratios
	Margin           float64 // relative
	// Status is "same", "slower", "faster" or "noisy" for a row compared
	// with the baseline; "new" where the baseline has no row of its
	// workload, metric, rank count and size; "other machine" where it has
	// such rows, but only of other machines (BaseMachine names them).
	Status     string
	BaseCommit string
	// Machine is the run's machine (Report.Machine); BaseMachine the
	// machine of the baseline row it was compared with, or for "other
	// machine" those of the rows it was not.
	Machine, BaseMachine string
}

// compared reports whether v was judged against a baseline row.
func (v Verdict) compared() bool { return v.Status != "new" && v.Status != "other machine" }

// Compare judges every guarded row of rep against the baseline entry of
// the same workload, metric, rank count and size recorded on rep's
// machine (SameMachine): a ratio is xpmpi's speed against C's on one
// machine, and moves by more than the guard's margins from one CPU to
// another with the code unchanged (W7's read and W10 at 1 rank were
// flagged on 2026-12-07 by rows set on an AMD EPYC, in runs on an Intel
// Xeon).
func Compare(rep *Report, base Baseline) []Verdict {
	var out []Verdict
	for _, r := range rep.Rows {
		if !guarded(r) {
			continue
		}
		now, noise, _ := guardFigures(r)
		v := Verdict{Workload: r.Workload, Metric: r.Metric, Ranks: r.Ranks, Now: now, Status: "new", Machine: rep.Machine}
		want := BaselineEntry{Workload: r.Workload, Metric: r.Metric, Ranks: r.Ranks, Small: rep.Small, Machine: rep.Machine}
		i := find(base.Entries, want)
		if i < 0 {
			for _, e := range base.Entries {
				if e.key() == want.key() {
					v.Status = "other machine"
					v.BaseMachine = joinOnce(v.BaseMachine, e.Machine)
				}
			}
			out = append(out, v)
			continue
		}
		e := base.Entries[i]
		v.Base, v.BaseCommit, v.BaseMachine = e.Ratio, e.Commit, e.Machine
		v.Margin = max(GuardMinMargin, GuardNoiseFactor*math.Hypot(e.Noise, noise), GuardDriftFactor*e.Drift)
		switch {
		case now > e.Ratio*(1+v.Margin) && v.Margin <= GuardMaxMargin:
			v.Status = "slower"
		case now < e.Ratio/(1+v.Margin) && v.Margin <= GuardMaxMargin:
			v.Status = "faster"
		case v.Margin > GuardMaxMargin:
			v.Status = "noisy"
		default:
			v.Status = "same"
		}
		out = append(out, v)
	}
	return out
}

// Slower returns the verdicts that failed the check.
func Slower(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if v.Status == "slower" {
			out = append(out, v)
		}
	}
	return out
}

// WriteVerdicts prints the comparison as a table.
func WriteVerdicts(w io.Writer, path string, vs []Verdict) error {
	fmt.Fprintf(w, "regression guard: this run against %s (ratio = median of the per-repetition ratios xpmpi/C; slower: above the baseline by more than the margin)\n", path)
	if len(vs) > 0 && vs[0].Machine != "" {
		fmt.Fprintf(w, "this machine: %s (the baseline's rows of this machine only)\n", vs[0].Machine)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tranks\tmetric\tbaseline\tnow\tchange\tmargin\tverdict\tbaseline commit")
	for _, v := range vs {
		change, base, margin := "-", "-", "-"
		if v.compared() {
			change = fmt.Sprintf("%+.1f%%", 100*(v.Now/v.Base-1))
			base = fmt.Sprintf("%.3f", v.Base)
			margin = fmt.Sprintf("%.0f%%", 100*v.Margin)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\n", v.Workload, v.Ranks, v.Metric, base, v.Now, change, margin, v.Status, v.BaseCommit)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if others := otherMachines(vs); len(others) > 0 {
		fmt.Fprintf(w, "other machine: the baseline has these rows only for %s\n", strings.Join(others, "; "))
	}
	return nil
}

// otherMachines returns the machines, sorted and each once, of the
// baseline rows that the "other machine" verdicts of vs were not compared
// with.
func otherMachines(vs []Verdict) []string {
	var others []string
	for _, v := range vs {
		if v.Status == "other machine" {
			others = append(others, strings.Split(v.BaseMachine, "; ")...)
		}
	}
	slices.Sort(others)
	return slices.Compact(others)
}

// GuardError returns the error of the check: the rows that got slower,
// or, where no row could be compared (the baseline has none of this
// run's workloads, rank count, size and machine), that nothing was
// checked, since a check that compared nothing must not pass. nil when
// rows were compared and none got slower (or vs is empty: no guarded
// row ran).
func GuardError(path string, vs []Verdict) error {
	if slow := Slower(vs); len(slow) > 0 {
		var parts []string
		for _, v := range slow {
			parts = append(parts, fmt.Sprintf("%s at %s (%s: %.3f against %.3f, margin %.0f%%)", v.Workload, plural(v.Ranks, "rank"), v.Metric, v.Now, v.Base, 100*v.Margin))
		}
		return fmt.Errorf("bench: slower than the baseline %s: %s", path, strings.Join(parts, "; "))
	}
	if len(vs) == 0 || slices.ContainsFunc(vs, Verdict.compared) {
		return nil
	}
	if others := otherMachines(vs); len(others) > 0 {
		return fmt.Errorf("bench: nothing checked: the baseline %s has this run's rows only for another machine (%s), not for this one (%s); "+
			"ratios move between CPUs by more than the guard's margins, so they are not compared. "+
			"Set this machine's rows with runs of the baseline's code: scripts/bench.sh --add-baseline-run (see docs/PERFORMANCE.md)",
			path, strings.Join(others, "; "), vs[0].Machine)
	}
	return fmt.Errorf("bench: nothing checked: the baseline %s has no row of this run's workloads at its rank count and size (--small or not); "+
		"set them with --write-baseline or --add-baseline-run from a run of the baseline's code", path)
}

// GitCommit returns the short commit of the working directory's
// repository ($XPMPI_BENCH_COMMIT if set), with "+dirty" when the tree
// has changes, or "unknown".
func GitCommit() string {
	if c := os.Getenv("XPMPI_BENCH_COMMIT"); c != "" {
		return c
	}
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+dirty"
	}
	return c
}

// MachineName describes this machine: the CPU model, with its family and
// model numbers where /proc/cpuinfo gives them (a virtual machine's model
// name is often generic: "Intel(R) Xeon(R) Processor" names several
// generations), the machine's CPU count and the operating system, as in
// "Intel(R) Xeon(R) Processor (family 6, model 207), 2 CPUs, linux/amd64".
// The count is of the machine's processors (/proc/cpuinfo), not of those
// the process may run on: a rank that mpirun binds to one core is on the
// same machine as an unbound one. The guard compares a run only with the
// baseline rows of the same name (SameMachine).
func MachineName() string {
	model, family, number, cpus := "unknown CPU", "", "", 0
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			k, v, ok := strings.Cut(s.Text(), ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			switch strings.TrimSpace(k) {
			case "processor":
				cpus++
			case "model name":
				if cpus == 1 { // the first processor's fields
					model = v
				}
			case "cpu family":
				if cpus == 1 {
					family = v
				}
			case "model":
				if cpus == 1 {
					number = v
				}
			}
		}
		f.Close()
	}
	if family != "" && number != "" {
		model += " (family " + family + ", model " + number + ")"
	}
	if cpus == 0 {
		cpus = runtime.NumCPU()
	}
	return model + ", " + strconv.Itoa(cpus) + " CPUs, " + runtime.GOOS + "/" + runtime.GOARCH
}

// SameMachine reports whether a baseline entry recorded on the machine
// named entry (MachineName's form) may be compared with a run on the
// machine named now. The names must be equal, with two allowances: an
// entry recorded before the names had the CPU's family and model matches
// a machine whose name without them is the entry's, and a run that does
// not say its machine (now empty, as a synthetic report) matches every
// entry. An entry whose machine lists several ("; ", as runs of
// different machines once added to one row) matches where each does.
func SameMachine(entry, now string) bool {
	if now == "" {
		return true
	}
	bare := now
	if i := strings.Index(now, " (family "); i >= 0 {
		if j := strings.Index(now[i:], ")"); j >= 0 {
			bare = now[:i] + now[i+j+1:]
		}
	}
	for _, m := range strings.Split(entry, "; ") {
		if m != now && (strings.Contains(m, " (family ") || m != bare) {
			return false
		}
	}
	return true
}

// Today returns the current UTC time as the baseline records it.
func Today() string { return time.Now().UTC().Format("2006-01-02 15:04 UTC") }
