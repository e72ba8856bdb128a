package disttest

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// Level chooses how much of the matrix a run covers.
type Level int

// The levels of Config.
const (
	// Short: every operation on every layout and shape, for one element
	// type each (float64 on the CPU, and complex128 for the complex
	// operations; float32 on the fake device), for oversubscribed runs
	// (-test.short).
	Short Level = iota
	// Default: more shapes and element types (the long tests' level).
	Default
	// Long: every shape and every element type on both backends
	// (XPMPI_DISTTEST_LONG=1).
	Long
)

// Config says which part of the matrix Run runs.
type Config struct {
	Level Level
	// Freed runs the freed cells (every operation on a freed array) instead
	// of the others.
	Freed bool
	// FreedTimeout is how long a freed cell may take (default 3 s).
	FreedTimeout time.Duration
	// Dir is a directory shared by the ranks, for Save and Load.
	Dir string
	// Log, when set, receives one line per cell with its outcome.
	Log func(line string)
}

// Layout is one kind of layout of the matrix.
type Layout struct {
	Name string // as the cells and the support page name it
	Doc  string // how the arrays are made
	// options returns the options that lay out a new array of shape on p
	// ranks, and false where the kind does not apply to the shape.
	options func(shape []int, p int) ([]dist.Option, bool)
}

// Layouts are the kinds of layout of the matrix.
var Layouts = []Layout{
	{"rows", "split along axis 0 in even blocks (the default)", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.SplitAxis(0)}, len(s) >= 1
	}},
	{"uneven", "split along axis 0 with BlockSizes: uneven blocks, rank 1 empty", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.BlockSizes(UnevenCounts(s[0], p))}, len(s) >= 1
	}},
	{"axis1", "split along axis 1", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.SplitAxis(1)}, len(s) >= 2
	}},
	{"axis2", "split along axis 2", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.SplitAxis(2)}, len(s) >= 3
	}},
	{"replicated", "SplitAxis(Replicated): every rank holds the whole array", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.SplitAxis(dist.Replicated)}, true
	}},
	{"grid", "ProcessGrid(0, ..., 0): a 2-D or 3-D process grid chosen by mpi.DimsCreate", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.ProcessGrid(make([]int, len(s))...)}, len(s) >= 2
	}},
	{"gridu", "GridBlockSizes: a process grid with uneven blocks, the second along each split axis empty", func(s []int, p int) ([]dist.Option, bool) {
		if len(s) < 2 {
			return nil, false
		}
		dims := GridDims(len(s), p)
		counts := make([][]int, len(s))
		for a := range s {
			counts[a] = UnevenCounts(s[a], dims[a])
		}
		return []dist.Option{dist.GridBlockSizes(counts...)}, true
	}},
	{"ghost", "Ghosts(1): split along axis 0 with ghost layers of width 1", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.Ghosts(1)}, len(s) >= 1
	}},
	{"ghostp", "Ghosts(1) and Periodic: ghost layers that wrap around", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.Ghosts(1), dist.Periodic()}, len(s) >= 1
	}},
	{"ghostgrid", "ProcessGrid(0, ..., 0) and Ghosts(1): a process grid with ghost layers on every axis", func(s []int, p int) ([]dist.Option, bool) {
		return []dist.Option{dist.ProcessGrid(make([]int, len(s))...), dist.Ghosts(1)}, len(s) >= 2
	}},
}

// UnevenCounts returns block sizes of n indices over p ranks that are
// uneven and leave rank 1 empty (at p >= 2): every rank but rank 1 takes
// half of what is left, the last one the rest.
func UnevenCounts(n, p int) []int {
	c := make([]int, p)
	var ranks []int
	for r := 0; r < p; r++ {
		if r != 1 || p == 1 {
			ranks = append(ranks, r)
		}
	}
	rem := n
	for i, r := range ranks {
		if i == len(ranks)-1 {
			c[r] = rem
			break
		}
		take := (rem + 1) / 2
		c[r] = take
		rem -= take
	}
	return c
}

// GridDims returns the process grid of nd axes on p ranks of the gridu
// layouts: p along axis 0, or 2 x 2 for p = 4.
func GridDims(nd, p int) []int {
	d := make([]int, nd)
	for i := range d {
		d[i] = 1
	}
	if p == 4 {
		d[0], d[1] = 2, 2
	} else {
		d[0] = p
	}
	return d
}

// Shapes returns the shapes of a level: 1-D, 2-D and 3-D, with zero-size
// arrays, fewer elements than ranks, and sizes that 2, 3 and 4 do not divide.
func Shapes(l Level) [][]int {
	s := [][]int{{7}, {0}, {5, 3}, {2, 3, 3}}
	if l >= Default {
		s = append(s, []int{1, 2}, []int{3}, []int{1, 3, 2})
	}
	if l >= Long {
		s = append(s, []int{0, 3}, []int{1}, []int{13}, []int{3, 0}, []int{4, 6}, []int{3, 4, 5}, []int{4, 0, 2})
	}
	return s
}

// Backend is a backend of the matrix.
type Backend struct {
	Name string
	B    backend.Backend
}

// Backends are the backends of the matrix: the CPU backend and the fake
// device.
var Backends = []Backend{{"cpu", nil}, {"fake", fakedev.Default}}

// Cell is one cell of the matrix.
type Cell struct {
	Op      string // the operation, with its variant: "SumAxis(axis=1)"
	Func    string // the function alone: "SumAxis"
	Family  string
	Layout  string
	Shape   []int
	DType   backend.DType
	Backend string
	Freed   bool
	// Refuse is empty where the operation must give a value, and otherwise
	// the words its refusal must say (separated by "|"), the layout's name
	// and what to do.
	Refuse string
}

func (c Cell) String() string {
	s := fmt.Sprintf("%s/%s/%v/%v/%s", c.Op, c.Layout, c.Shape, c.DType, c.Backend)
	if c.Freed {
		s += "/freed"
	}
	return s
}

// Outcome is what a cell's run gave.
type Outcome int

// The outcomes.
const (
	Pass    Outcome = iota // the value of the reference
	Refused                // a refusal the matrix expects, with the words it expects
	Fail
)

func (o Outcome) String() string {
	return [...]string{"pass", "refused", "FAIL"}[o]
}

// Tally counts outcomes.
type Tally struct{ Cells, Pass, Refused, Fail int }

func (t *Tally) add(o Outcome) {
	t.Cells++
	switch o {
	case Pass:
		t.Pass++
	case Refused:
		t.Refused++
	default:
		t.Fail++
	}
}

// typed is a suite of one element type.
type typed interface {
	dtype() backend.DType
	run(h *harness, bk Backend, shape []int, lk *Layout, cells bool)
}

// harness is the state of one run.
type harness struct {
	t      *testing.T
	c      mpi.Comm
	cfg    Config
	tally  Tally
	cells  []Cell // Cells: the list, nothing run
	hung   bool   // a freed cell timed out: no more freed cells
	world  mpi.Comm
	failed []string
	files  int    // Save's files so far: the next file's name
	only   string // list only the cells of this backend, where not ""
}

// suites returns the element types of a level on a backend: for the freed
// cells, float64 and complex128 (its own operations, in the short matrix)
// on the CPU, and float64 on the fake device but in the short matrix.
func suites(l Level, freed bool, bk Backend) []typed {
	all := []typed{
		floatSuite[float64](), floatSuite[float32](),
		intSuite[int32](), intSuite[int64](), intSuite[uint32](), intSuite[uint64](),
		intSuite[int8](), intSuite[int16](), intSuite[uint8](), intSuite[uint16](),
		complexSuite[complex128](), complexSuite[complex64](),
	}
	pick := func(dts ...backend.DType) []typed {
		var s []typed
		for _, x := range all {
			if slices.Contains(dts, x.dtype()) {
				s = append(s, x)
			}
		}
		return s
	}
	switch {
	case freed && bk.Name == "cpu":
		return pick(backend.Float64, backend.Complex128)
	case freed && l == Short:
		return nil
	case freed:
		return pick(backend.Float64)
	case l == Long:
		return all
	case l == Default && bk.Name == "cpu":
		return pick(backend.Float64, backend.Float32, backend.Int32, backend.Uint64, backend.Complex64, backend.Complex128)
	case l == Default:
		return pick(backend.Float64, backend.Int8, backend.Complex128)
	case bk.Name == "cpu":
		return pick(backend.Float64, backend.Complex128)
	default:
		return pick(backend.Float32)
	}
}

// Cells lists the cells that Run runs at p ranks with cfg, without running
// them.
func Cells(cfg Config, p int) []Cell {
	h := &harness{cfg: cfg, c: fakeComm{p: p}}
	h.each(true)
	return h.cells
}

// Run runs the matrix on c and reports each failed cell with t.Errorf on the
// ranks where it failed; it returns the counts of this rank.
func Run(t *testing.T, c mpi.Comm, cfg Config) Tally {
	if cfg.FreedTimeout == 0 {
		cfg.FreedTimeout = 3 * time.Second
	}
	h := &harness{t: t, c: c, cfg: cfg}
	h.each(false)
	return h.tally
}

func (h *harness) each(list bool) {
	for _, bk := range Backends {
		if h.only != "" && bk.Name != h.only {
			continue
		}
		for _, s := range suites(h.cfg.Level, h.cfg.Freed, bk) {
			for si, shape := range Shapes(h.cfg.Level) {
				if h.cfg.Freed && !freedShape(si, shape) {
					continue
				}
				for li := range Layouts {
					lk := &Layouts[li]
					if _, ok := lk.options(shape, h.c.Size()); !ok {
						continue
					}
					if list || !h.cfg.Freed {
						s.run(h, bk, shape, lk, list)
						continue
					}
					h.runIsolated(func() { s.run(h, bk, shape, lk, false) })
				}
			}
			if !list {
				h.agree(fmt.Sprintf("%s/%v", bk.Name, s.dtype()))
			}
		}
	}
}

// runIsolated runs a batch of freed cells on a communicator of its own
// (a Split of the world), so that a call left waiting in a collective by a
// cell that hung meets no later collective. After a hang no freed cell runs
// (the device may be held by the call that waits) and nothing of the batch
// is freed.
func (h *harness) runIsolated(f func()) {
	world := h.c
	h.world = world
	cc, err := world.Split(0, world.Rank())
	if err != nil {
		h.t.Fatalf("a communicator for the freed cells: %v", err)
	}
	h.c = cc
	defer func() {
		if !h.hung {
			cc.Free()
		}
		h.c = world
	}()
	f()
}

// agreeHung makes every rank learn, on the world communicator, whether a
// freed cell hung on some rank: then none runs the rest of the batch, whose
// collectives would meet the one that waits.
func (h *harness) agreeHung() {
	v := int32(0)
	if h.hung {
		v = 1
	}
	n, err := mpi.AllreduceValue(h.world, v, mpi.Max)
	if err != nil {
		h.t.Fatalf("agreeing on a hang: %v", err)
	}
	h.hung = n != 0
}

// freedShape: the freed cells run on one 1-D and one 2-D shape.
func freedShape(i int, shape []int) bool {
	return i == 0 || i == 2
}

// agree is the one collective of a batch of cells besides the operations':
// every rank learns how many cells failed anywhere, so that a failure shows
// on every rank's log.
func (h *harness) agree(batch string) {
	n, err := mpi.AllreduceValue(h.c, int64(len(h.failed)), mpi.Sum)
	if err != nil {
		h.t.Fatalf("%s: agreeing on the failures: %v", batch, err)
	}
	if n > 0 && len(h.failed) == 0 {
		h.t.Logf("%s: %d cells failed on other ranks", batch, n)
	}
	h.failed = h.failed[:0]
}

// record is the end of one cell.
func (h *harness) record(cell Cell, o Outcome, detail string) {
	h.tally.add(o)
	if h.cfg.Log != nil {
		h.cfg.Log(fmt.Sprintf("%-7s %s %s", o, cell, detail))
	}
	if o == Fail {
		if f := os.Getenv("XPMPI_DISTTEST_FAILS"); f != "" {
			// One file per rank, for reading the failures of a job whose
			// ranks' output interleaves.
			if w, err := os.OpenFile(fmt.Sprintf("%s.%d", f, h.c.Rank()), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintf(w, "%s: %s\n", cell, detail)
				w.Close()
			}
		}
		h.failed = append(h.failed, cell.String())
		h.t.Errorf("rank %d: %s: %s", h.c.Rank(), cell, detail)
	}
}

// refusal is an error or recovered panic of the operation itself (not of
// the comparison with the reference).
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }

// opErr wraps an operation's error as a refusal; nil stays nil.
func opErr(err error) error {
	if err == nil {
		return nil
	}
	return refusal{err}
}

// panicError is a recovered panic value.
type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("panic: %v", p.v) }
func (p panicError) Unwrap() error {
	if e, ok := p.v.(error); ok {
		return e
	}
	return nil
}

// call runs f, turning a panic into a refusal.
func call(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = refusal{panicError{v}}
		}
	}()
	return f()
}

// judge turns what a cell's run returned into its outcome.
func judge(cell Cell, err error) (Outcome, string) {
	var r refusal
	isRefusal := errors.As(err, &r)
	if cell.Freed {
		switch {
		case err == nil:
			return Fail, "returned a value on a freed array; want an error wrapping dist.ErrFreed"
		case isRefusal && errors.Is(err, dist.ErrFreed):
			return Pass, ""
		case isRefusal:
			return Fail, fmt.Sprintf("refused a freed array with %q, which does not wrap dist.ErrFreed", err)
		default:
			return Fail, fmt.Sprintf("accepted a freed array: %v", err)
		}
	}
	switch {
	case err == nil && cell.Refuse == "":
		return Pass, ""
	case err == nil:
		return Fail, "returned a value; want a refusal that says " + strings.ReplaceAll(cell.Refuse, "|", " and ")
	case !isRefusal:
		return Fail, err.Error()
	case cell.Refuse == "":
		return Fail, "refused: " + err.Error()
	}
	msg := strings.ToLower(err.Error())
	for _, w := range strings.Split(cell.Refuse, "|") {
		if !strings.Contains(msg, strings.ToLower(w)) {
			return Fail, fmt.Sprintf("refused with %q, which does not say %q", err, w)
		}
	}
	return Refused, err.Error()
}

// Tolerance is the relative bound of the inexact cells: the transcendental
// functions, statistics and floating-point products, by the precision of the
// element type.
func Tolerance(dt backend.DType) float64 {
	switch dt {
	case backend.Float32, backend.Complex64:
		return 1e-5
	}
	return 1e-12
}

// eq reports whether got equals want, or is within tol of it relative to
// max(1, |want|) (where tol > 0, two infinite values are equal); two NaNs
// are equal.
func eq[U backend.Numeric](got, want U, tol float64) bool {
	if got == want {
		return true
	}
	g, w := toC(got), toC(want)
	if cmplx.IsNaN(g) && cmplx.IsNaN(w) {
		return true
	}
	if tol == 0 {
		return false
	}
	if cmplx.IsInf(g) || cmplx.IsInf(w) {
		// An inexact result that overflows: both must (a complex one
		// may differ in the other part, which cancellation leaves
		// anywhere below the bound of the overflowing one).
		return cmplx.IsInf(g) && cmplx.IsInf(w)
	}
	return cmplx.Abs(g-w) <= tol*math.Max(1, cmplx.Abs(w))
}

func toC[U backend.Numeric](v U) complex128 {
	switch x := any(v).(type) {
	case float32:
		return complex(float64(x), 0)
	case float64:
		return complex(x, 0)
	case int8:
		return complex(float64(x), 0)
	case int16:
		return complex(float64(x), 0)
	case int32:
		return complex(float64(x), 0)
	case int64:
		return complex(float64(x), 0)
	case uint8:
		return complex(float64(x), 0)
	case uint16:
		return complex(float64(x), 0)
	case uint32:
		return complex(float64(x), 0)
	case uint64:
		return complex(float64(x), 0)
	case complex64:
		return complex128(x)
	case complex128:
		return x
	}
	panic("disttest: unknown element type")
}

// fromC converts a complex128 to U: the real part for a real type.
func fromC[U backend.Numeric](v complex128) U {
	var z U
	switch any(z).(type) {
	case float32:
		return any(float32(real(v))).(U)
	case float64:
		return any(real(v)).(U)
	case int8:
		return any(int8(real(v))).(U)
	case int16:
		return any(int16(real(v))).(U)
	case int32:
		return any(int32(real(v))).(U)
	case int64:
		return any(int64(real(v))).(U)
	case uint8:
		return any(uint8(real(v))).(U)
	case uint16:
		return any(uint16(real(v))).(U)
	case uint32:
		return any(uint32(real(v))).(U)
	case uint64:
		return any(uint64(real(v))).(U)
	case complex64:
		return any(complex64(v)).(U)
	case complex128:
		return any(v).(U)
	}
	panic("disttest: unknown element type")
}

func isUnsigned(dt backend.DType) bool {
	switch dt {
	case backend.Uint8, backend.Uint16, backend.Uint32, backend.Uint64:
		return true
	}
	return false
}

func isComplex(dt backend.DType) bool { return dt == backend.Complex64 || dt == backend.Complex128 }

func isFloat(dt backend.DType) bool { return dt == backend.Float32 || dt == backend.Float64 }

// small is the data of the matrix: a nonzero integer of -6..6 (1..12 for
// unsigned types) from the global flat index i and a salt per array.
func small(i, salt int, unsigned bool) float64 {
	k := (i*7 + 5 + salt*5) % 12
	if unsigned {
		return float64(k + 1)
	}
	if k < 6 {
		return float64(k - 6)
	}
	return float64(k - 5)
}

// value is element i of the array with salt, in T.
func value[T backend.Numeric](i, salt int) T {
	dt := backend.DTypeOf[T]()
	re := small(i, salt, isUnsigned(dt))
	im := 0.0
	if isComplex(dt) {
		im = small(i+3, salt+1, false)
	}
	return fromC[T](complex(re, im))
}

func prod(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// fakeComm stands in for a communicator of p ranks where Cells lists the
// matrix: only Size and Rank are called.
type fakeComm struct {
	mpi.Comm
	p int
}

func (f fakeComm) Size() int { return f.p }
func (f fakeComm) Rank() int { return 0 }

// longEnv reports whether XPMPI_DISTTEST_LONG asks for the long sweep.
func longEnv() bool { return os.Getenv("XPMPI_DISTTEST_LONG") == "1" }
