package integrate

import (
	"fmt"
	"sort"
)

// DenseSolution is the solution of SolveIVP between its steps, as SciPy's
// OdeSolution: on each step the method's own interpolant (RK45's free
// fourth-order one, Radau's collocation polynomial).
type DenseSolution struct {
	pieces []piece
}

// piece is one step's interpolant: y(tOld + x h) = yOld + sum_k q[k] x^(k+1).
type piece struct {
	tOld, t float64
	yOld    []float64
	q       [][]float64
}

// add stores the interpolant of the step st just took.
func (d *DenseSolution) add(st stepper) {
	t, tOld, _ := st.state()
	var p piece
	p.tOld, p.t = tOld, t
	switch s := st.(type) {
	case *rk45:
		h := s.t - s.tOld
		p.yOld = append([]float64(nil), s.yOld...)
		p.q = make([][]float64, 4)
		for k := range p.q {
			p.q[k] = make([]float64, s.n)
			for i := range p.q[k] {
				var qk float64
				for j := 0; j < 7; j++ {
					qk += s.k[j][i] * dpP[j][k]
				}
				p.q[k][i] = h * qk
			}
		}
	case *radau:
		p.yOld = append([]float64(nil), s.yOld...)
		p.q = make([][]float64, 3)
		for k := range p.q {
			p.q[k] = append([]float64(nil), s.Q[k]...)
		}
	}
	d.pieces = append(d.pieces, p)
}

// Span returns the interval the solution covers, in the direction of
// integration.
func (d *DenseSolution) Span() (t0, t1 float64) {
	if len(d.pieces) == 0 {
		return 0, 0
	}
	return d.pieces[0].tOld, d.pieces[len(d.pieces)-1].t
}

// At writes y(t) into out (allocated when nil) and returns it. t outside
// the interval panics (SciPy extrapolates; we do not).
func (d *DenseSolution) At(t float64, out []float64) []float64 {
	t0, t1 := d.Span()
	lo, hi := min(t0, t1), max(t0, t1)
	if len(d.pieces) == 0 || !(t >= lo && t <= hi) {
		panic(fmt.Sprintf("integrate: DenseSolution.At(%g) outside [%g, %g]", t, lo, hi))
	}
	forward := t1 >= t0
	i := sort.Search(len(d.pieces), func(i int) bool {
		if forward {
			return d.pieces[i].t >= t
		}
		return d.pieces[i].t <= t
	})
	if i == len(d.pieces) {
		i--
	}
	p := &d.pieces[i]
	if out == nil {
		out = make([]float64, len(p.yOld))
	}
	x := (t - p.tOld) / (p.t - p.tOld)
	copy(out, p.yOld)
	xp := 1.0
	for k := range p.q {
		xp *= x
		for c := range out {
			out[c] += p.q[k][c] * xp
		}
	}
	return out
}
