package bench

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const peerC = `{"peer": "C alone", "about": "w6.c, MPI_THREAD_SINGLE", "ranks": 2, "small": true, "reps": 3,
 "figures": [{"workload": "W6", "unit": "us/call", "samples": [0.5, 0.4, 0.6]},
             {"workload": "W6", "unit": "GB/s", "samples": [8, 10, 9]}],
 "checksums": [{"workload": "W6", "what": "sum of the allreduce results", "values": [624, 624, 624], "ok": [true, true, true]},
               {"workload": "W6", "what": "ping-pong buffer sum", "values": [7, 7, 7], "ok": [true, true, true]}]}`

const peerPy = `[{"peer": "mpi4py", "about": "NumPy", "ranks": 2, "small": true, "reps": 1,
 "figures": [{"workload": "W2", "unit": "us/dot", "samples": [40]},
             {"workload": "W3", "unit": "ms/iter", "samples": [4]},
             {"workload": "W4", "unit": "s", "samples": [2]},
             {"workload": "W6", "unit": "us/call", "samples": [2.5]}],
 "checksums": [{"workload": "W2", "what": "dot", "values": [64512], "ok": [true]},
               {"workload": "W3", "what": "sum of u", "values": [1862.3339956117], "ok": [true]},
               {"workload": "W4", "what": "iterations", "values": [239], "ok": [true]},
               {"workload": "W4", "what": "sum of x", "values": [9730346.93189], "ok": [true]},
               {"workload": "W6", "what": "sum of the allreduce results", "values": [624], "ok": [true]}]}]`

func TestReadPeers(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		names []string
		err   string
	}{
		{"object", peerC, []string{"C alone"}, ""},
		{"array", peerPy, []string{"mpi4py"}, ""},
		{"concatenated", peerC + "\n" + peerPy, []string{"C alone", "mpi4py"}, ""},
		{"truncated", peerC[:100], nil, "bench: peers: unexpected EOF"},
		{"empty", " \n", nil, "no peer"},
		{"unknown field", `{"peer": "p", "ranks": 1, "colour": 1, "figures": [{"workload": "W2", "unit": "s", "samples": [1]}]}`, nil, `unknown field "colour"`},
		{"no name", `{"ranks": 1, "figures": [{"workload": "W2", "unit": "s", "samples": [1]}]}`, nil, "needs a name"},
		{"tab in name", `{"peer": "a\tb", "ranks": 1, "figures": [{"workload": "W2", "unit": "s", "samples": [1]}]}`, nil, "needs a name"},
		{"no ranks", `{"peer": "p", "figures": [{"workload": "W2", "unit": "s", "samples": [1]}]}`, nil, "ranks 0"},
		{"no figures", `{"peer": "p", "ranks": 1}`, nil, "no figures"},
		{"no samples", `{"peer": "p", "ranks": 1, "figures": [{"workload": "W2", "unit": "s", "samples": []}]}`, nil, "needs a workload, a unit and samples"},
		{"no unit", `{"peer": "p", "ranks": 1, "figures": [{"workload": "W2", "samples": [1]}]}`, nil, "needs a workload, a unit and samples"},
		{"ok count", `{"peer": "p", "ranks": 1, "figures": [{"workload": "W2", "unit": "s", "samples": [1]}],
			"checksums": [{"workload": "W2", "what": "dot", "values": [1, 1], "ok": [true]}]}`, nil, "one ok per value"},
		{"not json", `W2 1.0`, nil, "bench: peers: invalid character"},
	} {
		peers, err := ReadPeers(strings.NewReader(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var names []string
		for _, p := range peers {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, c.names) {
			t.Errorf("%s: peers %v, want %v", c.name, names, c.names)
		}
	}
	peers, err := ReadPeers(strings.NewReader(peerC))
	if err != nil {
		t.Fatal(err)
	}
	p := peers[0]
	if p.Ranks != 2 || !p.Small || p.Reps != 3 || len(p.Figures) != 2 || p.Figures[1].Unit != "GB/s" ||
		!slices.Equal(p.Figures[1].Samples, []float64{8, 10, 9}) || p.Checksums[0].Values[2] != 624 || !p.Checksums[1].OK[2] {
		t.Errorf("parsed %+v", p)
	}
}

func TestLoadAndCheckPeers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := write("a.json", peerC), write("b.json", peerPy)
	peers, err := LoadPeers(a, b)
	if err != nil || len(peers) != 2 {
		t.Fatalf("LoadPeers: %d peers, %v", len(peers), err)
	}
	if _, err := LoadPeers(a, a); err == nil || !strings.Contains(err.Error(), `two peers named "C alone"`) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := LoadPeers(filepath.Join(dir, "none.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadPeers(write("bad.json", "{")); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad file: %v", err)
	}
	for _, c := range []struct {
		ranks int
		small bool
		err   string
	}{
		{2, true, ""},
		{1, true, "peer C alone ran at 2 ranks, the bench at 1 rank"},
		{2, false, "peer C alone ran with small true, the bench with --small false"},
	} {
		err := CheckPeers(peers, c.ranks, c.small)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckPeers(%d, %v) = %v, want %q", c.ranks, c.small, err, c.err)
		}
	}
}

// peerReport is a report of a 2-rank small run, as Run makes one.
func peerReport() *Report {
	row := func(w, metric, unit string, kind Kind, xp, ref float64) Row {
		return newRow(w, 2, "cpu", metric, unit, kind, 0, []float64{xp}, []float64{ref}, true)
	}
	check := func(w, what string, v, tol float64) Check {
		return Check{Workload: w, What: what, XPMPI: v, Ref: v, OK: true, Detail: "equal", Tol: tol}
	}
	return &Report{Ranks: 2, Reps: 1,
		Rows: []Row{
			row("W2", "dot + allreduce", "us/dot", KindTime, 30, 20),
			row("W4", "CG time to solution", "s", KindTime, 1, 1),
			row("W4", "CG time, PETSc KSP + Go shell operator", "s", KindTime, 3, 1),
			row("W6", "allreduce 8 B", "us/call", KindTime, 1, 0.8),
			row("W6", "ping-pong 64 KiB, ranks 0-1", "GB/s", KindRate, 6, 7),
		},
		Checks: []Check{
			check("W2", "dot", 64512, 0),
			check("W4", "iterations", 239, 0),
			check("W4", "sum of x", 9730346.931890368, tolSum),
			check("W6", "sum of the allreduce results", 624, 0),
			check("W6", "ping-pong buffer sum", 7, 0),
		},
	}
}

func TestAddPeers(t *testing.T) {
	peers, err := ReadPeers(strings.NewReader(peerC + peerPy))
	if err != nil {
		t.Fatal(err)
	}
	r := peerReport()
	if err := r.AddPeers(peers); err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Errorf("Err: %v", err)
	}
	type fig struct {
		peer         string
		value, ratio float64
		ok           bool
	}
	want := map[string][]fig{
		"W2 us/dot":  {{"mpi4py", 40, 30.0 / 40, true}},
		"W4 s":       {{"mpi4py", 2, 0.5, true}},
		"W4 s PETSc": nil, // the first row of a workload and unit gets the figure
		// Time: xpmpi 1 us against 0.5; bandwidth: 6 GB/s against 9 is 1.5 times the time.
		"W6 us/call": {{"C alone", 0.5, 2, true}, {"mpi4py", 2.5, 0.4, true}},
		"W6 GB/s":    {{"C alone", 9, 1.5, true}},
	}
	for _, row := range r.Rows {
		key := row.Workload + " " + row.Unit
		if strings.Contains(row.Metric, "PETSc") {
			key += " PETSc"
		}
		var got []fig
		for _, f := range row.Peers {
			got = append(got, fig{f.Peer, f.Value, f.Ratio, f.ChecksumOK})
			if f.Reps != len(f.Samples) || f.Reps == 0 {
				t.Errorf("%s: %s reps %d, samples %v", key, f.Peer, f.Reps, f.Samples)
			}
		}
		w := want[key]
		if len(got) != len(w) {
			t.Errorf("%s: peers %+v, want %+v", key, got, w)
			continue
		}
		for i := range got {
			if got[i].peer != w[i].peer || got[i].value != w[i].value || math.Abs(got[i].ratio-w[i].ratio) > 1e-15 || got[i].ok != w[i].ok {
				t.Errorf("%s: peer %+v, want %+v", key, got[i], w[i])
			}
		}
	}
	if f := r.Rows[0].Peers[0]; f.Spread != 0 || r.Rows[4].Peers[0].Spread != 2.0/9 {
		t.Errorf("spreads %g, %g", f.Spread, r.Rows[4].Peers[0].Spread)
	}
	// The peers' checks, with their names; W3 has no row and no check here.
	var checks []string
	for _, c := range r.Checks[5:] {
		checks = append(checks, c.Workload+": "+c.What)
		if !c.OK || c.Against == "" {
			t.Errorf("check %+v", c)
		}
	}
	wantChecks := []string{
		"W6 C alone: sum of the allreduce results", "W6 C alone: ping-pong buffer sum",
		"W2 mpi4py: dot", "W4 mpi4py: iterations", "W4 mpi4py: sum of x", "W6 mpi4py: sum of the allreduce results",
	}
	if !slices.Equal(checks, wantChecks) {
		t.Errorf("checks %q, want %q", checks, wantChecks)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, s := range []string{
		`peer mpi4py: W3 "sum of u" not compared: the bench made no such check`,
		"peer mpi4py: no W3 row in ms/iter for its figure",
		"peer C alone: w6.c, MPI_THREAD_SINGLE; a separate MPI job at 2 ranks before the bench, 3 repetitions of each workload back to back",
	} {
		if !strings.Contains(notes, s) {
			t.Errorf("notes lack %q:\n%s", s, notes)
		}
	}
	if err := r.AddPeers(peers[:1]); err == nil || !strings.Contains(err.Error(), "already has peer C alone") {
		t.Errorf("second add: %v", err)
	}
	other := peers[0]
	other.Name, other.Ranks = "other", 3
	if err := r.AddPeers([]Peer{other}); err == nil || !strings.Contains(err.Error(), "ran at 3 ranks, the bench at 2 ranks") {
		t.Errorf("ranks: %v", err)
	}
}

func TestAddPeersDisagree(t *testing.T) {
	mk := func(values []float64, ok []bool, figures ...PeerFigures) Peer {
		p := Peer{Name: "py", Ranks: 2, Reps: len(values), Figures: figures}
		p.Checksums = []PeerChecksum{{Workload: "W4", What: "sum of x", Values: values, OK: ok}}
		return p
	}
	w4 := PeerFigures{Workload: "W4", Unit: "s", Samples: []float64{2}}
	x := 9730346.931890368
	for _, c := range []struct {
		name   string
		peer   Peer
		ok     bool
		detail string
	}{
		{"within tolerance", mk([]float64{x * (1 + 1e-11)}, []bool{true}, w4), true, "relative difference 1e-11"},
		{"beyond tolerance", mk([]float64{x, x * (1 + 1e-9)}, []bool{true, true}, w4), false, "repetition 2: xpmpi 9730346.9318903685, py 9730346.9416207"},
		{"own verification", mk([]float64{x}, []bool{false}, w4), false, "repetition 1: py's own verification failed"},
		{"no checksum of the figure's workload", mk([]float64{x}, []bool{true}, w4, PeerFigures{Workload: "W2", Unit: "us/dot", Samples: []float64{1}}), false, "the peer gave no checksum"},
	} {
		r := peerReport()
		if err := r.AddPeers([]Peer{c.peer}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var details []string
		allOK := true
		for _, ck := range r.Checks[5:] {
			details = append(details, ck.Detail)
			allOK = allOK && ck.OK
		}
		if allOK != c.ok || !strings.Contains(strings.Join(details, "; "), c.detail) {
			t.Errorf("%s: ok %v, details %q; want %v, %q", c.name, allOK, details, c.ok, c.detail)
		}
		err := r.Err()
		if c.ok != (err == nil) {
			t.Errorf("%s: Err %v", c.name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "checksums disagree in W") || err != nil && !strings.Contains(err.Error(), " py") {
			t.Errorf("%s: Err %v", c.name, err)
		}
		// The table says which peer disagrees, in the row it spoils.
		var b strings.Builder
		if err := r.WriteText(&b, false); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "DISAGREE (py)"); got == c.ok {
			t.Errorf("%s: table:\n%s", c.name, b.String())
		}
	}
}

func TestPeersTable(t *testing.T) {
	// Without peers the table is as before: no peer columns.
	r := peerReport()
	var plain strings.Builder
	if err := r.WriteText(&plain, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "xp/") || strings.Contains(plain.String(), "peers run separately") {
		t.Errorf("peer columns without peers:\n%s", plain.String())
	}
	peers, err := ReadPeers(strings.NewReader(peerC + peerPy))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddPeers(peers); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b, true); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[1], "peers run separately before the bench (see the notes): C alone, mpi4py;") {
		t.Errorf("legend %q", lines[1])
	}
	// The columns: after the reference's ratio, each peer's median and
	// xpmpi's ratio against it, "-" where it has no figure. Cells are
	// split on the runs of two or more spaces tabwriter pads with.
	cells := func(line string) []string {
		var out []string
		for _, f := range strings.Split(line, "  ") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	head := cells(lines[2])
	wantHead := []string{"workload", "ranks", "backend", "metric", "unit", "xpmpi", "reference", "ratio", "C alone", "xp/C alone", "mpi4py", "xp/mpi4py", "target", "checksum", "reps", "spread"}
	if !slices.Equal(head, wantHead) {
		t.Fatalf("header %q", head)
	}
	for _, c := range []struct {
		line int
		want []string
	}{
		{3, []string{"W2", "2", "cpu", "dot + allreduce", "us/dot", "30", "20", "1.500", "-", "-", "40", "0.750", "-", "ok", "1", "0.0%"}},
		{5, []string{"W4", "2", "cpu", "CG time, PETSc KSP + Go shell operator", "s", "3", "1", "3.000", "-", "-", "-", "-", "-", "ok", "1", "0.0%"}},
		{6, []string{"W6", "2", "cpu", "allreduce 8 B", "us/call", "1", "0.8", "1.250", "0.5", "2.000", "2.5", "0.400", "-", "ok", "1", "0.0%"}},
		{7, []string{"W6", "2", "cpu", "ping-pong 64 KiB, ranks 0-1", "GB/s", "6", "7", "1.167", "9", "1.500", "-", "-", "-", "ok", "1", "0.0%"}},
	} {
		if got := cells(lines[c.line]); !slices.Equal(got, c.want) {
			t.Errorf("line %d: %q, want %q", c.line, got, c.want)
		}
	}
	for _, s := range []string{
		"W6 C alone sum of the allreduce results: xpmpi 624, C alone 624: agree (equal)",
		"W4 mpi4py sum of x: xpmpi 9730346.931890368, mpi4py 9730346.93189: agree (relative difference 3.8e-14 (tolerance 1e-10))",
		"W6 ping-pong 64 KiB, ranks 0-1 (GB/s): xpmpi 6; reference 7; C alone 8 10 9",
		"W6 allreduce 8 B (us/call): xpmpi 1; reference 0.8; C alone 0.5 0.4 0.6; mpi4py 2.5",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	// JSON: the peers of each row, under "peers".
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := r.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Workload string       `json:"workload"`
		Unit     string       `json:"unit"`
		Peers    []PeerFigure `json:"peers"`
	}
	if err := json.Unmarshal(data, &rows); err != nil {
		t.Fatal(err)
	}
	if p := rows[3].Peers; len(p) != 2 || p[0].Peer != "C alone" || p[0].Value != 0.5 || p[0].Ratio != 2 || !p[0].ChecksumOK || p[1].Peer != "mpi4py" || p[1].Reps != 1 {
		t.Errorf("JSON row %+v", rows[3])
	}
	if rows[2].Peers != nil || strings.Count(string(data), `"peers"`) != 4 {
		t.Errorf("JSON: peers where there are none:\n%s", data)
	}
}
