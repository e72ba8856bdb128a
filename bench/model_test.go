package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestFitLink(t *testing.T) {
	want := LinkCost{Alpha: 0.4e-6, Beta: 1 / 5e9}
	var xs, ys []float64
	for _, b := range pingSizes {
		xs = append(xs, float64(b))
		ys = append(ys, want.Time(float64(b)))
	}
	got := FitLink(xs, ys)
	if math.Abs(got.Alpha-want.Alpha) > 1e-12 || math.Abs(got.Beta-want.Beta)/want.Beta > 1e-9 {
		t.Errorf("FitLink of exact times: %+v, want %+v", got, want)
	}
	// A slow largest message (half again its time) leaves the latency
	// of the small ones about right: the fit is on relative errors.
	ys[len(ys)-1] *= 1.5
	got = FitLink(xs, ys)
	if math.Abs(got.Alpha-want.Alpha)/want.Alpha > 0.1 {
		t.Errorf("FitLink with a slow 4 MiB message: alpha %g, want within 10%% of %g", got.Alpha, want.Alpha)
	}
	// Times that would fit a negative latency clamp it at zero.
	got = FitLink([]float64{1000, 2000}, []float64{0.5e-6, 1.5e-6})
	if got.Alpha != 0 || got.Beta <= 0 {
		t.Errorf("FitLink with a negative intercept: %+v, want alpha 0 and a positive beta", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("FitLink of one size did not panic")
		}
	}()
	FitLink([]float64{8, 8}, []float64{1e-6, 1e-6})
}

func TestGrid(t *testing.T) {
	for _, c := range []struct{ p, rows, cols int }{{1, 1, 1}, {2, 2, 1}, {4, 2, 2}, {6, 3, 2}, {8, 4, 2}, {12, 4, 3}, {1024, 32, 32}, {7, 7, 1}} {
		if r, k := grid(c.p); r != c.rows || k != c.cols {
			t.Errorf("grid(%d) = %d x %d, want %d x %d", c.p, r, k, c.rows, c.cols)
		}
	}
}

func testModel() Model {
	return Model{
		Machine: Machine{CoresPerNode: 4, Intra: LinkCost{Alpha: 1e-6, Beta: 1e-10}, Inter: LinkCost{Alpha: 10e-6, Beta: 1e-9}},
		Costs:   Costs{JacobiPoint: 1e-9, CGPoint: 4e-9, CGN: 100, CGIters: 300},
	}
}

func TestModelPredictions(t *testing.T) {
	m := testModel()
	intra, inter := m.Machine.Intra, m.Machine.Inter
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %g, want %g", what, got, want)
		}
	}
	// One rank: no communication at all.
	one := m.Jacobi(1, 1000, false)
	near("Jacobi(1) compute", one.Compute, 1e-9*1000*1000)
	near("Jacobi(1) comm", one.Comm, 0)
	// Two ranks on one node: each rank exchanges one row with the other.
	row := 8.0 * 1002
	near("Jacobi(2) comm", m.Jacobi(2, 1000, false).Comm, intra.Time(row))
	near("Jacobi(2) compute", m.Jacobi(2, 1000, false).Compute, 1e-9*500*1000)
	// Three ranks: the middle one sends two rows inside the node.
	near("Jacobi(3) comm", m.Jacobi(3, 1000, false).Comm, 2*intra.Time(row))
	// Eight ranks on two nodes: ranks 3 and 4 each have one neighbour on
	// the other node.
	near("Jacobi(8) comm", m.Jacobi(8, 1000, false).Comm, intra.Time(row)+inter.Time(row))
	// A 2-D grid of 4 ranks (2 x 2), one node: two edges of 500 each.
	edge := 8.0 * 500
	near("Jacobi(4, 2-D) comm", m.Jacobi(4, 1000, true).Comm, 2*intra.Time(edge))
	near("Jacobi(4, 2-D) compute", m.Jacobi(4, 1000, true).Compute, 1e-9*500*500)
	// Allreduce: recursive doubling, distances 1 and 2 inside a node of
	// 4, then 4 and 8 across nodes.
	near("Allreduce(16)", m.Allreduce(16), 2*intra.Time(8)+2*inter.Time(8))
	near("Allreduce(1)", m.Allreduce(1), 0)
	// CG: halo plus two allreduces; pipelined hides one reduction behind
	// the compute.
	c := m.CG(4, 1000, false)
	near("CG(4) comm", c.Comm, 2*intra.Time(row)+2*m.Allreduce(4))
	near("CG(4, pipelined) comm", m.CG(4, 1000, true).Comm, 2*intra.Time(row))
	if got := m.CGIters(200); got != 600 {
		t.Errorf("CGIters(200) = %d, want 600 (linear in the grid side)", got)
	}
	// Strong scaling eventually becomes communication bound.
	ps := ScalingRanks()
	cross := Crossover(ps, func(p int) Prediction { return m.Jacobi(p, 1000, false) })
	if cross == 0 || cross == 1 {
		t.Errorf("Crossover of strong-scaled Jacobi = %d, want a rank count above 1", cross)
	}
	if pr := m.Jacobi(cross, 1000, false); pr.Comm < pr.Compute {
		t.Errorf("at the crossover %d, comm %g < compute %g", cross, pr.Comm, pr.Compute)
	}
	if pr := m.Jacobi(cross/2, 1000, false); pr.Comm >= pr.Compute {
		t.Errorf("below the crossover, at %d, comm %g >= compute %g", cross/2, pr.Comm, pr.Compute)
	}
	// A 2-D grid sends less per rank than row blocks at many ranks.
	if g, r := m.Jacobi(1024, 4096, true), m.Jacobi(1024, 4096, false); g.Comm >= r.Comm {
		t.Errorf("at 1024 ranks, 2-D grid comm %g >= row blocks %g", g.Comm, r.Comm)
	}
}

func TestWriteScaling(t *testing.T) {
	var b bytes.Buffer
	if err := testModel().WriteScaling(&b, []int{1, 2, 1024}, 2048, 1024); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"W3 Jacobi, strong scaling, 2048 x 2048", "W3 Jacobi, weak scaling", "W4 CG, strong scaling, 1024 x 1024, 3072 iterations", "pipelined CG", "\n1024 "} {
		if !strings.Contains(out, s) {
			t.Errorf("scaling tables lack %q:\n%s", s, out)
		}
	}
}

// TestCalibrate measures the model's inputs at --small sizes at the rank
// count of the run (1-4 under scripts/test.sh): every cost is positive and
// finite, the link is fitted at 2 ranks or more, and both checks ran. The
// times themselves are not checked: this machine is shared.
func TestCalibrate(t *testing.T) {
	if testing.Short() {
		t.Skip("every sweep of the calibration: the full suite runs it")
	}
	world := mpitest.World(t)
	cal, err := Calibrate(world, CalibrateOptions{Small: true, Reps: 1})
	if err != nil {
		t.Fatalf("rank %d: %v", world.Rank(), err)
	}
	pos := func(what string, v float64) {
		t.Helper()
		if !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("%s = %g, want a positive finite value", what, v)
		}
	}
	pos("Jacobi cost per point", cal.Costs.JacobiPoint)
	pos("CG cost per point", cal.Costs.CGPoint)
	pos("allreduce", cal.Allreduce)
	if cal.Costs.CGIters < 100 || cal.Costs.CGN != sizesFor(true).CGN {
		t.Errorf("CG: %d iterations at side %d, want over 100 at %d", cal.Costs.CGIters, cal.Costs.CGN, sizesFor(true).CGN)
	}
	if world.Size() >= 2 {
		pos("link beta", cal.Link.Beta)
		if len(cal.Pings) != len(pingSizes) {
			t.Errorf("%d ping-pong sizes, want %d", len(cal.Pings), len(pingSizes))
		}
	} else if cal.Link != (LinkCost{}) {
		t.Errorf("a link %+v fitted at 1 rank", cal.Link)
	}
	if len(cal.Checks) != 2 || cal.Checks[0].Workload != "W3" || cal.Checks[1].Workload != "W4" {
		t.Fatalf("checks %+v, want W3 and W4", cal.Checks)
	}
	for _, c := range cal.Checks {
		pos(c.Workload+" measured", c.Measured)
		pos(c.Workload+" predicted", c.Predicted.Total())
	}
	var b bytes.Buffer
	if err := cal.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "check  ranks") {
		t.Errorf("calibration text lacks the check table:\n%s", b.String())
	}
}
