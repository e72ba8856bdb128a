package bench

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
// run's rows, replacing those of the same workload, metric, rank count
// and size and keeping the others.
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
		if err := WriteBaseline(path, BaselineEntries(r, "c2", "d2", "m2", "")); err != nil {
			t.Fatal(err)
		}
	}
	b, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Doc == "" || len(b.Entries) != 8 {
		t.Fatalf("doc %q, %d entries", b.Doc, len(b.Entries))
	}
	for _, e := range b.Entries {
		want := map[int]float64{1: 1, 2: 2}[e.Ranks]
		if e.Ranks == 1 && e.Workload == "W3" {
			want = 3
		}
		if math.Abs(e.Ratio-want) > 0.2 || e.Machine == "" || e.Commit == "" {
			t.Errorf("entry %+v, want ratio about %g", e, want)
		}
	}
	if _, err := ReadBaseline(filepath.Join(t.TempDir(), "none.json")); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
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
