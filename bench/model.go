package bench

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// LinkCost is the alpha-beta (latency-bandwidth) model of one message: a
// message of m bytes takes Alpha + m*Beta seconds, one way.
type LinkCost struct {
	Alpha float64 // seconds per message
	Beta  float64 // seconds per byte
}

// Time returns the modelled one-way time of a message of m bytes.
func (l LinkCost) Time(m float64) float64 { return l.Alpha + m*l.Beta }

// GBs returns the asymptotic bandwidth 1/Beta in GB/s.
func (l LinkCost) GBs() float64 { return 1 / l.Beta / 1e9 }

// FitLink fits a LinkCost to one-way message times (secs[i] is the time
// of a message of bytes[i] bytes) by least squares on the relative error,
// sum(((alpha + beta*bytes[i]) - secs[i]) / secs[i])^2, so that the
// latency of small messages counts as much as the bandwidth of large ones
// (plain least squares would fit the largest message alone). Alpha is
// clamped at zero where the data would make it negative, and Beta refitted.
// It panics with fewer than two distinct sizes or a time that is not
// positive.
func FitLink(bytes, secs []float64) LinkCost {
	if len(bytes) != len(secs) {
		panic(fmt.Sprintf("bench: FitLink: %d sizes, %d times", len(bytes), len(secs)))
	}
	// Weighted normal equations with weights 1/secs^2.
	var s0, s1, s2, t0, t1 float64
	for i, x := range bytes {
		y := secs[i]
		if !(y > 0) {
			panic(fmt.Sprintf("bench: FitLink: time %g for %g bytes", y, x))
		}
		w := 1 / (y * y)
		s0 += w
		s1 += w * x
		s2 += w * x * x
		t0 += w * y
		t1 += w * x * y
	}
	d := s0*s2 - s1*s1
	if len(bytes) < 2 || !(d > 1e-12*s0*s2) {
		panic("bench: FitLink needs at least two distinct message sizes")
	}
	alpha := (s2*t0 - s1*t1) / d
	beta := (s0*t1 - s1*t0) / d
	if alpha < 0 {
		alpha, beta = 0, t1/s2
	}
	return LinkCost{Alpha: alpha, Beta: beta}
}

// Machine is a cluster the model predicts for: nodes of CoresPerNode
// ranks, messages between ranks of a node cost Intra and between nodes
// Inter. Ranks are placed on nodes in order (ranks 0 to CoresPerNode-1 on
// the first node, ...), as mpirun's default --map-by core places them.
type Machine struct {
	Name         string
	CoresPerNode int
	Intra, Inter LinkCost
	Source       string // where Inter's figures come from
}

// Costs are the measured compute costs per grid point of one iteration
// of W3 and W4 with every core of a node busy (memory bandwidth shared as
// in a full node), and W4's iteration count at its size.
type Costs struct {
	JacobiPoint float64 // seconds per interior point per Jacobi sweep
	CGPoint     float64 // seconds per unknown per CG iteration
	CGN         int     // the grid side the iteration count was measured at
	CGIters     int     // CG iterations to 1e-8 at CGN x CGN
}

// Prediction is the modelled time of one iteration of a workload at a
// rank count, split into compute and communication. Comm is what is not
// overlapped with compute.
type Prediction struct {
	Ranks   int
	N       int // grid side
	Compute float64
	Comm    float64
}

// Total returns Compute + Comm.
func (p Prediction) Total() float64 { return p.Compute + p.Comm }

// CommShare returns the fraction of the iteration spent communicating.
func (p Prediction) CommShare() float64 {
	if t := p.Total(); t > 0 {
		return p.Comm / t
	}
	return 0
}

// Model predicts W3 (Jacobi) and W4 (CG) on a machine from measured
// compute costs and the machine's link costs.
type Model struct {
	Machine Machine
	Costs   Costs
}

// link returns the cost of a message between ranks a and b.
func (m Model) link(a, b int) LinkCost {
	if c := m.Machine.CoresPerNode; c > 0 && a/c != b/c {
		return m.Machine.Inter
	}
	return m.Machine.Intra
}

// grid returns the 2-D process grid of p ranks (rows x cols), the most
// square factorisation with rows >= cols, as MPI_Dims_create chooses.
func grid(p int) (rows, cols int) {
	cols = int(math.Sqrt(float64(p)))
	for p%cols != 0 {
		cols--
	}
	return p / cols, cols
}

// halo returns the slowest rank's halo exchange time of an n x n grid of
// float64 at p ranks: row blocks (two messages of a row each), or a 2-D
// process grid (four messages of a block edge each). A rank's messages
// are taken to go one after the other (a rank's sends share its memory
// bus or its network port), with no overlap with compute.
func (m Model) halo(p, n int, twoD bool) float64 {
	if p == 1 {
		return 0
	}
	worst := 0.0
	if !twoD {
		bytes := 8 * float64(n+2)
		for r := 0; r < p; r++ {
			t := 0.0
			if r > 0 {
				t += m.link(r, r-1).Time(bytes)
			}
			if r < p-1 {
				t += m.link(r, r+1).Time(bytes)
			}
			worst = math.Max(worst, t)
		}
		return worst
	}
	rows, cols := grid(p)
	ew := 8 * float64(ceilDiv(n, rows)) // an east or west edge: a column of the block
	ns := 8 * float64(ceilDiv(n, cols)) // a north or south edge: a row of the block
	for r := 0; r < p; r++ {
		i, j := r/cols, r%cols
		t := 0.0
		if i > 0 {
			t += m.link(r, r-cols).Time(ns)
		}
		if i < rows-1 {
			t += m.link(r, r+cols).Time(ns)
		}
		if j > 0 {
			t += m.link(r, r-1).Time(ew)
		}
		if j < cols-1 {
			t += m.link(r, r+1).Time(ew)
		}
		worst = math.Max(worst, t)
	}
	return worst
}

// Allreduce returns the modelled time of an allreduce of 8 bytes at p
// ranks: recursive doubling, ceil(log2 p) exchanges, the first ones
// between ranks of a node while the partners are on one.
func (m Model) Allreduce(p int) float64 {
	t := 0.0
	for d := 1; d < p; d *= 2 {
		t += m.link(0, d).Time(8)
	}
	return t
}

// Jacobi predicts one iteration of W3 on an n x n interior at p ranks, in
// row blocks or on a 2-D process grid: the sweep over the rank's points,
// then the halo exchange.
func (m Model) Jacobi(p, n int, twoD bool) Prediction {
	pts := float64(ceilDiv(n, p)) * float64(n)
	if twoD {
		rows, cols := grid(p)
		pts = float64(ceilDiv(n, rows)) * float64(ceilDiv(n, cols))
	}
	return Prediction{Ranks: p, N: n, Compute: m.Costs.JacobiPoint * pts, Comm: m.halo(p, n, twoD)}
}

// CG predicts one iteration of W4 on an n x n grid at p ranks, in row
// blocks: the operator and vector updates over the rank's unknowns, one
// halo exchange and two allreduces (p.Ap and r.r). With pipelined, the
// two reductions become one that overlaps the operator (pipelined CG,
// Ghysels and Vanroose): only what exceeds the compute time is counted.
func (m Model) CG(p, n int, pipelined bool) Prediction {
	pts := float64(ceilDiv(n, p)) * float64(n)
	comp := m.Costs.CGPoint * pts
	comm := m.halo(p, n, false)
	if pipelined {
		comm += math.Max(0, m.Allreduce(p)-comp)
	} else {
		comm += 2 * m.Allreduce(p)
	}
	return Prediction{Ranks: p, N: n, Compute: comp, Comm: comm}
}

// CGIters estimates CG's iterations on an n x n grid from the measured
// count: for the 5-point Laplacian the condition number grows as n^2, so
// the iterations grow as n.
func (m Model) CGIters(n int) int {
	if m.Costs.CGN == 0 {
		return 0
	}
	return int(math.Round(float64(m.Costs.CGIters) * float64(n) / float64(m.Costs.CGN)))
}

// Crossover returns the smallest rank count in ps at which f's
// communication reaches its compute, or 0 if none does.
func Crossover(ps []int, f func(p int) Prediction) int {
	for _, p := range ps {
		if pr := f(p); pr.Comm >= pr.Compute {
			return p
		}
	}
	return 0
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// HDR is the machine that docs/SCALING.md predicts for: nodes of 64 cores
// linked by HDR InfiniBand. The inter-node figures are assumptions from
// published figures, not measurements: 200 Gb/s per port is 25 GB/s, of
// which MPI reaches about 24 GB/s; the adapter's latency is under 0.6 us
// (Lenovo Press LP1195, ThinkSystem Mellanox ConnectX-6 HDR adapters), and
// an MPI message through one switch takes about 1 us. The intra-node
// figures are the ones measured here.
func HDR(intra LinkCost) Machine {
	return Machine{
		Name:         "64-core nodes, HDR InfiniBand 200 Gb/s",
		CoresPerNode: 64,
		Intra:        intra,
		Inter:        LinkCost{Alpha: 1.0e-6, Beta: 1 / 24e9},
		Source:       "ConnectX-6 HDR: 200 Gb/s, sub-0.6 us adapter latency (Lenovo Press LP1195); 1 us and 24 GB/s at the MPI level assumed",
	}
}

// ScalingRanks are the rank counts of the model's tables: powers of two
// to 1,024.
func ScalingRanks() []int {
	var ps []int
	for p := 1; p <= 1024; p *= 2 {
		ps = append(ps, p)
	}
	return ps
}

// WriteScaling writes the model's strong and weak scaling tables for W3
// and W4 at the rank counts ps: time per iteration, speedup or
// efficiency, and the share of communication.
func (m Model) WriteScaling(w io.Writer, ps []int, w3n, w4n int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	ms := func(s float64) string { return fmt.Sprintf("%.4g", s*1e3) }
	pct := func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
	fmt.Fprintf(tw, "W3 Jacobi, strong scaling, %d x %d (ms/iter)\n", w3n, w3n)
	fmt.Fprintln(tw, "ranks\trow blocks\tcomm\tspeedup\t2-D grid\tcomm\tspeedup\t")
	b1 := m.Jacobi(1, w3n, false).Total()
	for _, p := range ps {
		r, g := m.Jacobi(p, w3n, false), m.Jacobi(p, w3n, true)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.1f\t%s\t%s\t%.1f\t\n", p, ms(r.Total()), pct(r.CommShare()), b1/r.Total(), ms(g.Total()), pct(g.CommShare()), b1/g.Total())
	}
	fmt.Fprintf(tw, "\nW3 Jacobi, weak scaling, %d x %d points per rank (ms/iter)\n", w3n, w3n)
	fmt.Fprintln(tw, "ranks\tgrid side\trow blocks\tcomm\tefficiency\t2-D grid\tcomm\tefficiency\t")
	for _, p := range ps {
		n := int(math.Round(float64(w3n) * math.Sqrt(float64(p))))
		r, g := m.Jacobi(p, n, false), m.Jacobi(p, n, true)
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p, n, ms(r.Total()), pct(r.CommShare()), pct(b1/r.Total()), ms(g.Total()), pct(g.CommShare()), pct(b1/g.Total()))
	}
	fmt.Fprintf(tw, "\nW4 CG, strong scaling, %d x %d, %d iterations (ms/iter)\n", w4n, w4n, m.CGIters(w4n))
	fmt.Fprintln(tw, "ranks\tCG\tcomm\tspeedup\tpipelined CG\tcomm\tspeedup\t")
	c1 := m.CG(1, w4n, false).Total()
	for _, p := range ps {
		c, q := m.CG(p, w4n, false), m.CG(p, w4n, true)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.1f\t%s\t%s\t%.1f\t\n", p, ms(c.Total()), pct(c.CommShare()), c1/c.Total(), ms(q.Total()), pct(q.CommShare()), c1/q.Total())
	}
	fmt.Fprintf(tw, "\nW4 CG, weak scaling, %d x %d unknowns per rank (seconds to solution: iterations grow with the grid side)\n", w4n, w4n)
	fmt.Fprintln(tw, "ranks\tgrid side\titerations\tCG (s)\tcomm\tpipelined CG (s)\tcomm\t")
	for _, p := range ps {
		n := int(math.Round(float64(w4n) * math.Sqrt(float64(p))))
		it := float64(m.CGIters(n))
		c, q := m.CG(p, n, false), m.CG(p, n, true)
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.3g\t%s\t%.3g\t%s\t\n", p, n, int(it), it*c.Total(), pct(c.CommShare()), it*q.Total(), pct(q.CommShare()))
	}
	return tw.Flush()
}
