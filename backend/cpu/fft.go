package cpu

import (
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/xpmpi/xpmpi/backend"
)

// The CPU backend computes discrete Fourier transforms as a backend.FFTer,
// with gonum's fourier.CmplxFFT (FFTPACK's mixed-radix algorithm, any
// length); package fft's local transforms are this code.
var _ backend.FFTer = (*Backend)(nil)

// fftGroup is how many strided lines along a non-last axis are gathered
// into contiguous scratch at a time: 8 complex128 values are two cache
// lines of each row touched, and 8 lines of length n fit in the L2 cache
// for the lengths a rank holds (n = 2048: 256 KiB).
const fftGroup = 8

// fftGrain is the least number of elements one goroutine transforms:
// below it the goroutine costs more than it saves.
const fftGrain = 1 << 15

// fftWorker is one goroutine's gonum plan for one length and its scratch
// for gathered lines. A CmplxFFT keeps work space inside it, so it is
// never shared between goroutines.
type fftWorker struct {
	plan    *fourier.CmplxFFT
	scratch []complex128
}

// fftWorkers holds a sync.Pool of *fftWorker per transform length, so a
// plan (the twiddle factors) is made once per length and reused, for
// complex128 and complex64 alike.
var fftWorkers sync.Map // int -> *sync.Pool

func getFFTWorker(n int) (*fftWorker, *sync.Pool) {
	p, ok := fftWorkers.Load(n)
	if !ok {
		p, _ = fftWorkers.LoadOrStore(n, &sync.Pool{New: func() any {
			return &fftWorker{plan: fourier.NewCmplxFFT(n), scratch: make([]complex128, n*fftGroup)}
		}})
	}
	pool := p.(*sync.Pool)
	return pool.Get().(*fftWorker), pool
}

// FFT transforms, in place, every line along the middle axis of x viewed
// as pre x n x post (see backend.FFTer), with NumPy's scaling: forward
// unnormalized, inverse divided by n. Lines along the last axis (post ==
// 1) of complex128 are transformed where they are; strided lines, and
// complex64 lines, are gathered a few at a time into complex128 scratch,
// transformed, and written back (complex64 rounded to its precision). The
// work is spread over up to backend.Threads() goroutines when the block
// is large. It panics as backend.CheckFFT does and returns nil.
func (b *Backend) FFT(x backend.Buffer, pre, n, post int, inverse bool) error {
	backend.CheckFFT(x, pre, n, post)
	if x.Len() == 0 || n == 1 {
		return nil // a transform of length 1 is the identity, forward and inverse
	}
	if x.DType() == backend.Complex64 {
		fftGathered(backend.HostSlice[complex64](x), pre, n, post, inverse)
		return nil
	}
	d := backend.HostSlice[complex128](x)
	if post == 1 {
		fftRows(d, pre, n, inverse)
	} else {
		fftGathered(d, pre, n, post, inverse)
	}
	return nil
}

// fftRows transforms the contiguous lines of x (rows of n) in place.
func fftRows(x []complex128, rows, n int, inverse bool) {
	scale := 1 / float64(n)
	grain := max(1, fftGrain/n)
	backend.ParallelFor(rows, grain, func(lo, hi int) {
		w, pool := getFFTWorker(n)
		defer pool.Put(w)
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
}

// fftGathered transforms the lines of x, pre x n x post, in units of
// fftGroup adjacent lines, gathered into complex128 scratch (one line
// after another), transformed and scattered back.
func fftGathered[T complex64 | complex128](x []T, pre, n, post int, inverse bool) {
	scale := 1 / float64(n)
	groups := (post + fftGroup - 1) / fftGroup
	units := pre * groups
	grain := max(1, fftGrain/(n*fftGroup))
	backend.ParallelFor(units, grain, func(lo, hi int) {
		w, pool := getFFTWorker(n)
		defer pool.Put(w)
		s := w.scratch
		for u := lo; u < hi; u++ {
			o, g := u/groups, u%groups
			c0 := g * fftGroup
			width := min(fftGroup, post-c0)
			base := o*n*post + c0
			for i := 0; i < n; i++ {
				row := x[base+i*post : base+i*post+width]
				for j, v := range row {
					s[j*n+i] = complex128(v)
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
				row := x[base+i*post : base+i*post+width]
				if inverse {
					for j := range row {
						v := s[j*n+i]
						row[j] = T(complex(real(v)*scale, imag(v)*scale))
					}
				} else {
					for j := range row {
						row[j] = T(s[j*n+i])
					}
				}
			}
		}
	})
}
