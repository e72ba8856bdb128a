package disttest

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// op is one operation of the matrix, on arrays of T.
type op[T backend.Numeric] struct {
	fn, variant, family string
	// applies reports whether the operation takes arrays of shape (nil:
	// every shape); a shape it does not take is no cell.
	applies func(shape []int) bool
	// refuse returns "" where the operation must give a value on the
	// layout, and otherwise the words its refusal must say ("|" between
	// them). nil: a value everywhere.
	refuse func(lk string, shape []int, p int) string
	// noArray: the operation takes no array (Scatter): no freed cell.
	noArray bool
	// run runs the operation on in and compares its result with the
	// reference: an error of the operation is a refusal (opErr), any other
	// error a mismatch.
	run func(in *input[T]) error
}

func (o op[T]) name() string {
	if o.variant == "" {
		return o.fn
	}
	return o.fn + "(" + o.variant + ")"
}

// suite is the operations of one element type.
type suite[T backend.Numeric] struct {
	ops []op[T]
	// own: the short matrix runs only ops[:own] (the operations of this
	// type's kind alone: the complex ones), where own > 0.
	own int
}

func (s *suite[T]) dtype() backend.DType { return backend.DTypeOf[T]() }

// input is the arrays of one (layout, shape, element type, backend) and
// their global contents.
type input[T backend.Numeric] struct {
	h       *harness
	c       mpi.Comm
	p, rank int
	shape   []int
	lk      *Layout
	bk      Backend
	x, y    *dist.Array[T] // the operands: salts 0 and 1
	gx, gy  []T            // their global contents, row-major
	mask    *dist.Array[uint8]
	scratch *dist.Array[T] // the destination of into, made at its first call
	saved   string         // a file that Save+Load wrote of x, for the other loads; "" before
	gm      []uint8
	tol     float64 // Tolerance of T
	freed   bool    // x is freed
}

// opts returns the options that make an array of shape in the input's kind
// of layout on its backend (split along axis 0 where the kind does not
// apply to shape), with or without the ghost layers.
func (in *input[T]) opts(shape []int) []dist.Option {
	o, ok := in.lk.options(shape, in.p)
	if !ok {
		o = []dist.Option{dist.SplitAxis(0)}
	}
	o = slices.Clone(o)
	if in.bk.B != nil {
		o = append(o, dist.OnBackend(in.bk.B))
	}
	return o
}

// make returns a new array of shape in the input's kind of layout, with
// salt's data, and its global contents.
func makeArray[U backend.Numeric](in interface{ opts([]int) []dist.Option }, c mpi.Comm, shape []int, salt int) (*dist.Array[U], []U, error) {
	g := make([]U, prod(shape))
	for i := range g {
		g[i] = value[U](i, salt)
	}
	a, err := dist.FromFunc(c, shape, func(idx []int) U { return g[flat(idx, shape)] }, in.opts(shape)...)
	return a, g, err
}

// nextIndex advances idx to the next multi-index of shape in row-major
// order (the last axis fastest), wrapping to all zeros after the last.
func nextIndex(idx, shape []int) {
	for a := len(idx) - 1; a >= 0; a-- {
		idx[a]++
		if idx[a] < shape[a] {
			return
		}
		idx[a] = 0
	}
}

func flat(idx, shape []int) int {
	off := 0
	for a := range shape {
		off = off*shape[a] + idx[a]
	}
	return off
}

func (in *input[T]) free() {
	for _, a := range []*dist.Array[T]{in.x, in.y, in.scratch} {
		if a != nil {
			a.Free()
		}
	}
	if in.mask != nil {
		in.mask.Free()
	}
}

func (s *suite[T]) run(h *harness, bk Backend, shape []int, lk *Layout, list bool) {
	var in *input[T]
	var setup error
	if !list && !h.hung {
		in = &input[T]{h: h, c: h.c, p: h.c.Size(), rank: h.c.Rank(), shape: shape, lk: lk, bk: bk, tol: Tolerance(backend.DTypeOf[T]())}
		setup = call(func() error {
			var err error
			if in.x, in.gx, err = makeArray[T](in, h.c, shape, 0); err != nil {
				return err
			}
			if in.y, in.gy, err = makeArray[T](in, h.c, shape, 1); err != nil {
				return err
			}
			in.gm = make([]uint8, len(in.gx))
			for i := range in.gm {
				if i%3 != 1 {
					in.gm[i] = 1
				}
			}
			in.mask, err = dist.FromFunc(h.c, shape, func(idx []int) uint8 { return in.gm[flat(idx, shape)] }, in.opts(shape)...)
			if err != nil {
				return err
			}
			in.scratch, err = dist.ZerosLike(in.y)
			return err
		})
		defer func() {
			if !h.hung {
				in.free()
			}
		}()
		// Every rank runs the batch or none: a rank whose input failed
		// (a device error left by an earlier cell, say) would otherwise
		// skip the collectives the others wait in.
		v := int32(0)
		if setup != nil {
			v = 1
		}
		n, err := mpi.AllreduceValue(h.c, v, mpi.Max)
		if err != nil {
			setup = fmt.Errorf("agreeing on the input: %v", err)
		} else if n != 0 && setup == nil {
			setup = errors.New("another rank failed to make its input")
		}
	}
	for i, o := range s.ops {
		if h.cfg.Level == Short && s.own > 0 && i >= s.own {
			continue
		}
		if o.applies != nil && !o.applies(shape) {
			continue
		}
		if h.cfg.Freed && o.noArray {
			continue
		}
		cell := Cell{Op: o.name(), Func: o.fn, Family: o.family, Layout: lk.Name, Shape: shape, DType: backend.DTypeOf[T](), Backend: bk.Name, Freed: h.cfg.Freed}
		if o.refuse != nil && !cell.Freed {
			cell.Refuse = o.refuse(lk.Name, shape, h.c.Size())
		}
		if list {
			h.cells = append(h.cells, cell)
			continue
		}
		if h.hung {
			h.record(cell, Fail, "not run: an earlier freed cell hung")
			continue
		}
		if setup != nil {
			h.record(cell, Fail, "making the input: "+setup.Error())
			continue
		}
		var err error
		if cell.Freed {
			err = runFreed(h, in, o)
			h.agreeHung()
		} else {
			err = call(func() error { return o.run(in) })
		}
		out, detail := judge(cell, err)
		h.record(cell, out, detail)
	}
}

// runFreed runs o on a freed copy of x, under a watchdog: a call that has not
// returned within the time limit fails the cell (and the freed cells after it
// in its batch are not run: the call still waits in a collective).
func runFreed[T backend.Numeric](h *harness, in *input[T], o op[T]) error {
	done := make(chan error, 1)
	go func() {
		xf, _, err := makeArray[T](in, in.c, in.shape, 0)
		if err != nil {
			done <- fmt.Errorf("making the array to free: %v", err)
			return
		}
		xf.Free()
		fin := *in
		fin.x = xf
		fin.freed = true
		done <- call(func() error { return o.run(&fin) })
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(h.cfg.FreedTimeout):
		h.hung = true
		return fmt.Errorf("no return in %v on a freed array (a hang)", h.cfg.FreedTimeout)
	}
}

// checkArr compares this rank's block of got with the reference want (the
// global array, row-major) of shape.
func checkArr[U backend.Numeric](rank int, got *dist.Array[U], shape []int, want []U, tol float64) error {
	if got == nil {
		return errors.New("returned a nil array")
	}
	if !slices.Equal(got.Shape(), shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), shape)
	}
	start, bshape := got.Layout().Block(rank)
	h, err := backend.ToHost(got.Local())
	if err != nil {
		return fmt.Errorf("copying the block to the host: %v", err)
	}
	data := h.Data()
	if len(data) != prod(bshape) {
		return fmt.Errorf("block of %d elements, its layout says %v", len(data), bshape)
	}
	idx := make([]int, len(bshape))
	gidx := make([]int, len(bshape))
	for k := range data {
		for a := range idx {
			gidx[a] = start[a] + idx[a]
		}
		w := want[flat(gidx, shape)]
		if !eq(data[k], w, tol) {
			return fmt.Errorf("element %v: got %v, want %v (layout %v)", gidx, data[k], w, got.Layout())
		}
		nextIndex(idx, bshape)
	}
	return nil
}

// checkVal compares a value with the reference.
func checkVal[U backend.Numeric](got, want U, tol float64) error {
	if !eq(got, want, tol) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}
