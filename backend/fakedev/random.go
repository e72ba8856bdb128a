package fakedev

import (
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/rng"
)

// The fake device fills buffers with package rng's random numbers on the
// device, as a driver.RandomFiller, with rng's own Fill functions on its
// memory: every kind, normal deviates included, is the host's bit for bit.
var _ driver.RandomFiller = (*Backend)(nil)

// FillRandom sets runs runs of n elements of dst to rng's fill f of the
// global elements first + r*stride + j, on the device.
func (b *Backend) FillRandom(dst driver.Buffer, f driver.RandomFill, runs, n int, first, stride uint64) {
	d := b.buf("FillRandom", dst)
	driver.CheckRandom(dst, f, runs, n)
	h := host(d)
	b.kernel(func() {
		for r := 0; r < runs; r++ {
			g := first + uint64(r)*stride
			lo, hi := r*n, (r+1)*n
			switch d.DT {
			case backend.Float32:
				fillFloat(driver.HostSlice[float32](h)[lo:hi], f, g)
			case backend.Float64:
				fillFloat(driver.HostSlice[float64](h)[lo:hi], f, g)
			case backend.Int32:
				fillInts(driver.HostSlice[int32](h)[lo:hi], f, g)
			case backend.Int64:
				fillInts(driver.HostSlice[int64](h)[lo:hi], f, g)
			case backend.Uint32:
				fillInts(driver.HostSlice[uint32](h)[lo:hi], f, g)
			case backend.Uint64:
				fillInts(driver.HostSlice[uint64](h)[lo:hi], f, g)
			case backend.Int8:
				fillInts(driver.HostSlice[int8](h)[lo:hi], f, g)
			case backend.Int16:
				fillInts(driver.HostSlice[int16](h)[lo:hi], f, g)
			case backend.Uint8:
				fillInts(driver.HostSlice[uint8](h)[lo:hi], f, g)
			case backend.Uint16:
				fillInts(driver.HostSlice[uint16](h)[lo:hi], f, g)
			}
		}
	})
}

// fillFloat fills dst with rng's uniform or normal deviates from global
// index first.
func fillFloat[T float32 | float64](dst []T, f driver.RandomFill, first uint64) {
	if f.Kind == driver.RandomNormal {
		rng.FillNormal(dst, f.Seed, first, f.Draw)
	} else {
		rng.FillUniform(dst, f.Seed, first, f.Draw)
	}
}

// fillInts fills dst with rng's uniform integers in [Lo, Lo+Span) from
// global index first, as rng.FillUniformInts computes them.
func fillInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](dst []T, f driver.RandomFill, first uint64) {
	for i := range dst {
		dst[i] = T(f.Lo + rng.IntN(f.Seed, first+uint64(i), f.Draw, f.Span))
	}
}
