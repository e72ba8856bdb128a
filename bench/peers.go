package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// Peer is what one separately run implementation of some of the workloads
// measured (`xpmpi bench --peers FILE`): a program started as its own MPI
// job at the bench's rank count before the bench, which prints this object
// as JSON. scripts/bench.sh runs two: bench/ref/w6.c, W6 as a plain C + MPI
// program at MPI_THREAD_SINGLE ("C alone"), and
// bench/peers/mpi4py_w2_w5.py, W2-W6 in NumPy + mpi4py ("mpi4py").
//
// Each figure goes beside the bench's row of its workload and unit (the
// first such row: xpmpi's own, before any PETSc rows), in the row's unit
// and so with the row's sense of better; each checksum is compared with
// xpmpi's checksum of the same workload and name (Check.What), with the
// tolerance the bench used for its own reference.
type Peer struct {
	// Name heads the peer's columns ("C alone", "mpi4py"); one name per
	// peer in a report.
	Name string `json:"peer"`
	// About says what the peer is (program, versions, thread level); the
	// report's notes quote it.
	About string `json:"about"`
	// Ranks is the size of the peer's MPI job: it must be the bench's.
	Ranks int `json:"ranks"`
	// Small is whether the peer ran the sizes of --small: it must match
	// the bench's.
	Small bool `json:"small"`
	// Reps is the peer's repetitions of each workload.
	Reps      int            `json:"reps"`
	Figures   []PeerFigures  `json:"figures"`
	Checksums []PeerChecksum `json:"checksums"`
}

// PeerFigures are a peer's figure of one row, every repetition, in the
// row's unit ("us/dot", "ms/iter", "GB/s", ...).
type PeerFigures struct {
	Workload string    `json:"workload"`
	Unit     string    `json:"unit"`
	Samples  []float64 `json:"samples"`
}

// PeerChecksum is a peer's checksum of one workload, every repetition,
// and whether the peer's own verification passed in each (W5's order, W4's
// convergence). What names the bench's check ("sum of u", ...).
type PeerChecksum struct {
	Workload string    `json:"workload"`
	What     string    `json:"what"`
	Values   []float64 `json:"values"`
	OK       []bool    `json:"ok"`
}

// PeerFigure is a peer's figure in a row of the table: the median over
// its repetitions, xpmpi's ratio against it (xpmpi time / peer time, as
// Row.Ratio), and whether the peer's checksums of the workload agree with
// xpmpi's.
type PeerFigure struct {
	Peer       string  `json:"peer"`
	Value      float64 `json:"value"`
	Ratio      float64 `json:"ratio"`
	ChecksumOK bool    `json:"checksum_ok"`
	Reps       int     `json:"reps"`
	Spread     float64 `json:"spread"`
	// Samples are the figures of every repetition, in the order run.
	Samples []float64 `json:"-"`
}

// ReadPeers reads peers from r: a sequence of JSON values, each a Peer
// object or an array of them (so that the outputs of several programs can
// be concatenated into one file). Unknown fields, a missing name, figure
// or checksum field, a checksum without one verification flag per value,
// and figures that are not finite are errors. Not collective.
func ReadPeers(r io.Reader) ([]Peer, error) {
	dec := json.NewDecoder(r)
	var peers []Peer
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("bench: peers: %w", err)
		}
		var batch []Peer
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.DisallowUnknownFields()
		var err error
		if t := strings.TrimSpace(string(raw)); strings.HasPrefix(t, "[") {
			err = d.Decode(&batch)
		} else {
			var p Peer
			err = d.Decode(&p)
			batch = []Peer{p}
		}
		if err != nil {
			return nil, fmt.Errorf("bench: peers: %w", err)
		}
		for _, p := range batch {
			if err := p.validate(); err != nil {
				return nil, err
			}
		}
		peers = append(peers, batch...)
	}
	if len(peers) == 0 {
		return nil, errors.New("bench: peers: no peer in the input")
	}
	return peers, nil
}

// validate checks what ReadPeers promises.
func (p Peer) validate() error {
	fail := func(format string, args ...any) error {
		name := p.Name
		if name == "" {
			name = "(no name)"
		}
		return fmt.Errorf("bench: peer %s: "+format, append([]any{name}, args...)...)
	}
	switch {
	case strings.TrimSpace(p.Name) == "" || strings.ContainsAny(p.Name, "\t\n"):
		return fail("needs a name without tabs or newlines")
	case p.Ranks < 1:
		return fail("ranks %d, want at least 1", p.Ranks)
	case len(p.Figures) == 0:
		return fail("no figures")
	}
	for _, f := range p.Figures {
		if f.Workload == "" || f.Unit == "" || len(f.Samples) == 0 {
			return fail("a figure needs a workload, a unit and samples: %+v", f)
		}
		for _, v := range f.Samples {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fail("%s (%s): figure %g is not finite", f.Workload, f.Unit, v)
			}
		}
	}
	for _, c := range p.Checksums {
		if c.Workload == "" || c.What == "" || len(c.Values) == 0 || len(c.OK) != len(c.Values) {
			return fail("a checksum needs a workload, a name, values and one ok per value: %+v", c)
		}
	}
	return nil
}

// LoadPeers reads the peers of every file (ReadPeers); two peers of one
// name are an error. Not collective: the command reads them on rank 0.
func LoadPeers(paths ...string) ([]Peer, error) {
	var all []Peer
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		peers, err := ReadPeers(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, path)
		}
		all = append(all, peers...)
	}
	seen := map[string]bool{}
	for _, p := range all {
		if seen[p.Name] {
			return nil, fmt.Errorf("bench: two peers named %q", p.Name)
		}
		seen[p.Name] = true
	}
	return all, nil
}

// CheckPeers returns an error if a peer ran at another rank count than
// ranks, or at other sizes than the bench (small says whether it runs
// --small): their figures would not be comparable. The command calls it
// before the bench runs, so that a wrong file fails at once. Not
// collective.
func CheckPeers(peers []Peer, ranks int, small bool) error {
	for _, p := range peers {
		if p.Ranks != ranks {
			return fmt.Errorf("bench: peer %s ran at %s, the bench at %s: run it at the same rank count", p.Name, plural(p.Ranks, "rank"), plural(ranks, "rank"))
		}
		if p.Small != small {
			return fmt.Errorf("bench: peer %s ran with small %v, the bench with --small %v: run both at the same sizes", p.Name, p.Small, small)
		}
	}
	return nil
}

// AddPeers puts the peers' figures into the report: each figure beside
// the first row of its workload and unit (Row.Peers), with xpmpi's ratio
// against it, and each checksum compared with xpmpi's check of the same
// workload and name, with that check's tolerance, as a Check of its own
// (workload "W3 mpi4py"). A figure's ChecksumOK needs at least one checksum
// of the peer for its workload, all agreeing, with the peer's own
// verification passed: a figure that cannot be checked is not a result.
// Figures and checksums the report has no row or check for (a workload
// --only left out) are left out with a note. A peer that ran at another
// rank count is an error; checksums that disagree show in Err, as the
// bench's own do. Not collective.
func (r *Report) AddPeers(peers []Peer) error {
	for _, p := range peers {
		if p.Ranks != r.Ranks {
			return fmt.Errorf("bench: peer %s ran at %s, the bench at %s", p.Name, plural(p.Ranks, "rank"), plural(r.Ranks, "rank"))
		}
		for _, row := range r.Rows {
			if slices.ContainsFunc(row.Peers, func(f PeerFigure) bool { return f.Peer == p.Name }) {
				return fmt.Errorf("bench: the report already has peer %s", p.Name)
			}
		}
	}
	for _, p := range peers {
		reps := 0
		// The checksums, per workload: agreed (all) or not.
		agreed := map[string]bool{}
		for _, pc := range p.Checksums {
			i := slices.IndexFunc(r.Checks, func(c Check) bool { return c.Workload == pc.Workload && c.What == pc.What })
			if i < 0 {
				r.Notes = append(r.Notes, fmt.Sprintf("peer %s: %s %q not compared: the bench made no such check", p.Name, pc.Workload, pc.What))
				continue
			}
			c := comparePeerChecksum(p.Name, r.Checks[i], pc)
			r.Checks = append(r.Checks, c)
			ok, seen := agreed[pc.Workload]
			agreed[pc.Workload] = c.OK && (ok || !seen)
		}
		for _, f := range p.Figures {
			i := slices.IndexFunc(r.Rows, func(row Row) bool { return row.Workload == f.Workload && row.Unit == f.Unit })
			if i < 0 {
				r.Notes = append(r.Notes, fmt.Sprintf("peer %s: no %s row in %s for its figure", p.Name, f.Workload, f.Unit))
				continue
			}
			if _, ok := agreed[f.Workload]; !ok {
				// A figure without a checksum that agrees is not a result.
				agreed[f.Workload] = false
				r.Checks = append(r.Checks, Check{Workload: f.Workload + " " + p.Name, What: "checksum", Against: p.Name, Detail: "the peer gave no checksum the bench could compare"})
			}
			row := &r.Rows[i]
			med := median(f.Samples)
			row.Peers = append(row.Peers, PeerFigure{
				Peer: p.Name, Value: med, Ratio: finite(ratioOf(row.Kind, row.XPMPI, med)),
				ChecksumOK: agreed[f.Workload], Reps: len(f.Samples), Spread: spread(f.Samples),
				Samples: slices.Clone(f.Samples),
			})
			reps = max(reps, len(f.Samples))
		}
		about := p.About
		if about == "" {
			about = "(no description)"
		}
		r.Notes = append(r.Notes, fmt.Sprintf("peer %s: %s; a separate MPI job at %s before the bench, %s of each workload back to back", p.Name, about, plural(p.Ranks, "rank"), plural(reps, "repetition")))
	}
	return nil
}

// comparePeerChecksum compares a peer's checksums with xpmpi's check c:
// every repetition's value with xpmpi's first, with c's tolerance.
func comparePeerChecksum(peer string, c Check, pc PeerChecksum) Check {
	out := Check{Workload: c.Workload + " " + peer, What: pc.What, XPMPI: c.XPMPI, Ref: pc.Values[0], Tol: c.Tol, Against: peer, OK: true}
	for i, v := range pc.Values {
		switch {
		case !pc.OK[i]:
			out.OK, out.Detail = false, fmt.Sprintf("repetition %d: %s's own verification failed", i+1, peer)
		case !agree(c.XPMPI, v, c.Tol):
			out.OK, out.Detail = false, fmt.Sprintf("repetition %d: xpmpi %.17g, %s %.17g", i+1, c.XPMPI, peer, v)
		}
		if !out.OK {
			return out
		}
	}
	if c.Tol == 0 {
		out.Detail = "equal"
	} else {
		d := 0.0
		if m := math.Max(math.Abs(out.XPMPI), math.Abs(out.Ref)); m > 0 {
			d = math.Abs(out.XPMPI-out.Ref) / m
		}
		out.Detail = fmt.Sprintf("relative difference %.2g (tolerance %g)", d, c.Tol)
	}
	return out
}

// peerNames returns the names of the peers in rows, in the order they
// were added (each row lists its peers in that order).
func peerNames(rows []Row) []string {
	var names []string
	for _, row := range rows {
		for k, f := range row.Peers {
			if slices.Contains(names, f.Peer) {
				continue
			}
			// Before the first later peer of this row already listed.
			at := len(names)
			for _, g := range row.Peers[k+1:] {
				if i := slices.Index(names, g.Peer); i >= 0 {
					at = i
					break
				}
			}
			names = slices.Insert(names, at, f.Peer)
		}
	}
	return names
}

// peerHeader returns the table's header cells of the peers' columns, each
// ending in a tab: the peer's median and xpmpi's ratio against it.
func peerHeader(names []string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s\txp/%s\t", n, n)
	}
	return b.String()
}

// peerCells returns row's cells of the peers' columns, each ending in a
// tab, "-" where the peer has no figure.
func peerCells(names []string, row Row) string {
	var b strings.Builder
	for _, n := range names {
		i := slices.IndexFunc(row.Peers, func(f PeerFigure) bool { return f.Peer == n })
		if i < 0 {
			b.WriteString("-\t-\t")
			continue
		}
		fmt.Fprintf(&b, "%.4g\t%.3f\t", row.Peers[i].Value, row.Peers[i].Ratio)
	}
	return b.String()
}

// checksumCell returns row's checksum cell: "ok", or "DISAGREE" followed by
// the peers whose checksums disagree.
func checksumCell(row Row) string {
	var bad []string
	if !row.ChecksumOK {
		bad = append(bad, "reference")
	}
	for _, f := range row.Peers {
		if !f.ChecksumOK {
			bad = append(bad, f.Peer)
		}
	}
	if len(bad) == 0 {
		return "ok"
	}
	if len(bad) == 1 && bad[0] == "reference" {
		return "DISAGREE"
	}
	return "DISAGREE (" + strings.Join(bad, ", ") + ")"
}

// peerSamples returns row's peers' samples for the --samples lines.
func peerSamples(row Row) string {
	var b strings.Builder
	for _, f := range row.Peers {
		fmt.Fprintf(&b, "; %s %s", f.Peer, formatSamples(f.Samples))
	}
	return b.String()
}
