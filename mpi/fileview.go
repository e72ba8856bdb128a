package mpi

import (
	"fmt"
	"math"
)

// Subarray is the block of a row-major (C-order) N-dimensional array of
// elements that a file view selects (MPI_Type_create_subarray with
// MPI_ORDER_C): Sizes is the shape of the whole array, Subsizes the shape
// of the block and Starts the index of its first element, all in
// elements. A block with a zero in Subsizes is empty: a rank whose block
// is empty still takes part in SetView and in collective reads and
// writes, moving nothing. The zero Subarray (no dimensions) is the plain
// view: the file as one run of elements from the displacement on.
type Subarray struct {
	Sizes, Subsizes, Starts []int
}

// check panics unless s is the zero Subarray or a valid block.
func (s Subarray) check() {
	n := len(s.Sizes)
	if n == 0 && len(s.Subsizes) == 0 && len(s.Starts) == 0 {
		return
	}
	if n == 0 || len(s.Subsizes) != n || len(s.Starts) != n {
		panic(fmt.Sprintf("mpi: Subarray with %d sizes, %d subsizes and %d starts: want the same number, at least one", n, len(s.Subsizes), len(s.Starts)))
	}
	for i := range s.Sizes {
		if s.Sizes[i] < 1 || s.Subsizes[i] < 0 || s.Starts[i] < 0 || s.Starts[i]+s.Subsizes[i] > s.Sizes[i] {
			panic(fmt.Sprintf("mpi: Subarray block of shape %v at %v does not fit in an array of shape %v", s.Subsizes, s.Starts, s.Sizes))
		}
	}
}

// empty reports whether the block selects no element.
func (s Subarray) empty() bool {
	for _, n := range s.Subsizes {
		if n == 0 {
			return true
		}
	}
	return false
}

// fits32 reports whether every size fits MPI's int arguments.
func (s Subarray) fits32() bool {
	for _, n := range s.Sizes {
		if n > math.MaxInt32 {
			return false
		}
	}
	return true
}

// view is a file view as the Go side tracks it: where the bytes of the
// view's stream (what reads and writes at offset 0, 1, ... see) lie in
// the file. The zero view is the file from byte 0 on, in bytes.
type view struct {
	disp  int64    // byte where the view starts
	etype Datatype // elements the offsets count (Byte for the zero view)
	set   bool     // a view other than the zero one was set
	empty bool     // the view selects no element
	// For a subarray: its contiguous runs are run bytes long; a tile (one
	// whole array) is extent bytes of the file and holds size bytes of the
	// stream. outer and ostart are the block's shape and start over the
	// dimensions outside the runs, and stride their strides in bytes.
	run, extent, size int64
	outer, ostart     []int
	stride            []int64
}

// newView returns the view of a subarray of etype elements at disp.
func newView(disp int64, etype Datatype, s Subarray) view {
	v := view{disp: disp, etype: etype, set: true}
	if len(s.Sizes) == 0 {
		return v
	}
	if s.empty() {
		v.empty = true
		return v
	}
	es := int64(etype.Size())
	n := len(s.Sizes)
	// The runs take in the inner dimensions the block covers whole, and
	// the first one (from the inside) that it does not.
	k := n - 1
	v.run = int64(s.Subsizes[k]) * es
	inner := int64(s.Sizes[k]) * es
	for k > 0 && s.Subsizes[k] == s.Sizes[k] {
		k--
		v.run *= int64(s.Subsizes[k])
		inner *= int64(s.Sizes[k])
	}
	// Dimensions 0..k-1 are outside the runs; dimension k's start is
	// part of the run's own offset.
	v.outer, v.ostart, v.stride = s.Subsizes[:k], s.Starts[:k], make([]int64, k)
	st := inner
	for i := k - 1; i >= 0; i-- {
		v.stride[i] = st
		st *= int64(s.Sizes[i])
	}
	v.extent = st
	v.size = v.run
	for _, d := range v.outer {
		v.size *= int64(d)
	}
	// The run's start within its row of dimension k and below.
	first := int64(s.Starts[k]) * (inner / int64(s.Sizes[k]))
	v.disp += first
	return v
}

// pieces calls f with each contiguous piece of the file that the n bytes
// of the view's stream at pos cover: its byte offset in the file, and its
// offset and length in the stream from pos. f's error stops it.
func (v *view) pieces(pos, n int64, f func(fileOff, bufOff, n int64) error) error {
	if v.run == 0 { // plain view (or empty, which callers keep from here)
		if n == 0 {
			return nil
		}
		return f(v.disp+pos, 0, n)
	}
	idx := make([]int, len(v.outer))
	done := int64(0)
	for done < n {
		p := pos + done
		tile, q := p/v.size, p%v.size
		r, within := q/v.run, q%v.run
		for i := len(v.outer) - 1; i >= 0; i-- {
			idx[i] = int(r % int64(v.outer[i]))
			r /= int64(v.outer[i])
		}
		off := v.disp + tile*v.extent + within
		for i, j := range idx {
			off += int64(v.ostart[i]+j) * v.stride[i]
		}
		m := min(v.run-within, n-done)
		if err := f(off, done, m); err != nil {
			return err
		}
		done += m
	}
	return nil
}

// end returns the byte of the file after the last one that n bytes of the
// stream at pos touch (0 for none).
func (v *view) end(pos, n int64) int64 {
	if n <= 0 {
		return 0
	}
	e := int64(0)
	v.pieces(pos+n-1, 1, func(off, _, m int64) error {
		e = off + m
		return nil
	})
	return e
}

// access checks a read or write of count elements of dt at off (bytes of
// the stream) against the view, panicking on what the caller could have
// checked, and returns the offset in the view's etypes, as MPI counts it.
func (v *view) access(call string, off int64, count int, dt Datatype) int64 {
	if count < 0 || off < 0 {
		panic(fmt.Sprintf("mpi: File.%s of %d elements at offset %d", call, count, off))
	}
	if !v.set {
		return off
	}
	if v.etype != Byte && dt != v.etype {
		panic(fmt.Sprintf("mpi: File.%s of %v through a view of %v", call, dt, v.etype))
	}
	es := int64(v.etype.Size())
	if off%es != 0 {
		panic(fmt.Sprintf("mpi: File.%s at byte %d of a view of %v: not a multiple of its size %d", call, off, v.etype, es))
	}
	if v.empty && count > 0 {
		panic(fmt.Sprintf("mpi: File.%s of %d elements through a view that selects none (an empty Subarray)", call, count))
	}
	return off / es
}
