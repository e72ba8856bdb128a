package cuda

import (
	_ "embed"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/profiling"
)

// The CUDA backend computes discrete Fourier transforms on its device, as
// a driver.FFTer, with the kernels of fft.cu, so that package fft's
// transforms of CUDA arrays copy nothing to the host.
var _ driver.FFTer = (*Backend)(nil)

// fftSource is fft.cu, which KernelSource appends after random.cu.
//
//go:embed fft.cu
var fftSource string

// fftEntries returns the names of the entries of fft.cu: four per real
// type, float32 for complex64 and float64 for complex128.
func fftEntries() []string {
	var out []string
	for _, dt := range []backend.DType{backend.Float32, backend.Float64} {
		for _, op := range []string{"fftpass", "fftchirp", "fftmul", "fftunchirp"} {
			out = append(out, kernelName(op, dt))
		}
	}
	return out
}

// fftRadices returns the radices of the Stockham passes of length n (4s
// first, then 2, 3 and 5), or nil if n has another prime factor.
func fftRadices(n int) []int {
	var out []int
	for _, r := range []int{4, 2, 3, 5} {
		for n%r == 0 {
			out = append(out, r)
			n /= r
		}
	}
	if n != 1 {
		return nil
	}
	return out
}

// fftPlan is what a transform of one length and type needs on the device,
// made once (by fftPlanFor) and kept for the backend's life: the twiddle
// factors of the Stockham passes, and for Bluestein's algorithm the chirp
// and the transform of its convolution kernel.
type fftPlan struct {
	n       int
	radices []int         // the Stockham passes of length n, or of m for Bluestein
	tw      driver.Buffer // exp(-2 pi i j / len) for j < len: len = n, or m for Bluestein
	// Bluestein's algorithm (chirp != nil): the convolution length m, a
	// power of two at least 2n-1, the chirp c_k = exp(-i pi k^2 / n) for
	// k < n, and the length-m transform of conj(c) (wrapped around), / m.
	m     int
	chirp driver.Buffer
	bhat  driver.Buffer
}

// fftKey identifies a plan: the backend, the length and the element type.
type fftKey struct {
	b  *Backend
	n  int
	dt backend.DType
}

// fftPlans caches the plans: fftKey -> *fftPlan. A plan's device memory
// (about 2n complex values, or 3m for Bluestein) is never freed.
var (
	fftMu    sync.Mutex
	fftPlans = map[fftKey]*fftPlan{}
)

// fftTwiddles returns exp(-2 pi i j / n) for j < n, in float64: the angle
// taken at most pi (j > n/2 is the conjugate of n-j), exact at the
// multiples of pi/2.
func fftTwiddles(n int) []complex128 {
	w := make([]complex128, n)
	for j := range w {
		switch {
		case j == 0:
			w[j] = 1
		case 2*j == n:
			w[j] = -1
		case 4*j == n:
			w[j] = complex(0, -1)
		case 4*j == 3*n:
			w[j] = complex(0, 1)
		case 2*j > n:
			w[j] = cmplxConj(w[n-j])
		default:
			s, c := math.Sincos(2 * math.Pi * float64(j) / float64(n))
			w[j] = complex(c, -s)
		}
	}
	return w
}

func cmplxConj(v complex128) complex128 { return complex(real(v), -imag(v)) }

// fftChirp returns c_k = exp(-i pi k^2 / n) for k < n, in float64, with
// k^2 reduced modulo 2n exactly before the angle is taken (at most pi).
func fftChirp(n int) []complex128 {
	c := make([]complex128, n)
	for k := range c {
		r := int64(k) * int64(k) % int64(2*n)
		neg := r > int64(n)
		if neg {
			r = int64(2*n) - r
		}
		var v complex128
		switch {
		case r == 0:
			v = 1
		case r == int64(n):
			v = -1
		default:
			s, co := math.Sincos(math.Pi * float64(r) / float64(n))
			v = complex(co, -s)
		}
		if neg {
			v = cmplxConj(v)
		}
		c[k] = v
	}
	return c
}

// fftPlanFor returns the plan of length n for dt (Complex64 or Complex128),
// making it on first use: its tables are computed on the host in float64,
// rounded to dt and copied to the device (recorded with package profiling,
// as the plan's copies, once).
func (b *Backend) fftPlanFor(n int, dt backend.DType) (*fftPlan, error) {
	fftMu.Lock()
	defer fftMu.Unlock()
	key := fftKey{b, n, dt}
	if p, ok := fftPlans[key]; ok {
		return p, nil
	}
	p := &fftPlan{n: n, radices: fftRadices(n)}
	var err error
	if p.radices != nil {
		if p.tw, err = b.fftUpload(dt, fftTwiddles(n)); err != nil {
			return nil, err
		}
	} else {
		p.m = 1
		for p.m < 2*n-1 {
			p.m *= 2
		}
		p.radices = fftRadices(p.m)
		chirp := fftChirp(n)
		kern := make([]complex128, p.m)
		for k := 0; k < n; k++ {
			kern[k] = cmplxConj(chirp[k])
			if k > 0 {
				kern[p.m-k] = kern[k]
			}
		}
		fourier.NewCmplxFFT(p.m).Coefficients(kern, kern)
		inv := 1 / float64(p.m) // a power of two: exact
		for k, v := range kern {
			kern[k] = complex(real(v)*inv, imag(v)*inv)
		}
		if p.tw, err = b.fftUpload(dt, fftTwiddles(p.m)); err == nil {
			if p.chirp, err = b.fftUpload(dt, chirp); err == nil {
				p.bhat, err = b.fftUpload(dt, kern)
			}
		}
		if err != nil {
			for _, x := range []driver.Buffer{p.tw, p.chirp, p.bhat} {
				if x != nil {
					b.Free(x)
				}
			}
			return nil, err
		}
	}
	fftPlans[key] = p
	return p, nil
}

// fftUpload copies v, rounded to dt, into new device memory, recorded as a
// copy to the device.
func (b *Backend) fftUpload(dt backend.DType, v []complex128) (driver.Buffer, error) {
	d, err := b.Alloc(dt, len(v))
	if err != nil {
		return nil, err
	}
	var src unsafe.Pointer
	if dt == backend.Complex64 {
		s := make([]complex64, len(v))
		for i, x := range v {
			s[i] = complex64(x)
		}
		src = unsafe.Pointer(&s[0])
	} else {
		src = unsafe.Pointer(&v[0])
	}
	if err := b.CopyFromHost(d, src); err != nil {
		b.Free(d)
		return nil, err
	}
	profiling.RecordTransfer(profiling.ToDevice, "cuda.FFT plan (twiddle factors, once per length and type)", int64(len(v)*dt.Size()), true, false)
	return d, nil
}

// FFT transforms, in place, every line along the middle axis of x, pre x n
// x post complex values, on the device (see driver.FFTer), with NumPy's
// scaling: forward unnormalized, inverse divided by n.
//
// A length that factors into 2, 3, 4 and 5 takes one Stockham pass (one
// kernel over every line at once) per factor, 4s first, out of place
// between x and a work block of x's size (and a device copy back when the
// number of passes is odd); the inverse's scaling is part of its last
// pass. Any other length takes Bluestein's chirp-z algorithm through
// power-of-two transforms of length m >= 2n-1 on two work blocks of
// pre*post*m values. The twiddle factors, chirp and kernel transform are
// computed on the host in float64, rounded to x's precision, and copied to
// the device once per length and type (a plan, kept for the backend's
// life: the first transform of a length records those copies). The work
// blocks are allocated for the call and freed after it (which waits for
// the device). complex64 is computed in float32 throughout.
//
// That is the parity mode (LibMode: ParityMode, XPMPI_CUDA_LIBS=parity).
// In the default vendor mode the transform is cuFFT's (loaded at run time
// where present: a batched plan per shape, made once and kept; lines of
// stride post take one execution per block of post lines; the inverse then
// scaled by 1/n), with the same bound against NumPy's; where cuFFT is
// missing or does not plan, the kernels above run (Backend.Vendor says
// which). An error of cuFFT's execution is returned: x may be partly
// transformed.
//
// Results agree with NumPy's (pocketfft) to about 1e-15 relative in the
// max norm for complex128 (measured: 8e-16 at n = 2048, 1.2e-15 for the
// prime 4099 through Bluestein), and complex64 to about 5e-7; they are not
// the CPU backend's (FFTPACK's) bits. FFT panics as
// driver.CheckFFT does and returns an error where the device has no
// memory for the plan or the work blocks.
func (b *Backend) FFT(x driver.Buffer, pre, n, post int, inverse bool) error {
	d := b.buf("FFT", x)
	driver.CheckFFT(x, pre, n, post)
	if d.N == 0 || n == 1 {
		return nil
	}
	if done, err := b.vendorFFT(d, pre, n, post, inverse); done {
		return err
	}
	p, err := b.fftPlanFor(n, d.DT)
	if err != nil {
		return fmt.Errorf("cuda: FFT plan of length %d: %w", n, err)
	}
	rt := backend.Float64
	if d.DT == backend.Complex64 {
		rt = backend.Float32
	}
	lines := pre * post
	inv := flag(inverse)
	if p.chirp == nil {
		work, err := b.Alloc(d.DT, d.N)
		if err != nil {
			return fmt.Errorf("cuda: FFT work space: %w", err)
		}
		defer b.Free(work)
		scale := 1.0
		if inverse {
			scale = 1 / float64(n)
		}
		out := b.fftPasses(rt, p, n, post, lines*n, x, work, inverse, scale)
		if out != x {
			b.Copy(x, out)
		}
		return nil
	}
	m := p.m
	w1, err := b.Alloc(d.DT, lines*m)
	if err != nil {
		return fmt.Errorf("cuda: FFT work space (Bluestein, length %d): %w", m, err)
	}
	defer b.Free(w1)
	w2, err := b.Alloc(d.DT, lines*m)
	if err != nil {
		return fmt.Errorf("cuda: FFT work space (Bluestein, length %d): %w", m, err)
	}
	defer b.Free(w2)
	total := lines * m
	b.launch("FFT", kernelName("fftchirp", rt), elemGrid(total), Dim3{X: blockSize},
		(&Args{}).Int64(int64(total)).Int64(int64(n)).Int64(int64(m)).Int64(int64(post)).
			Buffer(x).Buffer(w1).Buffer(p.chirp).Int32(inv))
	y := b.fftPasses(rt, p, m, 1, total, w1, w2, false, 1)
	b.launch("FFT", kernelName("fftmul", rt), elemGrid(total), Dim3{X: blockSize},
		(&Args{}).Int64(int64(total)).Int64(int64(m)).Buffer(y).Buffer(p.bhat).Int32(inv))
	other := w2
	if y == w2 {
		other = w1
	}
	// The conjugate of the convolution's transform is the transform of the
	// conjugate kernel (the kernel is symmetric), so the inverse transform
	// of length m is a Stockham transform with conjugate twiddles.
	y = b.fftPasses(rt, p, m, 1, total, y, other, true, 1)
	scale := 1.0
	if inverse {
		scale = 1 / float64(n)
	}
	b.launch("FFT", kernelName("fftunchirp", rt), elemGrid(lines*n), Dim3{X: blockSize},
		(&Args{}).Int64(int64(lines*n)).Int64(int64(n)).Int64(int64(m)).Int64(int64(post)).
			Buffer(y).Buffer(x).Buffer(p.chirp).Int32(inv).Float64(scale))
	return nil
}

// fftPasses runs the Stockham passes of p (of length n: the plan's length,
// or its m for Bluestein) over the elems values of in, lines of stride
// post, ping-ponging between in and work; the last pass multiplies by
// scale. It returns the buffer that holds the result.
func (b *Backend) fftPasses(rt backend.DType, p *fftPlan, n, post, elems int, in, work driver.Buffer, inverse bool, scale float64) driver.Buffer {
	src, dst := in, work
	ns := 1
	for i, r := range p.radices {
		s := 1.0
		if i == len(p.radices)-1 {
			s = scale
		}
		total := elems / r
		b.launch("FFT", kernelName("fftpass", rt), elemGrid(total), Dim3{X: blockSize},
			(&Args{}).Int64(int64(total)).Int64(int64(n)).Int64(int64(r)).Int64(int64(ns)).Int64(int64(post)).
				Buffer(src).Buffer(dst).Buffer(p.tw).Int32(flag(inverse)).Float64(s))
		ns *= r
		src, dst = dst, src
	}
	return src
}
