package bench

import (
	"math"
	"math/cmplx"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/fft"
	"github.com/xpmpi/xpmpi/mpi"
)

// fftID is the id of the 2-D FFT workload (docs/BENCH.md's W8).
const fftID = "W8"

// targetFFT is the largest ratio (xpmpi's time over FFTW's) that meets the
// target: FFTW's speed within 10%, as for the matrix product.
const targetFFT = 1.10

// The input of W8 and the weights of the forward checksum, as
// bench/ref/w8fft.c has them.
func fftInput(i, j int) complex128 {
	return complex(float64((i*7+j*13)%29)/29-0.5, float64((i*3+j*5)%31)/31-0.5)
}
func fftWeight(k1, k2 int) float64 { return float64((k1+3*k2)%7 + 1) }

// benchFFT times a forward and inverse 2-D FFT of an n x n complex128
// array split by rows, with fft.FFT2 and fft.IFFT2 with TransposedOut (one
// redistribution each way: the forward result split by columns, the
// inverse's by rows again) and Overwrite (in place, as FFTW's plans of the
// reference are), against xpref_fft2 (FFTW's 1-D plans on the
// same blocks, the same transposes with MPI_Alltoallv). The figure is the
// milliseconds of the forward and inverse, without the forward checksum
// between them. The checksum is the round-trip error max|x' - x| / max|x|,
// compared as 1 + error to 1e-12; the forward result's weighted sum is
// compared to 1e-9 relative, so that a transform that does nothing does
// not pass.
func (e *benchEnv) benchFFT() ([]Row, error) {
	n := e.sizes.FFTN
	e.say("%s 2-D FFT, %d x %d complex128, forward and inverse", fftID, n, n)
	p, rank := e.world.Size(), e.world.Rank()
	xp := func() (Sample, error) {
		a, err := dist.FromFunc(e.world, []int{n, n}, func(idx []int) complex128 { return fftInput(idx[0], idx[1]) })
		if err != nil {
			return Sample{}, err
		}
		defer a.Free()
		layout := a.Layout()
		if err := e.world.Barrier(); err != nil {
			return Sample{}, err
		}
		t0 := e.world.Wtime()
		y, err := fft.FFT2(a, fft.TransposedOut(), fft.Overwrite())
		if err != nil {
			return Sample{}, err
		}
		if y != a {
			defer y.Free()
		}
		t1 := e.world.Wtime()
		// The forward checksum, untimed.
		start, shape := y.Layout().Block(rank)
		sum := 0.0
		for k, v := range y.LocalData() {
			k1, k2 := start[0]+k/shape[1], start[1]+k%shape[1]
			sum += fftWeight(k1, k2) * (real(v) + 2*imag(v))
		}
		if err := e.world.Barrier(); err != nil {
			return Sample{}, err
		}
		t2 := e.world.Wtime()
		z, err := fft.IFFT2(y, fft.TransposedOut(), fft.Overwrite())
		if err != nil {
			return Sample{}, err
		}
		if z != y && z != a {
			defer z.Free()
		}
		secs, err := mpi.AllreduceValue(e.world, (t1-t0)+(e.world.Wtime()-t2), mpi.Max)
		if err != nil {
			return Sample{}, err
		}
		start, shape = z.Layout().Block(rank)
		var d, m float64
		for k, v := range z.LocalData() {
			x := fftInput(start[0]+k/shape[1], start[1]+k%shape[1])
			d = math.Max(d, cmplx.Abs(v-x))
			m = math.Max(m, cmplx.Abs(x))
			if cmplx.IsNaN(v) {
				d = math.Inf(1)
			}
		}
		g := []float64{d, m}
		if err := mpi.AllreduceInPlace(e.world, g, mpi.Max); err != nil {
			return Sample{}, err
		}
		fwd, err := mpi.AllreduceValue(e.world, sum, mpi.Sum)
		if err != nil {
			return Sample{}, err
		}
		rt := g[0]
		if g[1] > 0 {
			rt /= g[1]
		}
		s := Sample{Seconds: secs, Checksum: rt, OK: rt < 1e-10 && z.Layout().Equal(layout)}
		s.Extra[0] = fwd
		return s, nil
	}
	ref := func() (Sample, error) {
		return e.ref.Call("xpref_fft2", Params{N: int64(n), Threads: int64(e.threads)})
	}
	type sides struct{ xs, rs []Sample }
	res, err := withThreads(e.threads, func() (sides, error) {
		xs, rs, err := e.interleave(xp, ref)
		return sides{xs, rs}, err
	})
	if err != nil {
		return nil, err
	}
	xs, rs := res.xs, res.rs
	rt := compareChecksums(fftID, "1 + round-trip error", xs, rs, 1e-12, func(s Sample) float64 { return 1 + s.Checksum })
	fw := compareChecksums(fftID, "weighted sum of the forward transform", xs, rs, 1e-9, func(s Sample) float64 { return s.Extra[0] })
	e.checks = append(e.checks, rt, fw)
	ms := func(s Sample) float64 { return s.Seconds * 1e3 }
	return []Row{
		newRow(fftID, p, e.be, "2-D FFT forward+inverse, slab", "ms", KindTime, targetFFT, figures(xs, ms), figures(rs, ms), rt.OK && fw.OK),
	}, nil
}
