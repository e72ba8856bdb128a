package cpu

import (
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu/internal/fftk"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The CPU backend computes discrete Fourier transforms as a driver.FFTer:
// lengths 2^a * 3^b * 5^c with the Stockham kernel of internal/fftk, other
// lengths with gonum's fourier.CmplxFFT (FFTPACK's mixed-radix algorithm,
// any length); package fft's local transforms are this code.
var _ driver.FFTer = (*Backend)(nil)

// fftGroup is how many strided lines along a non-last axis are gathered
// into contiguous scratch at a time: 8 complex128 values are two cache
// lines of each row touched, and 8 lines of length n fit in the L2 cache
// for the lengths a rank holds (n = 2048: 256 KiB).
const fftGroup = 8

// fftBatch is the most strided lines fftGathered takes at a time for a
// length fftk handles, and fftBatchElems the most elements those lines
// may hold (1 MiB of complex128; the batch transform's scratch is as
// much again). W8's columns (2048 long, 2048 of them, one thread) took
// 30 us of CPU per line in groups of 8, 26 in groups of 16, 18 in groups
// of 32 (as the rows do) and 41 in groups of 64 (a loaded machine, one
// run each).
const (
	fftBatch      = 32
	fftBatchElems = 1 << 16
)

// fftLines returns how many strided lines of length n fftGathered takes
// at a time: fftGroup, or for a length fftk handles up to fftBatch while
// they hold at most fftBatchElems elements.
func fftLines(n int) int {
	if !fftk.Supported(n) {
		return fftGroup
	}
	return max(fftGroup, min(fftBatch, fftBatchElems/n))
}

// fftGrain is the least number of elements one goroutine transforms:
// below it the goroutine costs more than it saves.
const fftGrain = 1 << 15

// fftWorker is one goroutine's plan for one length and its scratch for
// gathered lines (made on first use: contiguous lines need none): an fftk
// plan where the length is 2^a * 3^b * 5^c, else a gonum plan. Both keep
// work space inside them, so a worker is never shared between goroutines.
type fftWorker struct {
	k       *fftk.Plan        // nil where fftk does not take the length
	plan    *fourier.CmplxFFT // nil where k is not
	scratch []complex128
}

// transform replaces line by its forward transform, or by its inverse
// times scale.
func (w *fftWorker) transform(line []complex128, inverse bool, scale float64) {
	switch {
	case w.k != nil && inverse:
		w.k.Inverse(line, scale)
	case w.k != nil:
		w.k.Forward(line)
	case inverse:
		w.plan.Sequence(line, line)
		if scale != 1 {
			for i, v := range line {
				line[i] = complex(real(v)*scale, imag(v)*scale)
			}
		}
	default:
		w.plan.Coefficients(line, line)
	}
}

// fftWorkers holds a sync.Pool of *fftWorker per transform length, so a
// plan (the twiddle factors) is made once per length and reused, for
// complex128 and complex64 alike.
var fftWorkers sync.Map // int -> *sync.Pool

func getFFTWorker(n int) (*fftWorker, *sync.Pool) {
	p, ok := fftWorkers.Load(n)
	if !ok {
		p, _ = fftWorkers.LoadOrStore(n, &sync.Pool{New: func() any {
			w := new(fftWorker)
			if fftk.Supported(n) {
				w.k = fftk.NewPlan(n)
			} else {
				w.plan = fourier.NewCmplxFFT(n)
			}
			return w
		}})
	}
	pool := p.(*sync.Pool)
	return pool.Get().(*fftWorker), pool
}

// FFT transforms, in place, every line along the middle axis of x viewed
// as pre x n x post (see driver.FFTer), with NumPy's scaling: forward
// unnormalized, inverse divided by n. Lines along the last axis (post ==
// 1) of complex128 are transformed where they are; strided lines, and
// complex64 lines, are gathered a few at a time into complex128 scratch,
// transformed, and written back (complex64 rounded to its precision). The
// work is spread over up to backend.Threads() goroutines when the block
// is large. It panics as driver.CheckFFT does and returns nil.
func (b *Backend) FFT(x driver.Buffer, pre, n, post int, inverse bool) error {
	driver.CheckFFT(x, pre, n, post)
	if x.Len() == 0 || n == 1 {
		return nil // a transform of length 1 is the identity, forward and inverse
	}
	if x.DType() == backend.Complex64 {
		fftGathered(driver.HostSlice[complex64](x), pre, n, post, inverse)
		return nil
	}
	d := driver.HostSlice[complex128](x)
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
			w.transform(x[r*n:(r+1)*n], inverse, scale)
		}
	})
}

// fftGathered transforms the lines of x, pre x n x post, in units of
// fftLines(n) adjacent lines (the inverse scaled by 1/n). With an fftk
// plan the lines stay interleaved as the rows hold them: complex128 lines
// are transformed where they are (fftk's strided transform, whose first
// and last passes read and write the rows: W8's columns at one thread,
// BenchmarkFFT2D's forward and inverse, took 53-58 ms gathered and
// 39-47 ms so, three alternating runs), complex64 ones are
// widened into complex128 scratch a row at a time, transformed as a
// batch and written back. With gonum's plan they are gathered one line
// after another.
func fftGathered[T complex64 | complex128](x []T, pre, n, post int, inverse bool) {
	scale := 1 / float64(n)
	lines := fftLines(n)
	groups := (post + lines - 1) / lines
	units := pre * groups
	grain := max(1, fftGrain/(n*lines))
	x128, wide := any(x).([]complex128)
	backend.ParallelFor(units, grain, func(lo, hi int) {
		w, pool := getFFTWorker(n)
		defer pool.Put(w)
		var s []complex128
		if w.k == nil || !wide {
			if len(w.scratch) < n*lines {
				w.scratch = make([]complex128, n*lines)
			}
			s = w.scratch
		}
		for u := lo; u < hi; u++ {
			o, g := u/groups, u%groups
			c0 := g * lines
			width := min(lines, post-c0)
			base := o*n*post + c0
			if w.k != nil && wide {
				// complex128 lines stay where they are: the plan's
				// first pass reads them, its last writes them.
				lines := x128[base : base+(n-1)*post+width]
				if inverse {
					w.k.InverseStrided(lines, width, post, scale)
				} else {
					w.k.ForwardStrided(lines, width, post)
				}
				continue
			}
			if w.k != nil {
				for i := 0; i < n; i++ {
					run := s[i*width : (i+1)*width]
					for j, v := range x[base+i*post : base+i*post+width] {
						run[j] = complex128(v)
					}
				}
				if inverse {
					w.k.InverseBatch(s[:n*width], width, scale)
				} else {
					w.k.ForwardBatch(s[:n*width], width)
				}
				for i := 0; i < n; i++ {
					run := s[i*width : (i+1)*width]
					row := x[base+i*post : base+i*post+width]
					for j := range row {
						row[j] = T(run[j])
					}
				}
				continue
			}
			for i := 0; i < n; i++ {
				row := x[base+i*post : base+i*post+width]
				for j, v := range row {
					s[j*n+i] = complex128(v)
				}
			}
			for j := 0; j < width; j++ {
				w.transform(s[j*n:(j+1)*n], inverse, scale)
			}
			for i := 0; i < n; i++ {
				row := x[base+i*post : base+i*post+width]
				for j := range row {
					row[j] = T(s[j*n+i])
				}
			}
		}
	})
}
