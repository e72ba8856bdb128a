package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// TestBenchPeersFlag checks that --peers reads its files before the bench
// runs: a wrong file fails at once with its own error, a right one gets as
// far as the bench (which needs the mpi build here).
func TestBenchPeersFlag(t *testing.T) {
	if mpi.Built {
		t.Skip("the mpi build runs the bench")
	}
	world := mpitest.World(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	peer := func(ranks int, small bool) string {
		return fmt.Sprintf(`{"peer": "C alone", "ranks": %d, "small": %v, "figures": [{"workload": "W6", "unit": "us/call", "samples": [0.5]}]}`, ranks, small)
	}
	good := write("good.json", peer(1, true))
	for _, c := range []struct {
		name string
		args []string
		err  string // "" : ErrNeedsMPI, the bench's own error
	}{
		{"good", []string{"--peers", good}, ""},
		{"missing file", []string{"--peers", filepath.Join(dir, "none.json")}, "no such file"},
		{"bad json", []string{"--peers", write("bad.json", "{")}, "bench: peers: unexpected EOF (in "},
		{"other rank count", []string{"--peers", write("np2.json", peer(2, true))}, "peer C alone ran at 2 ranks, the bench at 1 rank"},
		{"other sizes", []string{"--peers", write("full.json", peer(1, false))}, "the bench with --small true"},
		{"two files, one name", []string{"--peers", good, "--peers", good}, `two peers named "C alone"`},
	} {
		root := newRoot(world)
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetArgs(append([]string{"bench", "--small", "--reps", "1", "--quiet"}, c.args...))
		err := root.Execute()
		if c.err == "" {
			if !errors.Is(err, bench.ErrNeedsMPI) {
				t.Errorf("%s: error %v, want the bench's", c.name, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
		}
		if out.Len() != 0 {
			t.Errorf("%s: printed %q", c.name, out.String())
		}
	}
}
