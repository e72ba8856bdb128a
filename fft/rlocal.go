package fft

import (
	"fmt"
	"math"
	"sync"

	"github.com/xpmpi/xpmpi/backend"
)

// The real transforms of local blocks. For an even length n = 2M the M
// complex values z[j] = x[2j] + i x[2j+1] of a real line are transformed
// by one complex FFT of length M, and the half spectrum is unpacked from
// it: with Z = FFT_M(z), E[k] = (Z[k] + conj(Z[M-k]))/2 and O[k] = (Z[k] -
// conj(Z[M-k]))/(2i) are the transforms of the even and odd samples, and
// X[k] = E[k] + w^k O[k], w = exp(-2 pi i / n), for k = 0..M (Z[M] being
// Z[0]). The inverse packs Z[k] = E[k] + i O[k] from the half spectrum and
// unpacks the real line from the inverse FFT of length M. Half the work
// and half the memory of transforming the line as complex128: the scratch
// is a few lines per goroutine. An odd length has no such packing: its
// lines are transformed as complex128 (the real line, or the whole
// Hermitian spectrum for the inverse), a few at a time.

// realTwiddles returns w^k = exp(-2 pi i k / n) for k = 0..n/2, made once
// per length.
var realTwiddleCache sync.Map // int -> []complex128

func realTwiddles(n int) []complex128 {
	if v, ok := realTwiddleCache.Load(n); ok {
		return v.([]complex128)
	}
	w := make([]complex128, n/2+1)
	for k := range w {
		// The angle reduced to the first octant's accuracy is not
		// needed: k/n <= 1/2, and Sincos of an angle under pi is
		// within an ulp or two.
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		w[k] = complex(c, s)
	}
	v, _ := realTwiddleCache.LoadOrStore(n, w)
	return v.([]complex128)
}

// realGrain is the least number of elements one goroutine transforms.
const realGrain = 1 << 15

// lineGroups describes the lines of a pre x n x post block by units of a
// few lines each: for post == 1 a unit is up to `lines` consecutive rows,
// otherwise up to `lines` adjacent columns of one outer index.
type lineGroups struct {
	pre, post, lines, units, perOuter int
}

func groupLines(pre, post, fftLen int) lineGroups {
	lines := max(1, min(32, (1<<14)/max(fftLen, 1)))
	g := lineGroups{pre: pre, post: post}
	if post == 1 {
		g.lines = lines
		g.units = (pre + lines - 1) / lines
		return g
	}
	g.lines = min(lines, post)
	if g.lines < 8 {
		g.lines = min(8, post)
	}
	g.perOuter = (post + g.lines - 1) / g.lines
	g.units = pre * g.perOuter
	return g
}

// unit returns the lines of unit u: how many (w), and for a block whose
// lines have length n, the offset of the first line's first element, the
// distance between adjacent lines (ls) and between adjacent elements of a
// line (es).
func (g lineGroups) unit(u, n int) (w, base, ls, es int) {
	if g.post == 1 {
		r0 := u * g.lines
		return min(g.lines, g.pre-r0), r0 * n, n, 1
	}
	o, c0 := u/g.perOuter, (u%g.perOuter)*g.lines
	return min(g.lines, g.post-c0), o*n*g.post + c0, 1, g.post
}

// rfftBlock computes the half spectrum of every line of length n along
// the middle axis of x (pre x n x post, real) into out (pre x (n/2+1) x
// post), as numpy.fft.rfft. n must be at least 1.
func rfftBlock(x []float64, out []complex128, pre, n, post int) {
	h := n/2 + 1
	if pre*post == 0 {
		return
	}
	fftLen := n
	if n%2 == 0 {
		fftLen = n / 2
	}
	g := groupLines(pre, post, fftLen)
	var tw []complex128
	if n%2 == 0 {
		tw = realTwiddles(n)
	}
	grain := max(1, realGrain/(n*g.lines))
	backend.ParallelFor(g.units, grain, func(lo, hi int) {
		s := make([]complex128, g.lines*fftLen)
		for u := lo; u < hi; u++ {
			w, xb, ls, es := g.unit(u, n)
			_, ob, ols, _ := g.unit(u, h)
			L := fftLen
			// Pack: along the lines where they are contiguous (rows),
			// across them where they are not (adjacent columns).
			switch {
			case n%2 == 0 && es == 1:
				for l := 0; l < w; l++ {
					line := s[l*L : (l+1)*L]
					p := xb + l*ls
					for j := range line {
						line[j] = complex(x[p+2*j], x[p+2*j+1])
					}
				}
			case n%2 == 0:
				for j := 0; j < L; j++ {
					re, im := x[xb+2*j*es:xb+2*j*es+w], x[xb+(2*j+1)*es:xb+(2*j+1)*es+w]
					for l := range re {
						s[l*L+j] = complex(re[l], im[l])
					}
				}
			case es == 1:
				for l := 0; l < w; l++ {
					line := s[l*L : (l+1)*L]
					p := xb + l*ls
					for j := range line {
						line[j] = complex(x[p+j], 0)
					}
				}
			default:
				for j := 0; j < L; j++ {
					re := x[xb+j*es : xb+j*es+w]
					for l := range re {
						s[l*L+j] = complex(re[l], 0)
					}
				}
			}
			hostFFT().FFT(backend.HostBufferOf(s[:w*L]), w, L, 1, false)
			// Unpack, row by row or a row of every column at a time.
			if es == 1 {
				for l := 0; l < w; l++ {
					unpackHalf(out[ob+l*ols:ob+l*ols+h], s[l*L:(l+1)*L], n, tw)
				}
				continue
			}
			for k := 0; k < h; k++ {
				row := out[ob+k*es : ob+k*es+w]
				for l := range row {
					row[l] = halfTerm(s[l*L:(l+1)*L], k, n, tw)
				}
			}
		}
	})
}

// unpackHalf writes the half spectrum (n/2+1 terms) of a real line of
// length n into dst from z, the FFT of its packed samples (length n/2 for
// even n, n for odd n: the line itself, whose first terms are the half
// spectrum).
func unpackHalf(dst, z []complex128, n int, tw []complex128) {
	if n%2 == 1 {
		copy(dst, z[:len(dst)])
		return
	}
	M := n / 2
	z0 := z[0]
	dst[0] = complex(real(z0)+imag(z0), 0)
	dst[M] = complex(real(z0)-imag(z0), 0)
	for k := 1; k < M; k++ {
		dst[k] = evenTerm(z, k, M, tw[k])
	}
}

// halfTerm is term k of the half spectrum that unpackHalf writes.
func halfTerm(z []complex128, k, n int, tw []complex128) complex128 {
	if n%2 == 1 {
		return z[k]
	}
	M := n / 2
	switch k {
	case 0:
		return complex(real(z[0])+imag(z[0]), 0)
	case M:
		return complex(real(z[0])-imag(z[0]), 0)
	}
	return evenTerm(z, k, M, tw[k])
}

// evenTerm is X[k] = E[k] + w^k O[k], 0 < k < M, from Z, the FFT of the
// M packed samples: E[k] = (Z[k] + conj Z[M-k])/2, O[k] = (Z[k] - conj
// Z[M-k])/(2i).
func evenTerm(z []complex128, k, M int, t complex128) complex128 {
	a, b := z[k], z[M-k]
	er, ei := 0.5*(real(a)+real(b)), 0.5*(imag(a)-imag(b))
	or, oi := 0.5*(imag(a)+imag(b)), -0.5*(real(a)-real(b))
	return complex(er+real(t)*or-imag(t)*oi, ei+real(t)*oi+imag(t)*or)
}

// irfftBlock computes the real lines of length n whose half spectra are
// the lines of length m along the middle axis of in (pre x m x post), as
// numpy.fft.irfft(in, n): the spectra cropped or padded with zeros to
// n/2+1, the imaginary parts of the zero-frequency term (and, for even n,
// of the Nyquist term) ignored; out is pre x n x post. n must be at least
// 1.
func irfftBlock(in []complex128, m int, out []float64, pre, n, post int) {
	if pre*post == 0 {
		return
	}
	q := min(m, n/2+1) // the spectrum's terms that are read
	fftLen := n
	if n%2 == 0 {
		fftLen = n / 2
	}
	g := groupLines(pre, post, fftLen)
	var tw []complex128
	if n%2 == 0 {
		tw = realTwiddles(n)
	}
	grain := max(1, realGrain/(n*g.lines))
	backend.ParallelFor(g.units, grain, func(lo, hi int) {
		s := make([]complex128, g.lines*fftLen)
		X := make([]complex128, n/2+1)
		var xs []complex128 // the terms of strided lines, gathered
		if post > 1 {
			xs = make([]complex128, g.lines*(n/2+1))
		}
		for u := lo; u < hi; u++ {
			w, ib, ils, es := g.unit(u, m)
			_, ob, ols, _ := g.unit(u, n)
			L := fftLen
			if es != 1 {
				// Gather the lines' terms across them, contiguously.
				for k := 0; k < q; k++ {
					row := in[ib+k*es : ib+k*es+w]
					for l, v := range row {
						xs[l*(n/2+1)+k] = v
					}
				}
			}
			for l := 0; l < w; l++ {
				if es == 1 {
					copy(X[:q], in[ib+l*ils:ib+l*ils+q])
				} else {
					copy(X[:q], xs[l*(n/2+1):l*(n/2+1)+q])
				}
				clear(X[q:])
				X[0] = complex(real(X[0]), 0)
				line := s[l*L : (l+1)*L]
				if n%2 == 1 {
					line[0] = X[0]
					for k := 1; k <= n/2; k++ {
						line[k] = X[k]
						line[n-k] = complex(real(X[k]), -imag(X[k]))
					}
					continue
				}
				M := L
				xm := real(X[M])
				line[0] = complex(0.5*(real(X[0])+xm), 0.5*(real(X[0])-xm))
				for k := 1; k < M; k++ {
					a, b := X[k], X[M-k]
					// e = (a + conj b)/2, o = (a - conj b) conj(w^k)/2,
					// Z = e + i o.
					er, ei := 0.5*(real(a)+real(b)), 0.5*(imag(a)-imag(b))
					dr, di := 0.5*(real(a)-real(b)), 0.5*(imag(a)+imag(b))
					t := tw[k]
					or, oi := dr*real(t)+di*imag(t), di*real(t)-dr*imag(t)
					line[k] = complex(er-oi, ei+or)
				}
			}
			hostFFT().FFT(backend.HostBufferOf(s[:w*L]), w, L, 1, true)
			switch {
			case es == 1:
				for l := 0; l < w; l++ {
					z := s[l*L : (l+1)*L]
					line := out[ob+l*ols : ob+l*ols+n]
					if n%2 == 1 {
						for j, v := range z {
							line[j] = real(v)
						}
						continue
					}
					for j, v := range z {
						line[2*j], line[2*j+1] = real(v), imag(v)
					}
				}
			case n%2 == 1:
				for j := 0; j < L; j++ {
					row := out[ob+j*es : ob+j*es+w]
					for l := range row {
						row[l] = real(s[l*L+j])
					}
				}
			default:
				for j := 0; j < L; j++ {
					re, im := out[ob+2*j*es:ob+2*j*es+w], out[ob+(2*j+1)*es:ob+(2*j+1)*es+w]
					for l := range re {
						v := s[l*L+j]
						re[l], im[l] = real(v), imag(v)
					}
				}
			}
		}
	})
}

// LocalRFFT returns the half spectrum of every real line along axis of x,
// a row-major block of the given shape: a new block of that shape with
// n/2+1 along axis (n = shape[axis]), as numpy.fft.rfft(x, axis=axis). An
// even n takes one complex FFT of length n/2 per line (half the work and
// memory of transforming the line as complex128), an odd n one of length
// n. It is not collective. It panics if len(x) is not the product of
// shape, axis is out of range or shape[axis] is 0 (NumPy raises there
// too).
func LocalRFFT(x []float64, shape []int, axis int) []complex128 {
	pre, n, post := checkRealBlock(len(x), shape, axis, "LocalRFFT")
	if n < 1 {
		panic(fmt.Sprintf("fft: LocalRFFT: invalid number of data points (%d) along axis %d", n, axis))
	}
	out := make([]complex128, pre*(n/2+1)*post)
	rfftBlock(x, out, pre, n, post)
	return out
}

// LocalIRFFT returns the real lines of length n whose half spectra are
// the lines along axis of X, a row-major block of the given shape (m =
// shape[axis] terms each): a new block of that shape with n along axis,
// as numpy.fft.irfft(X, n, axis=axis), scaled by 1/n. n = 0 means NumPy's
// default, 2(m-1). The spectra are cropped or padded with zeros to
// n/2+1 terms; the imaginary parts of the zero-frequency term and (n
// even) of the Nyquist term are ignored, as NumPy's are. It is not
// collective. It panics if len(X) is not the product of shape, axis is
// out of range, or n (after the default) is less than 1.
func LocalIRFFT(X []complex128, shape []int, axis, n int) []float64 {
	pre, m, post := checkRealBlock(len(X), shape, axis, "LocalIRFFT")
	if n == 0 {
		n = 2 * (m - 1)
	}
	if n < 1 {
		panic(fmt.Sprintf("fft: LocalIRFFT: invalid number of data points (%d) along axis %d", n, axis))
	}
	out := make([]float64, pre*n*post)
	irfftBlock(X, m, out, pre, n, post)
	return out
}

// checkRealBlock panics unless a block of length elements has shape and
// axis is one of its axes, and returns the extents before, at and after
// axis.
func checkRealBlock(length int, shape []int, axis int, name string) (pre, n, post int) {
	if axis < 0 || axis >= len(shape) {
		panic(fmt.Sprintf("fft: %s: axis %d out of range for %d-D shape %v", name, axis, len(shape), shape))
	}
	for _, s := range shape {
		if s < 0 {
			panic(fmt.Sprintf("fft: %s: negative extent in shape %v", name, shape))
		}
	}
	pre, n, post = splitShape(shape, axis)
	if pre*n*post != length {
		panic(fmt.Sprintf("fft: %s: %d elements for shape %v", name, length, shape))
	}
	return pre, n, post
}
