package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
)

// guardRun is a synthetic run: for each workload a time row whose
// reference repetitions take about 1 and whose xpmpi repetitions take
// about ratio times as long, each repetition disturbed by up to noise
// (relative), the same disturbance on both sides of a pair half the time
// (a load burst) and independent otherwise.
func guardRun(seed uint64, reps int, noise float64, ratio map[string]float64) *Report {
	rng := rand.New(rand.NewPCG(seed, 7))
	rep := &Report{Ranks: 1, Reps: reps}
	for _, w := range []string{"W2", "W3", "W4", "W5"} {
		var xs, rs []float64
		for i := 0; i < reps; i++ {
			load := 1 + noise*rng.Float64()
			x, r := ratio[w]*load, load
			if i%2 == 1 {
				x *= 1 + noise*(rng.Float64()-0.5)
				r *= 1 + noise*(rng.Float64()-0.5)
			}
			xs, rs = append(xs, x), append(rs, r)
		}
		rep.Rows = append(rep.Rows, newRow(w, 1, "cpu", "time", "s", KindTime, 1.1, xs, rs, true))
	}
	rep.Rows = append(rep.Rows, newRow("W4", 1, "cpu", "CG iterations", "count", KindInfo, 0, []float64{5, 5}, []float64{4, 4}, true))
	return rep
}

func verdictOf(t *testing.T, vs []Verdict, w string) Verdict {
	t.Helper()
	for _, v := range vs {
		if v.Workload == w {
			return v
		}
	}
	t.Fatalf("no verdict for %s in %+v", w, vs)
	return Verdict{}
}

// TestGuardFlagsSlowdown: a baseline from one synthetic run, then a run
// with the same code (another noise draw) passes, and a run where one
// workload is 30% slower fails naming it and only it.
func TestGuardFlagsSlowdown(t *testing.T) {
	same := map[string]float64{"W2": 0.9, "W3": 1.0, "W4": 1.05, "W5": 0.7}
	base := Baseline{}.Merge(BaselineEntries(guardRun(1, 9, 0.3, same), "c0", "d0", "m0", ""))
	if len(base.Entries) != 4 {
		t.Fatalf("baseline entries %+v (the iteration count is not a speed)", base.Entries)
	}
	for seed := uint64(2); seed < 12; seed++ {
		vs := Compare(guardRun(seed, 9, 0.3, same), base)
		if err := GuardError("b.json", vs); err != nil {
			t.Errorf("seed %d, unchanged run: %v", seed, err)
		}
		slow := map[string]float64{"W2": 0.9, "W3": 1.3, "W4": 1.05, "W5": 0.7}
		vs = Compare(guardRun(seed, 9, 0.3, slow), base)
		if v := verdictOf(t, vs, "W3"); v.Status != "slower" {
			t.Errorf("seed %d: W3 30%% slower judged %q (%+v)", seed, v.Status, v)
		}
		err := GuardError("b.json", vs)
		if err == nil || !strings.Contains(err.Error(), "W3 at 1 rank") || strings.Contains(err.Error(), "W2") || strings.Contains(err.Error(), "W5") {
			t.Errorf("seed %d: error %v", seed, err)
		}
	}
}

// TestGuardMargin: the margin is at least GuardMinMargin, grows with the
// noise of either run, and a row too noisy to judge is "noisy", not
// "same" and not "slower".
func TestGuardMargin(t *testing.T) {
	quiet := map[string]float64{"W2": 1, "W3": 1, "W4": 1, "W5": 1}
	base := Baseline{}.Merge(BaselineEntries(guardRun(1, 9, 0.01, quiet), "c", "d", "m", ""))
	vs := Compare(guardRun(2, 9, 0.01, map[string]float64{"W2": 1.05, "W3": 1.15, "W4": 1, "W5": 0.8}), base)
	for w, want := range map[string]string{"W2": "same", "W3": "slower", "W4": "same", "W5": "faster"} {
		if v := verdictOf(t, vs, w); v.Status != want || v.Margin != GuardMinMargin {
			t.Errorf("%s: %q with margin %g, want %q with %g", w, v.Status, v.Margin, want, GuardMinMargin)
		}
	}
	// A very noisy run: its margin exceeds GuardMaxMargin.
	noisy := &Report{Ranks: 1, Reps: 5, Rows: []Row{newRow("W3", 1, "cpu", "time", "s", KindTime, 1.1,
		[]float64{1.3, 2.6, 0.65, 1.3, 1.9}, []float64{1, 1, 1, 1.6, 1}, true)}}
	vs = Compare(noisy, base)
	if v := verdictOf(t, vs, "W3"); v.Status != "noisy" || !(v.Margin > GuardMaxMargin) {
		t.Errorf("noisy run: W3 %+v", v)
	}
	// Another rank count or size has no baseline.
	other := guardRun(2, 9, 0.01, quiet)
	other.Small = true
	if v := verdictOf(t, Compare(other, base), "W3"); v.Status != "new" {
		t.Errorf("--small against a full-size baseline: %+v", v)
	}
}

// TestGuardDrift: a baseline set by several runs (AddRun, and
// AddBaselineRun on a file) keeps their ratios, takes their median and
// records their range as the drift; the margin is at least
// GuardDriftFactor times it, so a row that drifted between the runs of
// unchanged code is "noisy" where it moves as far again, while a steady
// row made 30% slower is still flagged.
func TestGuardDrift(t *testing.T) {
	runA := map[string]float64{"W2": 1, "W3": 1, "W4": 1, "W5": 1}
	runB := map[string]float64{"W2": 1, "W3": 1.25, "W4": 1, "W5": 1}
	runC := map[string]float64{"W2": 1, "W3": 1.1, "W4": 1, "W5": 1}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := WriteBaseline(path, BaselineEntries(guardRun(1, 9, 0.01, runA), "c1", "d1", "m", "quiet")); err != nil {
		t.Fatal(err)
	}
	if err := AddBaselineRun(path, BaselineEntries(guardRun(2, 9, 0.01, runB), "c2", "d2", "m", "quiet")); err != nil {
		t.Fatal(err)
	}
	if err := AddBaselineRun(path, BaselineEntries(guardRun(3, 9, 0.01, runC), "c2", "d3", "m", "")); err != nil {
		t.Fatal(err)
	}
	base, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	var w3, w2 BaselineEntry
	for _, e := range base.Entries {
		switch e.Workload {
		case "W3":
			w3 = e
		case "W2":
			w2 = e
		}
	}
	if len(w3.Runs) != 3 || math.Abs(w3.Ratio-median(w3.Runs)) > 1e-12 || math.Abs(w3.Ratio-1.1) > 0.02 ||
		math.Abs(w3.Drift-spread(w3.Runs)) > 1e-12 || w3.Drift < 0.2 || w3.Reps != 27 ||
		w3.Commit != "c1; c2" || w3.Note != "quiet" || w3.Date != "d3" {
		t.Fatalf("W3 after three runs: %+v", w3)
	}
	if len(w2.Runs) != 3 || w2.Drift > 0.03 {
		t.Fatalf("W2 after three runs: %+v", w2)
	}
	// A run like the second: W3 within its drift (the noise alone would
	// have called 1.25 against 1.1 slower).
	vs := Compare(guardRun(4, 9, 0.01, runB), base)
	if v := verdictOf(t, vs, "W3"); v.Status == "slower" || math.Abs(v.Margin-GuardDriftFactor*w3.Drift) > 1e-12 {
		t.Errorf("W3 as in the second run: %+v (drift %g)", v, w3.Drift)
	}
	// W2 steady: 30% slower is flagged with the usual margin.
	slow := map[string]float64{"W2": 1.3, "W3": 1.1, "W4": 1, "W5": 1}
	vs = Compare(guardRun(5, 9, 0.01, slow), base)
	if v := verdictOf(t, vs, "W2"); v.Status != "slower" || v.Margin > 0.15 {
		t.Errorf("W2 30%% slower: %+v", v)
	}
	if v := verdictOf(t, vs, "W3"); v.Status != "noisy" {
		t.Errorf("W3, drift %g: %+v, want noisy (margin above %g)", w3.Drift, v, GuardMaxMargin)
	}
	// Writing a baseline anew drops the runs.
	if err := WriteBaseline(path, BaselineEntries(guardRun(6, 9, 0.01, runA), "c3", "d4", "m", "")); err != nil {
		t.Fatal(err)
	}
	if base, err = ReadBaseline(path); err != nil {
		t.Fatal(err)
	}
	for _, e := range base.Entries {
		if len(e.Runs) != 0 || e.Drift != 0 || e.Commit != "c3" {
			t.Errorf("after WriteBaseline: %+v", e)
		}
	}
}

// TestGuardFigures: the guard's ratio is the median of the per-repetition
// ratios (a rate's ratio is the reference's rate over xpmpi's), and its
// noise the median's standard error estimated from them.
func TestGuardFigures(t *testing.T) {
	r := newRow("W1", 1, "cpu", "triad", "GB/s", KindRate, 1.05, []float64{10, 10, 10, 10, 5}, []float64{11, 12, 13, 14, 20}, true)
	ratio, noise, sp := guardFigures(r)
	// Ratios 1.1 1.2 1.3 1.4 4: median 1.3, MAD 0.1.
	if math.Abs(ratio-1.3) > 1e-12 || math.Abs(noise-1.858*0.1/1.3/math.Sqrt(5)) > 1e-12 || math.Abs(sp-(4-1.1)/1.3) > 1e-12 {
		t.Errorf("ratio %g noise %g spread %g", ratio, noise, sp)
	}
}

// TestBaselineFile: WriteBaseline creates the file and merges a later
// run's rows, replacing those of the same workload, metric, rank count,
// size and machine and keeping the others, those of another machine
// included.
func TestBaselineFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.json")
	one := guardRun(1, 5, 0.1, map[string]float64{"W2": 1, "W3": 1, "W4": 1, "W5": 1})
	if err := WriteBaseline(path, BaselineEntries(one, "c1", "d1", "m1", "n1")); err != nil {
		t.Fatal(err)
	}
	two := guardRun(1, 5, 0.1, map[string]float64{"W2": 2, "W3": 2, "W4": 2, "W5": 2})
	two.Ranks = 2
	for i := range two.Rows {
		two.Rows[i].Ranks = 2
	}
	three := guardRun(1, 5, 0.1, map[string]float64{"W2": 3, "W3": 3, "W4": 3, "W5": 3})
	three.Rows = three.Rows[1:2] // W3 at 1 rank again
	for _, r := range []*Report{two, three} {
		if err := WriteBaseline(path, BaselineEntries(r, "c2", "d2", "m1", "")); err != nil {
			t.Fatal(err)
		}
	}
	// W3 at 1 rank on another machine: a row of its own.
	four := guardRun(1, 5, 0.1, map[string]float64{"W2": 4, "W3": 4, "W4": 4, "W5": 4})
	four.Rows = four.Rows[1:2]
	if err := WriteBaseline(path, BaselineEntries(four, "c3", "d3", "m2", "")); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Doc == "" || len(b.Entries) != 9 {
		t.Fatalf("doc %q, %d entries", b.Doc, len(b.Entries))
	}
	for _, e := range b.Entries {
		want := map[int]float64{1: 1, 2: 2}[e.Ranks]
		if e.Ranks == 1 && e.Workload == "W3" {
			want = map[string]float64{"m1": 3, "m2": 4}[e.Machine]
		}
		if math.Abs(e.Ratio-want) > 0.2 || e.Machine == "" || e.Commit == "" {
			t.Errorf("entry %+v, want ratio about %g", e, want)
		}
	}
	if _, err := ReadBaseline(filepath.Join(t.TempDir(), "none.json")); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

// TestSameMachine: which baseline rows a run on a machine is compared
// with.
func TestSameMachine(t *testing.T) {
	intel := "Intel(R) Xeon(R) Processor (family 6, model 207), 2 CPUs, linux/amd64"
	amd := "AMD EPYC (family 25, model 17), 2 CPUs, linux/amd64"
	for _, c := range []struct {
		entry, now string
		want       bool
	}{
		{intel, intel, true},
		{amd, intel, false},
		{"Intel(R) Xeon(R) Processor (family 6, model 143), 2 CPUs, linux/amd64", intel, false}, // another generation, the same model name
		{"AMD EPYC, 2 CPUs, linux/amd64", amd, true},                                            // recorded without family and model
		{"AMD EPYC, 2 CPUs, linux/amd64", intel, false},
		{"AMD EPYC, 4 CPUs, linux/amd64", amd, false},
		{"Intel(R) Xeon(R) Processor, 2 CPUs, linux/amd64", intel, true},
		{intel + "; " + intel, intel, true},
		{"AMD EPYC, 2 CPUs, linux/amd64; " + intel, intel, false}, // a row of two machines' runs
		{amd, "", true}, // a report that does not say its machine
		{"", intel, false},
	} {
		if got := SameMachine(c.entry, c.now); got != c.want {
			t.Errorf("SameMachine(%q, %q) = %v, want %v", c.entry, c.now, got, c.want)
		}
	}
	if m := MachineName(); !strings.Contains(m, " CPUs, ") || !SameMachine(m, m) {
		t.Errorf("MachineName() = %q", m)
	}
}

// TestMachineNameBound: a process bound to one CPU (as mpirun binds a
// rank to a core) names the same machine as an unbound one: the name has
// the machine's CPU count, not the process's (runtime.NumCPU, which
// counts the CPUs it may run on, is 1 there).
func TestMachineNameBound(t *testing.T) {
	if os.Getenv("XPMPI_TEST_MACHINE_NAME") == "1" {
		fmt.Printf("NUMCPU=%d\nNAME=%s\n", runtime.NumCPU(), MachineName())
		return
	}
	if mpi.Built {
		// The child is this test binary, which in an MPI build starts
		// MPI under the launcher's environment.
		t.Skip("runs in the default build: it starts this test binary again")
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil || runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs taskset and at least 2 CPUs")
	}
	cmd := exec.Command(taskset, "-c", "0", os.Args[0], "-test.run=^TestMachineNameBound$")
	cmd.Env = append(os.Environ(), "XPMPI_TEST_MACHINE_NAME=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "NUMCPU=1\n") {
		t.Fatalf("taskset -c 0 did not bind the child to one CPU: %s", out)
	}
	if want := "NAME=" + MachineName() + "\n"; !strings.Contains(string(out), want) {
		t.Errorf("bound to one CPU: %s, want %q", out, want)
	}
}

// TestGuardOtherMachine: a run is compared with the baseline rows of its
// own machine only. Against a baseline of another machine nothing is
// compared, not even a row made 30% slower, and the check fails saying
// so (a check that compared nothing does not pass); rows added for the
// run's machine are kept beside the other machine's, and from then on
// the run is compared with them.
func TestGuardOtherMachine(t *testing.T) {
	same := map[string]float64{"W2": 0.9, "W3": 1.0, "W4": 1.05, "W5": 0.7}
	slow := map[string]float64{"W2": 0.9, "W3": 1.3, "W4": 1.05, "W5": 0.7}
	const a, b = "CPU A (family 6, model 1), 2 CPUs, linux/amd64", "CPU B (family 25, model 2), 2 CPUs, linux/amd64"
	on := func(seed uint64, ratios map[string]float64, machine string) *Report {
		r := guardRun(seed, 9, 0.01, ratios)
		r.Machine = machine
		return r
	}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := WriteBaseline(path, BaselineEntries(on(1, same, a), "c1", "d1", a, "")); err != nil {
		t.Fatal(err)
	}
	base, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	vs := Compare(on(2, slow, b), base)
	for _, v := range vs {
		if v.Status != "other machine" || v.BaseMachine != a || v.Machine != b {
			t.Errorf("%s on machine B against A's rows: %+v", v.Workload, v)
		}
	}
	err = GuardError("b.json", vs)
	if err == nil || !strings.Contains(err.Error(), "nothing checked") || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Errorf("check on machine B against A's rows: %v", err)
	}
	var out strings.Builder
	if err := WriteVerdicts(&out, "b.json", vs); err != nil || !strings.Contains(out.String(), "this machine: "+b) || !strings.Contains(out.String(), "other machine: the baseline has these rows only for "+a) {
		t.Errorf("table: %v\n%s", err, out.String())
	}
	// On machine A the slowdown is flagged.
	if err := GuardError("b.json", Compare(on(3, slow, a), base)); err == nil || !strings.Contains(err.Error(), "W3 at 1 rank") {
		t.Errorf("W3 30%% slower on machine A: %v", err)
	}
	// B's rows, added by two runs, sit beside A's, which keep their one run.
	for seed := uint64(4); seed < 6; seed++ {
		if err := AddBaselineRun(path, BaselineEntries(on(seed, same, b), "c1", "d2", b, "")); err != nil {
			t.Fatal(err)
		}
	}
	if base, err = ReadBaseline(path); err != nil {
		t.Fatal(err)
	}
	if len(base.Entries) != 8 {
		t.Fatalf("%d entries after B's runs, want 8", len(base.Entries))
	}
	for _, e := range base.Entries {
		if want := map[string]int{a: 0, b: 2}[e.Machine]; len(e.Runs) != want || (e.Machine != a && e.Machine != b) {
			t.Errorf("entry %+v: %d runs, want %d", e, len(e.Runs), want)
		}
	}
	vs = Compare(on(6, slow, b), base)
	if v := verdictOf(t, vs, "W3"); v.Status != "slower" || v.BaseMachine != b {
		t.Errorf("W3 30%% slower on machine B against B's rows: %+v", v)
	}
	if v := verdictOf(t, vs, "W2"); v.Status != "same" {
		t.Errorf("W2 on machine B: %+v", v)
	}
	// A baseline recorded before machine names had family and model
	// still serves its machine.
	legacy := Baseline{Entries: BaselineEntries(on(1, same, ""), "c0", "d0", "CPU A, 2 CPUs, linux/amd64", "")}
	if v := verdictOf(t, Compare(on(7, same, a), legacy), "W3"); v.Status != "same" {
		t.Errorf("legacy row on its machine: %+v", v)
	}
}

// TestGuardNothingCompared: a check whose rows the baseline does not
// have at all (another size) fails rather than pass having compared
// nothing; one with no guarded row passes.
func TestGuardNothingCompared(t *testing.T) {
	base := Baseline{}.Merge(BaselineEntries(guardRun(1, 9, 0.01, map[string]float64{"W2": 1, "W3": 1, "W4": 1, "W5": 1}), "c", "d", "m", ""))
	small := guardRun(2, 9, 0.01, map[string]float64{"W2": 1, "W3": 1, "W4": 1, "W5": 1})
	small.Small = true
	if err := GuardError("b.json", Compare(small, base)); err == nil || !strings.Contains(err.Error(), "nothing checked") {
		t.Errorf("--small run against full-size rows: %v", err)
	}
	if err := GuardError("b.json", nil); err != nil {
		t.Errorf("no guarded row: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// TestParseSlowdown: the guard's test hook.
func TestParseSlowdown(t *testing.T) {
	m, err := parseSlowdown(" w3=1.3, W5=2")
	if err != nil || m["W3"] != 1.3 || m["W5"] != 2 || len(m) != 2 {
		t.Errorf("%v %v", m, err)
	}
	if m, err := parseSlowdown(""); m != nil || err != nil {
		t.Errorf("empty: %v %v", m, err)
	}
	for _, bad := range []string{"W3", "W3=0", "W3=x", "W99=1.3", "W3=-1", "W3=+Inf"} {
		if _, err := parseSlowdown(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
