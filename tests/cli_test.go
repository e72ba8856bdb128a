//go:build mpi

package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// noCrash fails if the output holds a Go crash.
func (r result) noCrash(t *testing.T) {
	t.Helper()
	for _, bad := range []string{"goroutine ", "panic", "fatal error"} {
		if strings.Contains(r.combined, bad) {
			r.fail(t, "the output holds %q", bad)
		}
	}
}

// cliBinaries returns the builds to run directly: the MPI build, and the
// default build where XPMPI_NOMPI_BIN names it.
func cliBinaries(t *testing.T) map[string]string {
	t.Helper()
	bins := map[string]string{"mpi": binary(t, "XPMPI_BIN")}
	if p := os.Getenv("XPMPI_NOMPI_BIN"); p != "" {
		bins["nompi"] = p
	}
	return bins
}

// TestCLIBadBackendEnv: an XPMPI_BACKEND that names no backend, or (strict)
// one that cannot run here, is one line naming the variable, the value and
// the choices, and exit 1; info prints what it can first; no rank crashes.
func TestCLIBadBackendEnv(t *testing.T) {
	envs := [][]string{{"XPMPI_BACKEND=foo"}}
	if _, err := os.Stat("/dev/nvidiactl"); err != nil {
		envs = append(envs, []string{"XPMPI_BACKEND=cuda", "XPMPI_BACKEND_STRICT=1"})
	}
	commands := [][]string{
		{"info"},
		{"info", "--json"},
		{"run", "heat2d", "--n", "16", "--iters", "2"},
		{"run", "cg", "--n", "16"},
		{"selftest"},
		{"bench", "--small", "--reps", "1"},
	}
	for _, env := range envs {
		value := strings.TrimPrefix(env[0], "XPMPI_BACKEND=")
		want := []string{fmt.Sprintf("XPMPI_BACKEND=%q", value), "(choices: cpu, cuda)"}
		for name, bin := range inKeyOrder(cliBinaries(t)) {
			for _, args := range commands {
				t.Run(fmt.Sprintf("%s/%s/%s", strings.Join(env, ","), name, strings.Join(args, "_")), func(t *testing.T) {
					// Each refuses before any work, one process each: they
					// bound no time, so they run together.
					t.Parallel()
					r := runEnv(t, time.Minute, env, bin, args...)
					if r.code != 1 {
						r.fail(t, "exit code %d, want 1", r.code)
					}
					r.noCrash(t)
					// Standard output and error interleave in r.combined, but
					// the error is one write: one line from rank 0 with the
					// variable, its value and the choices.
					line := regexp.MustCompile(`xpmpi: rank 0: ` + regexp.QuoteMeta(want[0]) + `[^\n]*` + regexp.QuoteMeta(want[1]) + `\n`)
					if n := len(line.FindAllString(r.combined, -1)); n != 1 || strings.Count(r.combined, want[0]) > 2 {
						r.fail(t, "%d lines match %q, want 1", n, line)
					}
					switch {
					case args[0] == "info" && len(args) == 1:
						if !strings.Contains(r.stdout, "RANK") {
							r.fail(t, "info printed no table")
						}
					case args[0] == "info":
						var doc struct{ Problems []string }
						if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Problems) != 1 {
							r.fail(t, "info --json: problems %q (%v)", doc.Problems, err)
						}
					case r.stdout != "":
						r.fail(t, "printed on standard output before refusing")
					}
				})
			}
		}
	}
	// Under mpirun every rank refuses alike, at once.
	for _, np := range []int{2, 4} {
		r := launchEnv(t, time.Minute, np, []string{"XPMPI_BACKEND=foo"}, binary(t, "XPMPI_BIN"), "info")
		if r.code == 0 || r.elapsed > 20*time.Second {
			r.fail(t, "XPMPI_BACKEND=foo info at %d ranks: exit %d after %v", np, r.code, r.elapsed)
		}
		r.noCrash(t)
		if !strings.Contains(r.stdout, "RANK") {
			r.fail(t, "XPMPI_BACKEND=foo info at %d ranks printed no table", np)
		}
		for rank := 0; rank < np; rank++ {
			if !strings.Contains(r.combined, fmt.Sprintf(`xpmpi: rank %d: XPMPI_BACKEND="foo"`, rank)) {
				r.fail(t, "rank %d did not name XPMPI_BACKEND", rank)
			}
		}
	}
}

// TestCLIUnknownCommand: a misspelt command is an error with a suggestion,
// not the help and exit 0.
func TestCLIUnknownCommand(t *testing.T) {
	t.Parallel() // see doc.go
	for name, bin := range inKeyOrder(cliBinaries(t)) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"run", "heat2dd"}, `xpmpi run: unknown command "heat2dd" (did you mean heat2d?)`},
			{[]string{"run", "cgg", "--n", "8"}, `(did you mean cg?)`},
			{[]string{"infoo"}, `xpmpi: unknown command "infoo" (did you mean info?)`},
			{[]string{"run"}, "name the example to run: heat2d or cg"},
		} {
			r := run(t, 30*time.Second, bin, c.args...)
			if r.code != 1 || !strings.Contains(r.combined, c.want) || strings.Contains(r.combined, "Usage:") {
				r.fail(t, "%s %s: want exit 1 and %q without the help", name, strings.Join(c.args, " "), c.want)
			}
		}
	}
}

// TestCLIFlagsBeforeWork: bad flags are refused before the banner, and a
// --png in a directory that does not exist before a run that would take
// minutes.
func TestCLIFlagsBeforeWork(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	for _, np := range []int{1, 3} {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--n", "-5"}, "heat2d: --n -5: want at least 1"},
			{[]string{"--n", "2000", "--iters", "1000000", "--png", "/no/such/dir/x.png"}, "--png /no/such/dir/x.png: directory /no/such/dir: no such file or directory"},
		} {
			r := launch(t, time.Minute, np, bin, append([]string{"run", "heat2d"}, c.args...)...)
			if r.code != 1 || !strings.Contains(r.combined, c.want) {
				r.fail(t, "np %d: want exit 1 and %q", np, c.want)
			}
			if r.stdout != "" || r.elapsed > 15*time.Second {
				r.fail(t, "np %d: printed %q, or ran (%v) before refusing", np, r.stdout, r.elapsed)
			}
			r.noCrash(t)
		}
	}
}

var resultLine = regexp.MustCompile(`^(heat2d: \d+ x \d+ interior, \d+ iterations, \d+ ranks, backend \w+|checksum \S+|time per iteration \S+ ms|ranks \d+)$`)

// TestCLIResultsOnStdout: `xpmpi run heat2d > out.txt` holds the results
// alone; progress goes to standard error with the rank, and --quiet keeps
// it off.
func TestCLIResultsOnStdout(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	r := launch(t, time.Minute, 2, bin, "run", "heat2d", "--n", "40", "--iters", "30")
	if r.code != 0 {
		r.fail(t, "heat2d failed")
		return
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 4 {
		r.fail(t, "standard output holds %d lines, want the 4 of the result", len(lines))
	}
	for _, l := range lines {
		if !resultLine.MatchString(l) {
			r.fail(t, "standard output holds %q, not a result", l)
		}
	}
	if !strings.Contains(r.combined, "xpmpi: rank 0: info: iteration 30/30 (100%)") {
		r.fail(t, "no progress on standard error")
	}
	q := launch(t, time.Minute, 2, bin, "run", "heat2d", "--n", "40", "--iters", "30", "--quiet")
	if q.code != 0 || strings.Contains(q.combined, "iteration 30/30") {
		q.fail(t, "--quiet: progress printed")
	}
	v := launch(t, time.Minute, 2, bin, "run", "heat2d", "--n", "40", "--iters", "30", "--verbose")
	if v.code != 0 || !strings.Contains(v.combined, "xpmpi: rank 1: debug: ") || strings.Contains(v.stdout, "debug") {
		v.fail(t, "--verbose: no debug messages from rank 1 on standard error")
	}
	bad := launchEnv(t, time.Minute, 2, []string{"XPMPI_LOG=loud"}, bin, "run", "heat2d", "--n", "40")
	if bad.code != 1 || !strings.Contains(bad.combined, `XPMPI_LOG="loud": want debug, info or warn`) || bad.stdout != "" {
		bad.fail(t, "XPMPI_LOG=loud: want exit 1 and the variable named")
	}
}

// TestCLIJSON: --json prints one JSON object from rank 0 at every rank
// count, with the text's figures.
func TestCLIJSON(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	for _, np := range []int{1, 4} {
		text := launch(t, time.Minute, np, bin, "run", "heat2d", "--n", "37", "--iters", "11")
		m := checksumLine.FindStringSubmatch(text.stdout)
		if text.code != 0 || m == nil {
			text.fail(t, "heat2d at %d ranks", np)
			continue
		}
		for _, args := range [][]string{
			{"run", "heat2d", "--n", "37", "--iters", "11", "--json"},
			{"run", "cg", "--n", "37", "--json"},
			{"selftest", "--json"},
		} {
			r := launch(t, 2*time.Minute, np, bin, args...)
			if r.code != 0 {
				r.fail(t, "%s at %d ranks failed", strings.Join(args, " "), np)
				continue
			}
			var doc map[string]any
			dec := json.NewDecoder(strings.NewReader(r.stdout))
			if err := dec.Decode(&doc); err != nil || dec.More() {
				r.fail(t, "%s at %d ranks: standard output is not one JSON object (%v)", strings.Join(args, " "), np, err)
				continue
			}
			if doc["ranks"] != float64(np) {
				r.fail(t, "%s: ranks %v, want %d", strings.Join(args, " "), doc["ranks"], np)
			}
			switch args[1] {
			case "heat2d":
				if fmt.Sprintf("%.16g", doc["checksum"]) != m[1] {
					r.fail(t, "heat2d --json: checksum %v, the text says %s", doc["checksum"], m[1])
				}
			case "cg":
				if doc["converged"] != true {
					r.fail(t, "cg --json: not converged")
				}
			default:
				if doc["failed"] != float64(0) || doc["passed"] == float64(0) {
					r.fail(t, "selftest --json: passed %v, failed %v", doc["passed"], doc["failed"])
				}
			}
		}
	}
}

// TestCLIVersion: the module version, revision and MPI library, the same
// from `version` and `--version`.
func TestCLIVersion(t *testing.T) {
	t.Parallel() // see doc.go
	libs := map[string]string{"mpi": "mpi Open MPI: ", "nompi": "mpi serial stand-in: "}
	for name, bin := range inKeyOrder(cliBinaries(t)) {
		a := run(t, 30*time.Second, bin, "version")
		b := run(t, 30*time.Second, bin, "--version")
		if a.code != 0 || b.code != 0 || a.stdout != b.stdout {
			a.fail(t, "%s: version and --version differ or fail:\n%s", name, b.combined)
			continue
		}
		for _, w := range []string{"xpmpi ", "revision ", "go go1.", libs[name]} {
			if !strings.Contains(a.stdout, w) {
				a.fail(t, "%s version: no %q", name, w)
			}
		}
		j := run(t, 30*time.Second, bin, "version", "--json")
		var doc struct{ Version, Revision, MPI, MPIVersion string }
		if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil || doc.Version == "" || doc.Revision == "" || doc.MPI == "" {
			j.fail(t, "%s version --json: %+v (%v)", name, doc, err)
		}
	}
}
