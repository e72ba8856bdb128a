package cuda

import (
	_ "embed"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/driver"
	"github.com/xpmpi/xpmpi/rng"
)

// The CUDA backend fills buffers with package rng's random numbers on its
// device, as a driver.RandomFiller, with the kernels of random.cu over
// rng's philox.cuh: uniform deviates and integers are rng's bit for bit,
// normal deviates agree with rng's to the accuracy of the device's log,
// sqrt and cos (about 1e-14 relative; float32 normals are that value
// rounded to float32).
var _ driver.RandomFiller = (*Backend)(nil)

// randomSource is rng's philox.cuh followed by random.cu, which
// KernelSource appends after convert.cu.
//
//go:embed random.cu
var randomCU string

var randomSource = rng.CUDAHeader + randomCU

// randomEntries returns the names of the entries of random.cu.
func randomEntries() []string {
	var out []string
	for dt := backend.DType(0); int(dt) < len(typeSuffix); dt++ {
		if dt.IsFloat() {
			out = append(out, kernelName("randf", dt))
		} else {
			out = append(out, kernelName("randi", dt))
		}
	}
	return out
}

// FillRandom sets runs runs of n elements of dst to rng's fill f of the
// global elements first + r*stride + j, on the device: one kernel, one
// thread per element.
func (b *Backend) FillRandom(dst driver.Buffer, f driver.RandomFill, runs, n int, first, stride uint64) {
	d := b.buf("FillRandom", dst)
	driver.CheckRandom(dst, f, runs, n)
	total := runs * n
	if total == 0 {
		return
	}
	args := (&Args{}).Int64(int64(total)).Int64(int64(n)).Buffer(dst).Uint64(f.Seed).Uint64(f.Draw).Uint64(first).Uint64(stride)
	if f.Kind == driver.RandomInts {
		b.launch("FillRandom", kernelName("randi", d.DT), elemGrid(total), Dim3{X: blockSize}, args.Uint64(f.Lo).Uint64(f.Span))
		return
	}
	b.launch("FillRandom", kernelName("randf", d.DT), elemGrid(total), Dim3{X: blockSize}, args.Int32(flag(f.Kind == driver.RandomNormal)))
}
