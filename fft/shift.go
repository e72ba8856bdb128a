package fft

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// FFTShift returns a with the zero-frequency term moved to the middle of
// each of axes (every axis where axes is nil), as numpy.fft.fftshift(a,
// axes): a roll by n/2 along each (n its length; an axis given twice is
// rolled twice, as NumPy's roll does); a negative axis counts from the
// end. The result is a new array of a's layout, backend and ghost layers
// (not exchanged).
//
// Rolls along axes local to every block (and every roll of a replicated
// array) do not communicate. Rolls along a split axis take one all-to-all
// (MPI_Alltoallv) for all of axes together, in which each element whose
// owner changes moves once: for even blocks along a rolled split axis,
// nearly the whole array. A block on a device stays there where no axis
// rolled is split (the moves are the backend's copies); otherwise the
// block is copied to the host, exchanged, and the result's block copied
// back (recorded copies). It is collective: every rank calls it with the
// same axes. It panics if an axis is out of range.
func FFTShift[T backend.Numeric](a *dist.Array[T], axes []int) (*dist.Array[T], error) {
	return shift(a, axes, false, "FFTShift")
}

// IFFTShift is the inverse of FFTShift, as numpy.fft.ifftshift(a, axes):
// a roll by -(n/2) along each of axes, which differs from FFTShift's for
// odd n. Otherwise as FFTShift.
func IFFTShift[T backend.Numeric](a *dist.Array[T], axes []int) (*dist.Array[T], error) {
	return shift(a, axes, true, "IFFTShift")
}

func shift[T backend.Numeric](a *dist.Array[T], axes []int, inverse bool, name string) (*dist.Array[T], error) {
	if a.Freed() {
		return nil, backend.FreedError("fft", name)
	}
	l := a.Layout()
	shape := l.Shape()
	nd := len(shape)
	if axes == nil {
		axes = make([]int, nd)
		for k := range axes {
			axes[k] = k
		}
	}
	shifts := make([]int, nd)
	for _, ax := range axes {
		ax = normAxis(name, ax, nd)
		s := shape[ax] / 2
		if inverse {
			s = -s
		}
		shifts[ax] += s
	}
	for k, n := range shape {
		if n > 0 {
			shifts[k] = ((shifts[k] % n) + n) % n
		} else {
			shifts[k] = 0
		}
	}
	return roll(a, shifts)
}

// roll returns a new array of a's layout with out[i] = a[i - shifts]
// (modulo the shape) along every axis, shifts in [0, n).
func roll[T backend.Numeric](a *dist.Array[T], shifts []int) (*dist.Array[T], error) {
	l := a.Layout()
	shape := l.Shape()
	c := a.Comm()
	me := c.Rank()
	out, err := dist.ZerosLike(a)
	if err != nil {
		return nil, err
	}
	dims := dimsOf(l)
	exchange := false
	for k, s := range shifts {
		if s != 0 && dims[k] > 1 {
			exchange = true
		}
	}
	inStart, inShape := l.Block(me)
	if !exchange {
		// Every piece is this rank's own: Go's copies on the host, the
		// backend's on a device.
		b := a.Local().Backend()
		host := a.Local().Device().IsHost() && out.Local().Device().IsHost()
		var hin, hout []T
		if host {
			hin, hout = a.LocalData(), out.LocalData()
		}
		src, dst := a.Local().Buffer(), out.Local().Buffer()
		for _, p := range rollPieces(inStart, inShape, inStart, inShape, shifts, shape) {
			forRuns(p.ext, inShape, sub(p.src, inStart), inShape, sub(p.dst, inStart), func(so, do, n int) {
				if host {
					copy(hout[do:do+n], hin[so:so+n])
					return
				}
				b.Copy(b.Slice(dst, do, do+n), b.Slice(src, so, so+n))
			})
		}
		return out, nil
	}
	err = onHostSame(c, a.Local(), out.Local(), func(in, res []T) error {
		p := c.Size()
		sc, sd, rc, rd := make([]int, p), make([]int, p), make([]int, p), make([]int, p)
		var send []T
		for q := 0; q < p; q++ {
			sd[q] = len(send)
			if q == me {
				continue
			}
			oStart, oShape := l.Block(q)
			for _, pc := range rollPieces(oStart, oShape, inStart, inShape, shifts, shape) {
				at := len(send)
				send = append(send, make([]T, prodInts(pc.ext))...)
				forRuns(pc.ext, inShape, sub(pc.src, inStart), pc.ext, make([]int, len(shape)), func(so, do, n int) {
					copy(send[at+do:at+do+n], in[so:so+n])
				})
			}
			sc[q] = len(send) - sd[q]
		}
		total := 0
		recvPieces := make([][]piece, p)
		for q := 0; q < p; q++ {
			rd[q] = total
			if q == me {
				continue
			}
			qStart, qShape := l.Block(q)
			recvPieces[q] = rollPieces(inStart, inShape, qStart, qShape, shifts, shape)
			for _, pc := range recvPieces[q] {
				total += prodInts(pc.ext)
			}
			rc[q] = total - rd[q]
		}
		recv := make([]T, total)
		if err := mpi.Alltoallv(c, send, sc, sd, recv, rc, rd); err != nil {
			return err
		}
		for _, pc := range rollPieces(inStart, inShape, inStart, inShape, shifts, shape) {
			forRuns(pc.ext, inShape, sub(pc.src, inStart), inShape, sub(pc.dst, inStart), func(so, do, n int) {
				copy(res[do:do+n], in[so:so+n])
			})
		}
		for q := 0; q < p; q++ {
			at := rd[q]
			for _, pc := range recvPieces[q] {
				forRuns(pc.ext, pc.ext, make([]int, len(shape)), inShape, sub(pc.dst, inStart), func(so, do, n int) {
					copy(res[do:do+n], recv[at+so:at+so+n])
				})
				at += prodInts(pc.ext)
			}
		}
		return nil
	})
	if err != nil {
		out.Free()
		return nil, err
	}
	return out, nil
}

// onHostSame runs f on the host memory of in and out, as onHost, for a
// collective f: a failed copy to the host is agreed on before f runs, so
// that no rank enters f's communication alone, and the outcome after.
func onHostSame[T backend.Numeric](c mpi.Comm, in, out *backend.Array[T], f func(in, out []T) error) error {
	var hin, hout []T
	var err error
	if in.Device().IsHost() {
		hin = in.Data()
	} else {
		hin = make([]T, in.Len())
		err = backend.CopyToHostSlice(hin, in)
	}
	if out.Device().IsHost() {
		hout = out.Data()
	} else {
		hout = make([]T, out.Len())
	}
	if err := mpi.Agree(c, err); err != nil {
		return err
	}
	err = f(hin, hout)
	if err == nil && !out.Device().IsHost() {
		err = backend.CopyFromHostSlice(out, hout)
	}
	return mpi.Agree(c, err)
}

// piece is a box of ext elements copied from global index src of the
// input to global index dst of the output.
type piece struct{ src, dst, ext []int }

// rollPieces returns the pieces of the output box (oStart, oShape) that
// come from the input box (iStart, iShape) under the roll by shifts of an
// array of shape: along each axis the output range splits into at most
// two ranges whose sources do not wrap, and each source range is cut to
// the input box. The order is a function of the two boxes alone, so that
// the sender and the receiver of a piece list it at the same place.
func rollPieces(oStart, oShape, iStart, iShape, shifts, shape []int) []piece {
	nd := len(shape)
	type rng struct{ src, dst, n int }
	per := make([][]rng, nd)
	for k := 0; k < nd; k++ {
		lo, hi, s, n := oStart[k], oStart[k]+oShape[k], shifts[k], shape[k]
		ilo, ihi := iStart[k], iStart[k]+iShape[k]
		// Output [lo, min(hi, s)) comes from [lo-s+n, ...); output
		// [max(lo, s), hi) from [.. - s).
		for _, part := range [2][3]int{{lo, min(hi, s), n - s}, {max(lo, s), hi, -s}} {
			a, b, off := part[0], part[1], part[2]
			if a >= b {
				continue
			}
			sa, sb := max(a+off, ilo), min(b+off, ihi)
			if sa >= sb {
				continue
			}
			per[k] = append(per[k], rng{sa, sa - off, sb - sa})
		}
		if len(per[k]) == 0 {
			return nil
		}
	}
	var out []piece
	idx := make([]int, nd)
	for {
		p := piece{src: make([]int, nd), dst: make([]int, nd), ext: make([]int, nd)}
		for k := 0; k < nd; k++ {
			r := per[k][idx[k]]
			p.src[k], p.dst[k], p.ext[k] = r.src, r.dst, r.n
		}
		out = append(out, p)
		k := nd - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < len(per[k]) {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return out
		}
	}
}

// forRuns calls f(srcOff, dstOff, n) for the contiguous runs of a box of
// extent ext copied from (row-major) block sShape at sStart to block
// dShape at dStart, the starts relative to the blocks.
func forRuns(ext, sShape, sStart, dShape, dStart []int, f func(so, do, n int)) {
	nd := len(ext)
	for _, e := range ext {
		if e == 0 {
			return
		}
	}
	// The innermost axes that the box spans whole in both blocks merge
	// into one run with the first axis that it does not.
	k := nd - 1
	run := ext[k]
	for k > 0 && ext[k] == sShape[k] && ext[k] == dShape[k] {
		k--
		run *= ext[k]
	}
	ss, ds := strides(sShape), strides(dShape)
	so0, do0 := 0, 0
	for j := 0; j < nd; j++ {
		so0 += sStart[j] * ss[j]
		do0 += dStart[j] * ds[j]
	}
	idx := make([]int, k)
	for {
		so, do := so0, do0
		for j := 0; j < k; j++ {
			so += idx[j] * ss[j]
			do += idx[j] * ds[j]
		}
		f(so, do, run)
		j := k - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < ext[j] {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

func strides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for k := len(shape) - 1; k >= 0; k-- {
		s[k] = acc
		acc *= shape[k]
	}
	return s
}

func sub(a, b []int) []int {
	out := make([]int, len(a))
	for k := range a {
		out[k] = a[k] - b[k]
	}
	return out
}

func prodInts(s []int) int {
	n := 1
	for _, v := range s {
		n *= v
	}
	return n
}
