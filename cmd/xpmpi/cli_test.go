package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// execute runs the command tree in-process on every rank of the test job
// with args, and returns rank 0's standard output (empty on other ranks),
// this rank's standard error and the error.
func execute(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	world := mpitest.World(t)
	cobra.EnableTraverseRunHooks = true
	prev := slog.Default()
	defer slog.SetDefault(prev)
	root := newRoot(world)
	var out, errb bytes.Buffer
	if world.Rank() == 0 {
		root.SetOut(&out)
	}
	root.SetErr(&errb)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errb.String(), err
}

// oneLine fails unless err is one line holding every want.
func oneLine(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: %q is more than one line", what, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q lacks %q", what, err, w)
		}
	}
}

func TestBadBackendEnv(t *testing.T) {
	type env struct{ backend, strict string }
	cases := []struct {
		env  env
		want []string
	}{
		{env{"foo", ""}, []string{`XPMPI_BACKEND="foo"`, "cpu, cuda"}},
		{env{"cuda", "1"}, []string{`XPMPI_BACKEND="cuda"`, "XPMPI_BACKEND_STRICT=1", "cpu, cuda"}},
		{env{"cpu", "yes"}, []string{`XPMPI_BACKEND_STRICT="yes"`, "0, 1"}},
	}
	for _, c := range cases {
		if c.env.backend == "cuda" && cuda.Available() == nil {
			t.Log("a CUDA driver is present: XPMPI_BACKEND=cuda is usable, skipping that case")
			continue
		}
		t.Setenv("XPMPI_BACKEND", c.env.backend)
		t.Setenv("XPMPI_BACKEND_STRICT", c.env.strict)
		what := "XPMPI_BACKEND=" + c.env.backend + " XPMPI_BACKEND_STRICT=" + c.env.strict
		// info reports the problem after what it can print.
		out, _, err := execute(t, "info")
		oneLine(t, what+" info", err, c.want...)
		if mpitest.World(t).Rank() == 0 && !strings.Contains(out, "RANK") {
			t.Errorf("%s info: no table:\n%s", what, out)
		}
		out, _, err = execute(t, "info", "--json")
		oneLine(t, what+" info --json", err, c.want...)
		if mpitest.World(t).Rank() == 0 {
			var doc jobInfo
			if jerr := json.Unmarshal([]byte(out), &doc); jerr != nil || len(doc.Problems) != 1 || !strings.Contains(doc.Problems[0], c.want[0]) {
				t.Errorf("%s info --json: problems %q (%v):\n%s", what, doc.Problems, jerr, out)
			}
		}
		// The jobs refuse before any work or output.
		for _, args := range [][]string{
			{"run", "heat2d", "--n", "8", "--iters", "1"},
			{"run", "cg", "--n", "8"},
			{"selftest"},
			{"bench", "--small", "--reps", "1"},
		} {
			out, _, err := execute(t, args...)
			oneLine(t, what+" "+strings.Join(args, " "), err, c.want...)
			if out != "" {
				t.Errorf("%s %s: printed %q before refusing", what, strings.Join(args, " "), out)
			}
		}
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "heat2dd"}, []string{`"heat2dd"`, "did you mean heat2d?"}},
		{[]string{"run", "cgg", "--n", "8"}, []string{`"cgg"`, "did you mean cg?"}},
		{[]string{"run", "--bogus", "heat2d"}, []string{"unknown flag: --bogus", "flags go after its name"}},
		{[]string{"run", "nbody"}, []string{`"nbody"`, "cg, heat2d"}},
		{[]string{"infoo"}, []string{`"infoo"`, "did you mean info?"}},
		{[]string{"selftst"}, []string{"did you mean selftest?"}},
		{[]string{"run"}, []string{"heat2d or cg"}},
	} {
		out, _, err := execute(t, c.args...)
		oneLine(t, strings.Join(c.args, " "), err, c.want...)
		if strings.Contains(out, "Usage:") {
			t.Errorf("%s: printed the help:\n%s", strings.Join(c.args, " "), out)
		}
	}
}

func TestFlagsRefusedBeforeOutput(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "ck")
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "heat2d", "--n", "-5"}, []string{"--n -5"}},
		{[]string{"run", "heat2d", "--iters", "-1"}, []string{"--iters -1"}},
		{[]string{"run", "heat2d", "--every", "-1", "--checkpoint", ck}, []string{"--every -1"}},
		{[]string{"run", "heat2d", "--n", "8", "--png", "/no/such/dir/x.png"}, []string{"--png /no/such/dir/x.png", "/no/such/dir", "no such file"}},
		{[]string{"run", "heat2d", "--n", "8", "--png", filepath.Join(notDir, "x.png")}, []string{"--png", "not a directory"}},
		{[]string{"run", "heat2d", "--n", "8", "--png", t.TempDir()}, []string{"--png", "is a directory"}},
		{[]string{"run", "cg", "--n", "-5"}, []string{"--n -5"}},
		{[]string{"run", "cg", "--n", "8", "--tol", "-1"}, []string{"--tol -1"}},
		{[]string{"run", "heat2d", "--n", "8", "--verbose", "--quiet"}, []string{"--verbose and --quiet"}},
		{[]string{"selftest", "--fault", "explode"}, []string{`"explode"`, "panic, collective-error, mismatch, hang"}},
	} {
		out, stderr, err := execute(t, c.args...)
		oneLine(t, strings.Join(c.args, " "), err, c.want...)
		if out != "" || progressLine.MatchString(stderr) {
			t.Errorf("%s: printed before refusing:\n%s%s", strings.Join(c.args, " "), out, stderr)
		}
	}
	// A writable directory: the check leaves nothing behind, and the run
	// writes the picture.
	dir := t.TempDir()
	png := filepath.Join(dir, "heat.png")
	if _, _, err := execute(t, "run", "heat2d", "--n", "8", "--iters", "2", "--png", png); err != nil {
		t.Fatal(err)
	}
	if mpitest.World(t).Rank() == 0 {
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != "heat.png" {
			t.Errorf("the directory holds %v, want heat.png alone", entries)
		}
	}
}

var progressLine = regexp.MustCompile(`iteration \d+/\d+`)

func TestLogLevels(t *testing.T) {
	rank0 := mpitest.World(t).Rank() == 0
	run := []string{"run", "heat2d", "--n", "8", "--iters", "20"}
	// Default: progress on rank 0's standard error, results on standard
	// output.
	out, stderr, err := execute(t, run...)
	if err != nil {
		t.Fatal(err)
	}
	if progressLine.MatchString(out) {
		t.Errorf("progress on standard output:\n%s", out)
	}
	if rank0 && !strings.Contains(stderr, "xpmpi: rank 0: info: iteration 20/20 (100%)") {
		t.Errorf("no progress on standard error:\n%s", stderr)
	}
	if strings.Contains(stderr, "debug:") {
		t.Errorf("debug messages without --verbose:\n%s", stderr)
	}
	for _, c := range []struct {
		flag, env       string
		progress, debug bool
	}{
		{"--quiet", "", false, false},
		{"--verbose", "", true, true},
		{"", "warn", false, false},
		{"", "debug", true, true},
		{"", "INFO", true, false},
		{"--verbose", "warn", true, true}, // the flag wins
	} {
		t.Setenv("XPMPI_LOG", c.env)
		args := run
		if c.flag != "" {
			args = append(append([]string(nil), run...), c.flag)
		}
		_, stderr, err := execute(t, args...)
		if err != nil {
			t.Fatalf("%s XPMPI_LOG=%s: %v", c.flag, c.env, err)
		}
		rank := "xpmpi: rank " + strconv.Itoa(mpitest.World(t).Rank()) + ": debug: "
		if got := progressLine.MatchString(stderr); got != (c.progress && rank0) {
			t.Errorf("%s XPMPI_LOG=%s: progress %v, want %v:\n%s", c.flag, c.env, got, c.progress && rank0, stderr)
		}
		if got := strings.Contains(stderr, rank); got != c.debug {
			t.Errorf("%s XPMPI_LOG=%s: debug messages with %q: %v, want %v:\n%s", c.flag, c.env, rank, got, c.debug, stderr)
		}
	}
	t.Setenv("XPMPI_LOG", "loud")
	_, _, err = execute(t, run...)
	oneLine(t, "XPMPI_LOG=loud", err, `XPMPI_LOG="loud"`, "debug, info or warn")
	// info reports it and still prints.
	out, _, err = execute(t, "info")
	oneLine(t, "XPMPI_LOG=loud info", err, `XPMPI_LOG="loud"`)
	if rank0 && !strings.Contains(out, "RANK") {
		t.Errorf("XPMPI_LOG=loud info printed no table:\n%s", out)
	}
}

var textField = regexp.MustCompile(`(?m)^(checksum|ranks|iterations|relative residual) (\S+)$`)

// textFields returns the named values of a text report.
func textFields(s string) map[string]string {
	m := map[string]string{}
	for _, f := range textField.FindAllStringSubmatch(s, -1) {
		m[f[1]] = f[2]
	}
	return m
}

func TestJSONMatchesText(t *testing.T) {
	rank0 := mpitest.World(t).Rank() == 0
	size := mpitest.World(t).Size()
	for _, c := range []struct {
		args []string
		keys map[string]string // JSON key for each text field
	}{
		{[]string{"run", "heat2d", "--n", "13", "--iters", "7"}, map[string]string{"checksum": "checksum", "ranks": "ranks"}},
		{[]string{"run", "cg", "--n", "13"}, map[string]string{"checksum": "checksum", "ranks": "ranks", "iterations": "iterations", "relative residual": "relative_residual"}},
	} {
		text, _, err := execute(t, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		js, stderr, err := execute(t, append(c.args, "--json")...)
		if err != nil {
			t.Fatal(err)
		}
		if !rank0 {
			if js != "" {
				t.Errorf("rank %d printed %q", mpitest.World(t).Rank(), js)
			}
			continue
		}
		if strings.Contains(stderr, "{") {
			t.Errorf("%v --json: JSON on standard error", c.args)
		}
		var doc map[string]any
		dec := json.NewDecoder(strings.NewReader(js))
		if err := dec.Decode(&doc); err != nil || dec.More() {
			t.Fatalf("%v --json: not one JSON object (%v):\n%s", c.args, err, js)
		}
		for _, k := range []string{"n", "ranks", "backend", "checksum", "time_per_iteration_ms"} {
			if _, ok := doc[k]; !ok {
				t.Errorf("%v --json: no %q in %s", c.args, k, js)
			}
		}
		if doc["ranks"] != float64(size) || doc["n"] != float64(13) || doc["backend"] != "cpu" {
			t.Errorf("%v --json: n %v, ranks %v, backend %v", c.args, doc["n"], doc["ranks"], doc["backend"])
		}
		fields := textFields(text)
		if len(fields) != len(c.keys) {
			t.Fatalf("%v: text fields %v, want %d:\n%s", c.args, fields, len(c.keys), text)
		}
		for tk, jk := range c.keys {
			got, ok := doc[jk].(float64)
			// The text has 16 significant digits (6 for the residual).
			digits := 16
			if tk == "relative residual" {
				digits = 6
			}
			if !ok || strconv.FormatFloat(got, 'g', digits, 64) != fields[tk] {
				t.Errorf("%v: %s is %s in the text, %v in the JSON", c.args, tk, fields[tk], doc[jk])
			}
		}
	}
	js, _, err := execute(t, "selftest", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if rank0 {
		var rep selftestReport
		if err := json.Unmarshal([]byte(js), &rep); err != nil {
			t.Fatalf("selftest --json: %v:\n%s", err, js)
		}
		checks := selfChecks()
		if rep.Passed != len(checks) || rep.Failed != 0 || rep.Ranks != size || len(rep.Checks) != len(checks) {
			t.Fatalf("selftest --json: %+v", rep)
		}
		for i, c := range checks {
			if rep.Checks[i].Name != c.name || rep.Checks[i].Result != "pass" {
				t.Errorf("selftest --json: row %d is %+v, want %s pass", i, rep.Checks[i], c.name)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	rank0 := mpitest.World(t).Rank() == 0
	text, _, err := execute(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	flag, _, err := execute(t, "--version")
	if err != nil {
		t.Fatal(err)
	}
	js, _, err := execute(t, "version", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !rank0 {
		return
	}
	lib := mpi.LibraryInfo()
	for _, w := range []string{"xpmpi devel\n", "revision unknown\n", "go go1.", "mpi " + lib.Implementation + ": " + lib.Version + "\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("version: no %q in\n%s", w, text)
		}
	}
	if flag != text {
		t.Errorf("--version printed\n%s\nversion printed\n%s", flag, text)
	}
	var doc versionDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("version --json: %v:\n%s", err, js)
	}
	if doc.text() != text || doc.MPI != lib.Implementation {
		t.Errorf("version --json %+v differs from the text\n%s", doc, text)
	}
}

func TestCompletion(t *testing.T) {
	rank0 := mpitest.World(t).Rank() == 0
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "run", "heat2d", "--backend", ""}, []string{"cpu", "cuda"}},
		{[]string{"__complete", "run", "cg", "--backend", "c"}, []string{"cpu", "cuda"}},
		{[]string{"__complete", "selftest", "--fault", ""}, faultNames()},
		{[]string{"__complete", "run", ""}, []string{"heat2d", "cg"}},
	} {
		out, _, err := execute(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if !rank0 {
			continue
		}
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				got = append(got, strings.SplitN(l, "\t", 2)[0])
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			// Order aside.
			for _, w := range c.want {
				if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+w+" ") {
					t.Errorf("%v: completions %q lack %q", c.args, got, w)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("%v: completions %q, want %q", c.args, got, c.want)
			}
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, _, err := execute(t, "completion", sh)
		if err != nil {
			t.Fatalf("completion %s: %v", sh, err)
		}
		if rank0 && !strings.Contains(out, "xpmpi") {
			t.Errorf("completion %s: no script", sh)
		}
	}
}

func TestSelftestHelpListsItsChecks(t *testing.T) {
	out, _, err := execute(t, "selftest", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if mpitest.World(t).Rank() != 0 {
		return
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			listed[strings.TrimSpace(l)] = true
		}
	}
	for _, c := range selfChecks() {
		if !listed[c.name] {
			t.Errorf("selftest --help does not list %q", c.name)
		}
	}
	// Nothing promised that is not a check.
	for _, w := range []string{"checkpoint", "CUDA"} {
		if strings.Contains(out, w) {
			t.Errorf("selftest --help mentions %q, which no check tests:\n%s", w, out)
		}
	}
}

func TestDoctorExitCodes(t *testing.T) {
	world := mpitest.World(t)
	code := func(err error) int {
		var ee *exitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			return ee.code
		}
		return 1
	}
	_, _, err := execute(t, "doctor", "--np", "x")
	if code(err) != 2 {
		t.Errorf("doctor --np x: %v, exit %d, want 2", err, code(err))
	}
	_, _, err = execute(t, "doctor", "--np", "0")
	if code(err) != 2 {
		t.Errorf("doctor --np 0: %v, exit %d, want 2", err, code(err))
	}
	if world.Size() > 1 {
		_, _, err = execute(t, "doctor")
		if code(err) != 2 || !strings.Contains(err.Error(), "not under mpirun") {
			t.Errorf("doctor under mpirun: %v, exit %d, want 2", err, code(err))
		}
	}
	// Without a GPU the device findings are notes, and a report of notes
	// alone is healthy.
	dev, gpus := deviceFindings()
	if cuda.Available() != nil {
		if gpus != 0 || len(dev) != 1 || dev[0].Status != statusNote || dev[0].Fix == "" {
			t.Errorf("no driver: %+v, %d GPUs; want one note with a fix", dev, gpus)
		}
	}
	rep := report(append(dev, okFinding("mpi job", "2 ranks")))
	if cuda.Available() != nil && (!rep.Healthy || rep.Problems != 0 || rep.Notes != 1) {
		t.Errorf("notes alone: %+v, want healthy", rep)
	}
	var b bytes.Buffer
	printFindings(&b, rep)
	if cuda.Available() != nil && (!strings.Contains(b.String(), "no problems found") || strings.Contains(b.String(), "PROBLEM") || !strings.Contains(b.String(), "note (driver): ")) {
		t.Errorf("notes alone printed:\n%s", b.String())
	}
	rep = report(append(dev, problemFinding("mpi job", "no MPI launcher found", "install one")))
	if rep.Healthy || rep.Problems != 1 {
		t.Errorf("a problem: %+v, want unhealthy", rep)
	}
	b.Reset()
	printFindings(&b, rep)
	if !strings.Contains(b.String(), "PROBLEM") || !strings.Contains(b.String(), "fix (mpi job): install one") || strings.Contains(b.String(), "no problems found") {
		t.Errorf("a problem printed:\n%s", b.String())
	}
}
