package linalg

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// PanelWidth is the width, in columns, of the panels of Solve's blocked
// LU factorization: 64. Each panel costs one all-gather of its pivot rows
// and one local GEMM of the trailing rows by them (see Solve); 64 keeps
// the pivot steps' messages small and the GEMMs at gonum's full speed.
const PanelWidth = 64

// panelWidth is PanelWidth, changed by the tests to exercise many panels
// on small matrices.
var panelWidth = PanelWidth

// Solve returns the solution x of a x = b for a square n x n matrix a and
// b of shape [n] or [n, k], as numpy.linalg.solve (LAPACK's getrf and
// getrs): LU factorization with partial pivoting, then the two triangular
// solves. It takes float32, float64, complex64 and complex128 arrays, and
// computes in the element type (as LAPACK's s, d, c and z routines).
//
// An exactly singular a (a zero pivot: getrf's info > 0) is an error, a
// *SingularError wrapping ErrSingular that names the 0-based pivot column,
// as NumPy raises LinAlgError("Singular matrix"); a merely ill-conditioned
// a gives what LAPACK gives, inaccurate values without an error. NaN in a
// or b propagates to x, with LAPACK's (and NumPy's) pivot choice: a NaN on
// the diagonal position is the pivot, one below it is passed over, so a
// column of zeros and NaNs below a zero is singular, as NumPy reports it. Shapes that do not fit (a not square, b's first axis
// not n, b not 1-D or 2-D) are errors, as are arrays on different
// communicators and freed arrays (wrapping dist.ErrFreed).
//
// # Layouts
//
// Every layout is taken. a is factored by row blocks: an a split along
// axis 0 (with any block sizes, ghost layers or not) is used where it is;
// any other a (split along axis 1, on a process grid, replicated) is first
// redistributed to even row blocks (one all-to-all; a replicated a needs no
// communication). b is redistributed to a's row blocks where it is not
// already on them. x has b's layout: split along axis 0 as b, replicated
// if b is; for b of another layout (axis 1, a process grid) x is computed
// by rows and redistributed to b's layout (one all-to-all); x has no ghost
// layers. x is on b's backend. Blocks on a device are copied to the host
// for the factorization (recorded): the LU runs on the CPU (gonum's GEMM
// and TRSM, Go loops for the pivot steps).
//
// # Algorithm and communication
//
// Right-looking blocked LU over row blocks without moving rows between
// ranks: the pivot rows stay on the ranks that hold them, as in a 1-D
// ScaLAPACK factorization with the row permutation kept as a list
// (replicated, n integers). For each column j (the first of a pivot's
// ties, as LAPACK's i?amax chooses, by the row's position in LAPACK's
// swapped order): one all-gather of 2 numbers per rank (each rank's
// candidate), and one broadcast of the pivot row's part within the panel
// (at most PanelWidth elements). For each panel of PanelWidth columns:
// one all-gather of the panel's pivot rows right of the panel's first
// column (PanelWidth x (n-j+k) elements), from which every rank computes
// the panel's U rows (a TRSM) and updates its own trailing rows (a GEMM).
// b's columns ride along as extra columns of a, so that the forward
// substitution is the factorization's own; the backward substitution
// takes one all-gather of PanelWidth x (PanelWidth+k) elements per panel.
// In all each rank receives about n²/2 + 2n·k elements in 2n + 2n/64
// collectives, and does about 2n³/(3p) flops when the pivots are spread
// over the ranks (the rows that remain to be eliminated are those not yet
// chosen as pivots, wherever they are).
//
// Why this and not ScaLAPACK: Debian's libscalapack-openmpi-dev
// (pdgesv) would add a cgo dependency on a Fortran library and on Open
// MPI alone (not MPICH, not the serial stand-in), a 2-D block-cyclic
// layout that dist has no layout for (every call would redistribute
// twice), and a build tag; see docs/DECISIONS.md. This LU has LAPACK's
// pivoting and singularity semantics with no new dependency.
//
// Results agree with NumPy's to within the usual backward error of LU
// with partial pivoting: the residual |b - a x| is of order
// n·ε·|a|·|x|, ε the unit roundoff of T; the blocking and the rank count
// change only the order of the sums.
func Solve[T backend.Inexact](a, b *dist.Array[T]) (*dist.Array[T], error) {
	const op = "Solve"
	if anyFreed(a, b) {
		return nil, freed(op, a.Comm())
	}
	as, bs := a.Shape(), b.Shape()
	if len(as) != 2 || as[0] != as[1] {
		return nil, fmt.Errorf("linalg: Solve: a of shape %v: a must be a square matrix (2-D, n x n); for a non-square system use Lstsq", as)
	}
	n := as[0]
	if (len(bs) != 1 && len(bs) != 2) || bs[0] != n {
		return nil, fmt.Errorf("linalg: Solve: b of shape %v for a of shape %v: b must be of shape [%d] or [%d, k]", bs, as, n, n)
	}
	if a.Comm() != b.Comm() {
		return nil, fmt.Errorf("linalg: Solve: a and b are on different communicators")
	}
	if err := check(op, a, b); err != nil {
		return nil, err
	}
	c := a.Comm()
	nrhs := 1
	if len(bs) == 2 {
		nrhs = bs[1]
	}
	aw, bw, cnt, err := hostRows(c, a, b)
	if err != nil {
		return nil, err
	}
	me := c.Rank()
	lu := &lu[T]{c: c, n: n, ncol: n + nrhs, mr: cnt[me], counts: cnt}
	lu.start = 0
	for q := 0; q < me; q++ {
		lu.start += cnt[q]
	}
	// The working rows: a's row, then b's.
	lu.w = make([]T, lu.mr*lu.ncol)
	for i := 0; i < lu.mr; i++ {
		copy(lu.w[i*lu.ncol:], aw[i*n:(i+1)*n])
		copy(lu.w[i*lu.ncol+n:], bw[i*nrhs:(i+1)*nrhs])
	}
	if err := lu.factor(); err != nil {
		return nil, err
	}
	// x by rows (replicated for a replicated b).
	repl := b.Layout().Axis() == dist.Replicated
	lo, hi := lu.start, lu.start+lu.mr
	if repl {
		lo, hi = 0, n
	}
	x := make([]T, (hi-lo)*nrhs)
	if err := lu.back(x, lo, hi, nrhs); err != nil {
		return nil, err
	}
	l := dist.NewLayoutCounts(bs, 0, cnt)
	if repl {
		l = dist.NewLayout(bs, dist.Replicated, c.Size())
	}
	out, err := newFrom(c, l, b.Local().Backend(), x)
	if err != nil {
		return nil, err
	}
	if repl || b.Layout().Equal(l) {
		return out, nil
	}
	y, err := dist.Redistribute(out, b.Layout())
	out.Free()
	return y, err
}

// lu is the state of one factorization: this rank's rows of [a | b].
type lu[T backend.Inexact] struct {
	c      mpi.Comm
	n      int   // a's order
	ncol   int   // n + the columns of b
	mr     int   // this rank's rows
	start  int   // the global index of its first row
	counts []int // every rank's rows
	w      []T   // mr x ncol, row-major; rows [0, na) pivoted, in pivot order
	na     int
	gidx   []int // the global row of each row of w
	owner  []int // per pivot step (column), the rank that holds its row
}

// factor runs the blocked LU of the rows with partial pivoting, applying
// the row operations to b's columns too. It is collective.
func (f *lu[T]) factor() error {
	n, ncol, me, p := f.n, f.ncol, f.c.Rank(), f.c.Size()
	f.gidx = make([]int, f.mr)
	for i := range f.gidx {
		f.gidx[i] = f.start + i
	}
	// LAPACK's row order after the swaps so far: rowAt[position] is a
	// global row, pos its inverse; ties between pivots go to the lowest
	// position, as i?amax's first maximum.
	rowAt, pos := make([]int, n), make([]int, n)
	for i := range rowAt {
		rowAt[i], pos[i] = i, i
	}
	f.owner = make([]int, n)
	cand, all := make([]float64, 2), make([]float64, 2*p)
	row := make([]T, panelWidth)
	for j0 := 0; j0 < n; j0 += panelWidth {
		j1 := min(j0+panelWidth, n)
		na0 := f.na
		for j := j0; j < j1; j++ {
			// This rank's candidate: the largest |a[i][j]| of its rows not
			// yet pivoted (-2: none). NaNs as i?amax sees them: the first
			// element (position j) is the maximum so far, which a NaN
			// there stays (it compares false); a NaN elsewhere never
			// exceeds it.
			best, bestAt, bestPos := -2.0, -1, math.MaxInt
			for i := f.na; i < f.mr; i++ {
				v := abs1(f.w[i*ncol+j])
				ps := pos[f.gidx[i]]
				if math.IsNaN(v) {
					v = -1
					if ps == j {
						v = math.Inf(1)
					}
				}
				if v > best || (v == best && ps < bestPos) {
					best, bestAt, bestPos = v, i, ps
				}
			}
			cand[0], cand[1] = best, float64(bestPos)
			if err := mpi.Allgather(f.c, cand, all); err != nil {
				return err
			}
			win, wv, wp := -1, -3.0, math.MaxInt
			for q := 0; q < p; q++ {
				v, ps := all[2*q], int(all[2*q+1])
				if v > wv || (v == wv && ps < wp) {
					win, wv, wp = q, v, ps
				}
			}
			if wv == 0 {
				return &SingularError{Op: "Solve", Column: j}
			}
			f.owner[j] = win
			// LAPACK's swap of positions j and wp.
			g, gj := rowAt[wp], rowAt[j]
			rowAt[j], rowAt[wp] = g, gj
			pos[g], pos[gj] = j, wp
			seg := row[:j1-j]
			if win == me {
				f.swap(bestAt, f.na)
				copy(seg, f.w[f.na*ncol+j:f.na*ncol+j1])
				f.na++
			}
			if p > 1 {
				if err := mpi.Bcast(f.c, seg, win); err != nil {
					return err
				}
			}
			piv := seg[0]
			for i := f.na; i < f.mr; i++ {
				r := f.w[i*ncol:]
				l := r[j] / piv
				r[j] = l
				for k := j + 1; k < j1; k++ {
					r[k] -= l * seg[k-j]
				}
			}
		}
		if j1 == ncol {
			continue
		}
		// The panel's pivot rows, right of its first column, in pivot
		// order, on every rank.
		wdt, nb := ncol-j0, j1-j0
		pr := f.panelRowsCols(j0, j1, na0, [][2]int{{j0, ncol}})
		if err := pr.err; err != nil {
			return err
		}
		P := pr.rows
		// U12 = inv(L11) A12.
		trsm(true, nb, wdt-nb, P, wdt, P[nb:], wdt)
		// The owners' rows get their U12; the rows not yet pivoted are
		// updated by the panel.
		k := na0
		for s := 0; s < nb; s++ {
			if f.owner[j0+s] == me {
				copy(f.w[k*ncol+j1:(k+1)*ncol], P[s*wdt+nb:(s+1)*wdt])
				k++
			}
		}
		if f.na < f.mr {
			gemmSub(f.mr-f.na, ncol-j1, nb, f.w[f.na*ncol+j0:], ncol, P[nb:], wdt, f.w[f.na*ncol+j1:], ncol)
		}
	}
	return nil
}

// swap exchanges rows i and k of w.
func (f *lu[T]) swap(i, k int) {
	if i == k {
		return
	}
	ri, rk := f.w[i*f.ncol:(i+1)*f.ncol], f.w[k*f.ncol:(k+1)*f.ncol]
	for c := range ri {
		ri[c], rk[c] = rk[c], ri[c]
	}
	f.gidx[i], f.gidx[k] = f.gidx[k], f.gidx[i]
}

type gathered[T any] struct {
	rows []T
	err  error
}

// back runs the backward substitution U x = y, panel by panel from the
// last, y being b's columns of the factored rows, and stores rows [lo,
// hi) of x into x (nrhs columns). It is collective.
func (f *lu[T]) back(x []T, lo, hi, nrhs int) error {
	n, ncol, me := f.n, f.ncol, f.c.Rank()
	// first[s]: this rank's row of w for pivot step s is first[s] where it
	// owns it; rows are in step order.
	before := make([]int, n+1) // this rank's pivot rows of steps < s
	for s := 0; s < n; s++ {
		before[s+1] = before[s]
		if f.owner[s] == me {
			before[s+1]++
		}
	}
	last := (n - 1) / panelWidth * panelWidth
	for j0 := last; j0 >= 0; j0 -= panelWidth {
		j1 := min(j0+panelWidth, n)
		nb := j1 - j0
		// The panel's U11 and y rows: columns [j0, j1) and [n, ncol).
		pr := f.panelRowsCols(j0, j1, before[j0], [][2]int{{j0, j1}, {n, ncol}})
		if pr.err != nil {
			return pr.err
		}
		P, wdt := pr.rows, nb+nrhs
		trsm(false, nb, nrhs, P, wdt, P[nb:], wdt)
		// Rows of earlier steps: y -= U[:, panel] x_panel.
		if k := before[j0]; k > 0 {
			gemmSub(k, nrhs, nb, f.w[j0:], ncol, P[nb:], wdt, f.w[n:], ncol)
		}
		for s := max(j0, lo); s < min(j1, hi); s++ {
			copy(x[(s-lo)*nrhs:(s-lo+1)*nrhs], P[(s-j0)*wdt+nb:(s-j0+1)*wdt])
		}
	}
	return nil
}

// panelRowsCols gathers, on every rank, the pivot rows of steps [j0, j1)
// in step order, each the given ranges of columns side by side; this
// rank's are its rows [first, ...) of w.
func (f *lu[T]) panelRowsCols(j0, j1, first int, cols [][2]int) *gathered[T] {
	p, me := f.c.Size(), f.c.Rank()
	wdt := 0
	for _, r := range cols {
		wdt += r[1] - r[0]
	}
	rows := make([]int, p)
	for s := j0; s < j1; s++ {
		rows[f.owner[s]]++
	}
	counts, displs, total := countsDispls(rows, wdt)
	send := make([]T, counts[me])
	for i := 0; i < rows[me]; i++ {
		at := i * wdt
		for _, r := range cols {
			at += copy(send[at:], f.w[(first+i)*f.ncol+r[0]:(first+i)*f.ncol+r[1]])
		}
	}
	recv := make([]T, total)
	if err := mpi.Allgatherv(f.c, send, recv, counts, displs); err != nil {
		return &gathered[T]{err: err}
	}
	out := make([]T, total)
	next := make([]int, p)
	for s := j0; s < j1; s++ {
		q := f.owner[s]
		copy(out[(s-j0)*wdt:], recv[displs[q]+next[q]*wdt:displs[q]+(next[q]+1)*wdt])
		next[q]++
	}
	return &gathered[T]{rows: out}
}
