package fft

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/xpmpi/xpmpi/backend"
)

// colGroup is how many strided lines along a non-last axis are gathered
// into contiguous scratch at a time: 8 complex128 values are two cache
// lines of each row touched, and 8 lines of length n fit in the L2 cache
// for the lengths a rank holds (n = 2048: 256 KiB).
const colGroup = 8

// grainElems is the least number of elements one goroutine transforms:
// below it the goroutine costs more than it saves.
const grainElems = 1 << 15

// worker is one goroutine's gonum plan for one length and its scratch for
// gathered lines. A CmplxFFT keeps work space inside it, so it is never
// shared between goroutines.
type worker struct {
	plan    *fourier.CmplxFFT
	scratch []complex128
}

// workers holds a sync.Pool of *worker per transform length, so a plan
// (the twiddle factors) is made once per length and reused.
var workers sync.Map // int -> *sync.Pool

func getWorker(n int) *worker {
	p, ok := workers.Load(n)
	if !ok {
		p, _ = workers.LoadOrStore(n, &sync.Pool{New: func() any {
			return &worker{plan: fourier.NewCmplxFFT(n), scratch: make([]complex128, n*colGroup)}
		}})
	}
	return p.(*sync.Pool).Get().(*worker)
}

func putWorker(n int, w *worker) {
	p, _ := workers.Load(n)
	p.(*sync.Pool).Put(w)
}

// LocalFFT computes, in place, the forward discrete Fourier transform of
// every 1-D line along axis of x, a row-major block of the given shape,
// batched over the other axes: X[k] = sum_j x[j] exp(-2 pi i j k / n),
// unnormalized, as numpy.fft.fft(x, axis=axis). Lines along the last
// axis are contiguous; lines along an earlier axis are gathered a few at
// a time into contiguous scratch and written back. The work is spread
// over up to backend.Threads() goroutines when the block is large. It is
// not collective: it touches only x.
//
// LocalFFT panics if len(x) is not the product of shape or axis is out
// of range.
func LocalFFT(x []complex128, shape []int, axis int) {
	along(x, shape, axis, false, "LocalFFT")
}

// LocalIFFT computes, in place, the inverse discrete Fourier transform of
// every 1-D line along axis of x, a row-major block of the given shape:
// x[j] = (1/n) sum_k X[k] exp(+2 pi i j k / n), as numpy.fft.ifft(x,
// axis=axis), so that LocalIFFT after LocalFFT returns the input up to
// rounding. It is not collective; it panics as LocalFFT does.
func LocalIFFT(x []complex128, shape []int, axis int) {
	along(x, shape, axis, true, "LocalIFFT")
}

// checkBlock panics unless x holds a row-major block of shape and axis is
// one of its axes, and returns the product of the axes before axis, the
// length along it and the product of the axes after it.
func checkBlock(x []complex128, shape []int, axis int, name string) (outer, n, inner int) {
	if axis < 0 || axis >= len(shape) {
		panic(fmt.Sprintf("fft: %s: axis %d out of range for %d-D shape %v", name, axis, len(shape), shape))
	}
	outer, inner = 1, 1
	for k, s := range shape {
		if s < 0 {
			panic(fmt.Sprintf("fft: %s: negative extent in shape %v", name, shape))
		}
		switch {
		case k < axis:
			outer *= s
		case k > axis:
			inner *= s
		}
	}
	n = shape[axis]
	if outer*n*inner != len(x) {
		panic(fmt.Sprintf("fft: %s: %d elements for shape %v", name, len(x), shape))
	}
	return outer, n, inner
}

func along(x []complex128, shape []int, axis int, inverse bool, name string) {
	outer, n, inner := checkBlock(x, shape, axis, name)
	if len(x) == 0 || n == 1 {
		return // a transform of length 1 is the identity, forward and inverse
	}
	scale := 1 / float64(n)
	if inner == 1 {
		// Contiguous lines: transform each in place.
		grain := max(1, grainElems/n)
		backend.ParallelFor(outer, grain, func(lo, hi int) {
			w := getWorker(n)
			defer putWorker(n, w)
			for r := lo; r < hi; r++ {
				line := x[r*n : (r+1)*n]
				if inverse {
					w.plan.Sequence(line, line)
					for i := range line {
						v := line[i]
						line[i] = complex(real(v)*scale, imag(v)*scale)
					}
				} else {
					w.plan.Coefficients(line, line)
				}
			}
		})
		return
	}
	// Strided lines: units of colGroup adjacent lines, gathered into
	// scratch (one line after another), transformed and scattered back.
	groups := (inner + colGroup - 1) / colGroup
	units := outer * groups
	grain := max(1, grainElems/(n*colGroup))
	backend.ParallelFor(units, grain, func(lo, hi int) {
		w := getWorker(n)
		defer putWorker(n, w)
		s := w.scratch
		for u := lo; u < hi; u++ {
			o, g := u/groups, u%groups
			c0 := g * colGroup
			width := min(colGroup, inner-c0)
			base := o*n*inner + c0
			for i := 0; i < n; i++ {
				row := x[base+i*inner : base+i*inner+width]
				for j, v := range row {
					s[j*n+i] = v
				}
			}
			for j := 0; j < width; j++ {
				line := s[j*n : (j+1)*n]
				if inverse {
					w.plan.Sequence(line, line)
				} else {
					w.plan.Coefficients(line, line)
				}
			}
			for i := 0; i < n; i++ {
				row := x[base+i*inner : base+i*inner+width]
				if inverse {
					for j := range row {
						v := s[j*n+i]
						row[j] = complex(real(v)*scale, imag(v)*scale)
					}
				} else {
					for j := range row {
						row[j] = s[j*n+i]
					}
				}
			}
		}
	})
}
