package linalg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestQR(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	// A slice, not a map: every rank must take the cases in one order.
	for _, tc := range []struct {
		m, n int
		q, r []float64
	}{{9, 3, qrQ_9_3, qrR_9_3}, {3, 5, qrQ_3_5, qrR_3_5}, {4, 4, qrQ_4_4, qrR_4_4}} {
		m, n, w := tc.m, tc.n, [2][]float64{tc.q, tc.r}
		k := min(m, n)
		for _, la := range matLayouts {
			a := mk[float64](t, c, []int{m, n}, 0, 0, la.opts([]int{m, n}, p)...)
			what := fmt.Sprintf("%v %s", a.Shape(), la.name)
			q, r, err := QR(a)
			mpitest.Check(t, c, err == nil, "%s: %v", what, err)
			if err != nil {
				a.Free()
				continue
			}
			mpitest.Check(t, c, slices.Equal(q.Shape(), []int{m, k}) && slices.Equal(r.Shape(), []int{k, n}), "%s: q %v r %v", what, q.Shape(), r.Shape())
			eq, er := relErr(all(t, q), w[0]), relErr(all(t, r), w[1])
			mpitest.Check(t, c, eq < 1e-13 && er < 1e-13, "%s: relative errors of q %.3g and r %.3g against NumPy", what, eq, er)
			mpitest.Check(t, c, r.Layout().Axis() == dist.Replicated, "%s: r has %v", what, r.Layout())
			if m >= n {
				mpitest.Check(t, c, q.Layout().Equal(a.Layout()), "%s: q has %v, a %v", what, q.Layout(), a.Layout())
			}
			q.Free()
			r.Free()
			a.Free()
		}
	}
}

func TestQRTypes(t *testing.T) {
	c := mpitest.World(t)
	a := mk[complex128](t, c, []int{6, 2}, 0, 2, dist.BlockSizes(unevenCounts(6, c.Size())))
	q, r, err := QR(a)
	mpitest.Check(t, c, err == nil, "complex128: %v", err)
	if err == nil {
		eq, er := relErr(all(t, q), qrQC), relErr(all(t, r), qrRC)
		mpitest.Check(t, c, eq < 1e-13 && er < 1e-13, "complex128: relative errors of q %.3g and r %.3g", eq, er)
		q.Free()
		r.Free()
	}
	a.Free()
	f := mk[float32](t, c, []int{9, 3}, 0, 0, dist.OnBackend(fakedev.Default))
	q32, r32, err := QR(f)
	mpitest.Check(t, c, err == nil, "float32: %v", err)
	if err == nil {
		eq, er := relErr(all(t, q32), qrQ_9_3), relErr(all(t, r32), qrR_9_3)
		mpitest.Check(t, c, eq < 1e-5 && er < 1e-5, "float32: relative errors of q %.3g and r %.3g", eq, er)
		mpitest.Check(t, c, q32.Device() == f.Device() && r32.Device() == f.Device(), "float32: q on %v, a on %v", q32.Device(), f.Device())
		q32.Free()
		r32.Free()
	}
	f.Free()
	// Orthonormal columns and a = q r for a taller random matrix.
	g, _ := dist.Normal[float64](c, []int{50, 4}, 3, 0, dist.BlockSizes(unevenCounts(50, c.Size())))
	qg, rg, err := QR(g)
	mpitest.Check(t, c, err == nil, "50 x 4: %v", err)
	if err == nil {
		gq, gr, ga := all(t, qg), all(t, rg), all(t, g)
		worst := 0.0
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				s := 0.0
				for k := 0; k < 50; k++ {
					s += gq[k*4+i] * gq[k*4+j]
				}
				if i == j {
					s--
				}
				worst = math.Max(worst, math.Abs(s))
			}
			worst = math.Max(worst, -gr[i*4+i])
		}
		for k := 0; k < 50; k++ {
			for j := 0; j < 4; j++ {
				s := ga[k*4+j]
				for i := 0; i < 4; i++ {
					s -= gq[k*4+i] * gr[i*4+j]
				}
				worst = math.Max(worst, math.Abs(s)/8)
			}
		}
		mpitest.Check(t, c, worst < 1e-14, "50 x 4: |qᵀq - I|, |a - qr| or a negative diagonal of r: %.3g", worst)
		qg.Free()
		rg.Free()
	}
	g.Free()
	v := mk[float64](t, c, []int{4}, 0, 0)
	_, _, err = QR(v)
	mpitest.Check(t, c, err != nil && contains(err.Error(), "2-D"), "QR of a vector: %v", err)
	v.Free()
}

func TestLstsq(t *testing.T) {
	c := mpitest.World(t)
	p := c.Size()
	for _, la := range matLayouts {
		a := mk[float64](t, c, []int{9, 3}, 0, 0, la.opts([]int{9, 3}, p)...)
		for _, bs := range [][]int{{9}, {9, 2}} {
			lays := vecLayouts
			salt, wx, wr := 1, lsX1, lsRes1
			if len(bs) == 2 {
				lays, salt, wx, wr = matLayouts, 2, lsX2, lsRes2
			}
			for _, lb := range lays {
				b := mk[float64](t, c, bs, salt, 0, lb.opts(bs, p)...)
				what := fmt.Sprintf("a %s, b %v %s", la.name, bs, lb.name)
				res, err := Lstsq(a, b)
				mpitest.Check(t, c, err == nil, "%s: %v", what, err)
				if err == nil {
					ex, er, es := relErr(all(t, res.X), wx), relErr(res.Residuals, wr), relErr(res.S, lsS)
					mpitest.Check(t, c, ex < 1e-13 && er < 1e-12 && es < 1e-13 && res.Rank == 3, "%s: relative errors of x %.3g, residuals %.3g, s %.3g; rank %d", what, ex, er, es, res.Rank)
					mpitest.Check(t, c, res.X.Layout().Axis() == dist.Replicated && slices.Equal(res.X.Shape(), append([]int{3}, bs[1:]...)), "%s: x %v", what, res.X.Layout())
					res.X.Free()
				}
				b.Free()
			}
		}
		a.Free()
	}
}

func TestLstsqTypesAndRefusals(t *testing.T) {
	c := mpitest.World(t)
	a := mk[complex128](t, c, []int{9, 3}, 0, 3)
	b := mk[complex128](t, c, []int{9}, 1, 4, dist.SplitAxis(dist.Replicated))
	res, err := Lstsq(a, b)
	mpitest.Check(t, c, err == nil, "complex128: %v", err)
	if err == nil {
		ex, er, es := relErr(all(t, res.X), lsXC), relErr(res.Residuals, lsResC), relErr(res.S, lsSC)
		mpitest.Check(t, c, ex < 1e-13 && er < 1e-12 && es < 1e-13, "complex128: relative errors of x %.3g, residuals %.3g, s %.3g", ex, er, es)
		res.X.Free()
	}
	a.Free()
	b.Free()
	// Rank-deficient: column 2 = column 0 + column 1.
	g := make([]float64, 27)
	for i := 0; i < 9; i++ {
		g[i*3], g[i*3+1] = fval(i*3, 0), fval(i*3+1, 0)
		g[i*3+2] = g[i*3] + g[i*3+1]
	}
	d := mkData(t, c, []int{9, 3}, g, dist.BlockSizes(unevenCounts(9, c.Size())))
	b1 := mk[float64](t, c, []int{9}, 1, 0)
	_, err = Lstsq(d, b1)
	var re *RankError
	mpitest.Check(t, c, errors.As(err, &re) && re.Rank == lsDefRank && errors.Is(err, ErrRankDeficient), "rank-deficient: %v, want rank %d", err, lsDefRank)
	// Wide and ill-shaped.
	w := mk[float64](t, c, []int{3, 5}, 0, 0)
	b3 := mk[float64](t, c, []int{3}, 1, 0)
	_, err = Lstsq(w, b3)
	mpitest.Check(t, c, err != nil && contains(err.Error(), "fewer rows than columns"), "wide: %v", err)
	_, err = Lstsq(d, b3)
	mpitest.Check(t, c, err != nil && contains(err.Error(), "b of shape [3]"), "b of another length: %v", err)
	// Square: residuals empty, as NumPy's.
	sq := mk[float64](t, c, []int{7, 7}, 0, 0)
	b7 := mk[float64](t, c, []int{7}, 1, 0)
	rs, err := Lstsq(sq, b7)
	mpitest.Check(t, c, err == nil && len(rs.Residuals) == 0, "square: %v", err)
	if err == nil {
		e := relErr(all(t, rs.X), solveX1_7)
		mpitest.Check(t, c, e < 1e-12, "square: relative error %.3g against numpy.linalg.solve", e)
		rs.X.Free()
	}
	for _, x := range []*dist.Array[float64]{d, b1, w, b3, sq, b7} {
		x.Free()
	}
}
