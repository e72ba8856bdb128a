package dist

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// MatMulPanelWidth is the default width of SUMMA's panels, in columns of a
// (rows of b): 256.
//
// SUMMA here broadcasts each panel with a blocking Bcast (mpi.Comm has no
// non-blocking broadcast to overlap with the product), so narrower panels
// buy no overlap and cost a broadcast latency each; what they bound is
// memory, mr x w + w x nc elements for the two panels in transit. Each
// panel's local product is an mr x nc x w GEMM, which OpenBLAS (and gonum)
// run at their full speed once w reaches their own blocking of the inner
// dimension (256 to 384 for double precision on x86-64), so 256 costs the
// product nothing, keeps the broadcasts few (k/256) and the panels a
// bounded fraction of the blocks: for a 2048 x 2048 product on a 2 x 2
// grid, eight broadcasts along each grid axis of 2 MiB each.
const MatMulPanelWidth = 256

// summaLayout returns the layout of a*b for a and b on a process grid,
// panicking unless both are on the same 2-D grid.
func summaLayout(a, b Layout, o MatMulOptions) Layout {
	if !a.isGrid() || !b.isGrid() {
		panic(fmt.Sprintf("dist: MatMul of a %v by b %v: on a process grid, both operands must be (on the same grid); Redistribute the other", a, b))
	}
	if !slices.Equal(a.grid, b.grid) {
		panic(fmt.Sprintf("dist: MatMul of a %v by b %v: the process grids differ; Redistribute one onto the other's grid", a, b))
	}
	if o.Method != MatMulAuto {
		panic(fmt.Sprintf("dist: MatMul of operands on a process grid with method %v: they are multiplied by SUMMA (MatMulAuto)", o.Method))
	}
	return NewGridLayoutCounts([]int{a.shape[0], b.shape[1]}, [][]int{a.gcounts[0], b.gcounts[1]})
}

// summaPanel is one panel of SUMMA: the inner indices [lo, hi), which lie
// in the block of grid column ja of a and grid row ib of b.
type summaPanel struct{ lo, hi, ja, ib int }

// summaPanels cuts the inner dimension at the block boundaries of a's
// columns (astarts) and b's rows (bstarts), and the pieces into panels of
// at most w.
func summaPanels(astarts, bstarts []int, w int) []summaPanel {
	k := astarts[len(astarts)-1]
	var ps []summaPanel
	ja, ib := 0, 0
	for lo := 0; lo < k; {
		for astarts[ja+1] <= lo {
			ja++
		}
		for bstarts[ib+1] <= lo {
			ib++
		}
		hi := min(lo+w, astarts[ja+1], bstarts[ib+1])
		ps = append(ps, summaPanel{lo, hi, ja, ib})
		lo = hi
	}
	return ps
}

// summa multiplies a and b, both on the 2-D process grid of al and bl
// (pr x pc), into res, this rank's block of the result, by SUMMA (van de
// Geijn and Watts, 1997): for each panel of the inner dimension, the grid
// column that holds a's columns of the panel broadcasts them along each
// grid row, the grid row that holds b's rows of it broadcasts them along
// each grid column, and every rank adds the product of the two panels to
// its block. ab and bb are this rank's blocks of a and b on g's backend.
// It is collective.
func summa[T backend.Numeric](c mpi.Comm, g backend.GEMM, ab, bb, res *backend.Array[T], al, bl Layout, w int) (err error) {
	me := c.Rank()
	pr, pc := al.grid[0], al.grid[1]
	i, j := me/pc, me%pc
	mr, nc := al.gcounts[0][i], bl.gcounts[1][j]
	astarts, bstarts := al.gstarts[1], bl.gstarts[0]
	ka := al.gcounts[1][j] // a's columns on this rank
	panels := summaPanels(astarts, bstarts, w)
	if len(panels) == 0 {
		// k == 0: the product is zero.
		if mr > 0 && nc > 0 {
			g.Gemm(res.Buffer(), ab.Buffer(), bb.Buffer(), mr, nc, 0, 1, nc, nc, false)
		}
		return nil
	}
	// The grid's rows and columns: rank j of row i, rank i of column j.
	var row, col mpi.Comm
	if pc > 1 {
		if row, err = c.Split(i, j); err != nil {
			return err
		}
		defer row.Free()
	}
	if pr > 1 {
		if col, err = c.Split(j, i); err != nil {
			return err
		}
		defer col.Free()
	}
	wmax := 0
	for _, p := range panels {
		wmax = max(wmax, p.hi-p.lo)
	}
	be := ab.Backend()
	var apan, bpan *backend.Array[T]
	if pc > 1 && mr > 0 {
		if apan, err = backend.NewOn[T](be, mr*wmax); err != nil {
			return err
		}
		defer apan.Free()
	}
	if pr > 1 && nc > 0 {
		if bpan, err = backend.NewOn[T](be, wmax*nc); err != nil {
			return err
		}
		defer bpan.Free()
	}
	// A device fault that a panel's products or packing raise appears on
	// one rank in a later broadcast: a rank whose staging fails before
	// MPI is called takes part from host memory instead (a root
	// broadcasting zeros), a rank whose copy of what arrived fails goes
	// on, so that no rank waits for it, and the fault is recorded for the next call that agrees (SUMMA
	// adds no message to find out).
	var fault error
	defer func() {
		if fault != nil {
			recordFault(fault)
		}
	}()
	bcast := func(comm mpi.Comm, x *backend.Array[T], root int) error {
		err := staging.Bcast(comm, x, root)
		if err == nil || !isDeviceFault(err) {
			return err
		}
		if fault == nil {
			fault = err
		}
		// The root's staging fails before MPI is called, and so does
		// every rank's where MPI takes device memory (it synchronizes the
		// device first); elsewhere a receiving rank's failure is in the
		// copy of what arrived, after MPI.
		if aw := staging.CUDAAware(); comm.Rank() == root || (aw.Known && aw.Aware) {
			return mpi.Bcast(comm, make([]T, x.Len()), root)
		}
		return nil
	}
	var runs []run
	for s, p := range panels {
		wp := p.hi - p.lo
		// a's panel: mr x wp with leading dimension lda.
		var ap *backend.Array[T]
		lda := wp
		if mr > 0 {
			switch {
			case j == p.ja && (pc == 1 || wp == ka):
				// This rank's own columns, used in place (a whole block
				// is contiguous).
				ap, lda = ab.Slice(p.lo-astarts[j], ab.Len()), ka
			case j == p.ja:
				ap = apan.Slice(0, mr*wp)
				runs = runs[:0]
				for r := range mr {
					runs = append(runs, run{block: r*ka + p.lo - astarts[j], packed: r * wp, n: wp})
				}
				copyRuns(ap, ab, runs, false, "dist.MatMul SUMMA panel")
			default:
				ap = apan.Slice(0, mr*wp)
			}
			if pc > 1 {
				if err := bcast(row, ap, p.ja); err != nil {
					return err
				}
			}
		}
		// b's panel: wp x nc, rows of a block, contiguous.
		var bp *backend.Array[T]
		if nc > 0 {
			if i == p.ib {
				off := (p.lo - bstarts[i]) * nc
				bp = bb.Slice(off, off+wp*nc)
			} else {
				bp = bpan.Slice(0, wp*nc)
			}
			if pr > 1 {
				if err := bcast(col, bp, p.ib); err != nil {
					return err
				}
			}
		}
		if mr > 0 && nc > 0 {
			if err := localStep(func() { g.Gemm(res.Buffer(), ap.Buffer(), bp.Buffer(), mr, nc, wp, lda, nc, nc, s > 0) }); err != nil && fault == nil {
				fault = err
			}
		}
	}
	return nil
}
