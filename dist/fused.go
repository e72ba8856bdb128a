package dist

import (
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels/fuse"
	"github.com/xpmpi/xpmpi/mpi"
)

// fusedArg is what RunFused needs of a *Array[T] of any element type.
type fusedArg interface {
	fusedBlock() any // the block, a *backend.Array[T]; nil for a nil array
	isFreed() bool
	Layout() Layout
	Comm() mpi.Comm
	Device() backend.Device
}

func (a *Array[T]) fusedBlock() any {
	if a == nil {
		return nil
	}
	return a.local
}

func (a *Array[T]) isFreed() bool { return a.freed }

// FusedResult holds the results of the reductions of a RunFused, combined
// over the ranks: the same values on every rank.
type FusedResult struct {
	names []string
	vals  []backend.Scalar
}

// Scalar returns the result of the reduction called name, of the type
// that fuse's Result.Scalar gives it: a Float64 for float sums and dots,
// an Int64 or Uint64 for integer ones, the operand's type for ReduceMax and
// ReduceMin. It panics if the kernel has no such reduction. It is not
// collective.
func (r FusedResult) Scalar(name string) backend.Scalar {
	for i, n := range r.names {
		if n == name {
			return r.vals[i]
		}
	}
	panic(fmt.Sprintf("dist: no reduction called %q", name))
}

// Float64 returns the result of the reduction called name converted to
// float64. It panics if the kernel has no such reduction. It is not
// collective.
func (r FusedResult) Float64(name string) float64 { return r.Scalar(name).Float64() }

// RunFused runs the fused kernel k (package kernels/fuse) on every rank's
// blocks of the distributed arrays of args, and combines its reductions
// over the ranks. It is collective.
//
// args are k's arguments by name, as for Kernel.Run, except that the
// arrays (k's Vars and outputs) are *Array[T], each of its Var's element
// type: all of one layout and one communicator, with their blocks on one
// device. Params are values T or pointers *T, as Kernel.Run takes them;
// entries that k does not use are ignored. Each rank runs k on its blocks
// where they live: on the CPU, in place on the fake device, and on a CUDA
// device as one generated kernel through the launcher that
// fuse.SetCUDALauncher set (package kernels/fuse/fusecuda ships one), so
// that, unlike Map, it copies nothing between host and device. Outputs are
// written into their arrays' blocks; an output may be one of the Vars
// (y = a*x + y), as fuse's aliasing rules allow. An argument that is
// missing or is not a *Array, and arrays of different layouts,
// communicators or devices panic with a message that names the argument;
// an array of the wrong element type and the failures of Kernel.Run are
// errors.
//
// Every rank gets the same results, combined from the ranks' own (each the
// result of k over the rank's block, in fuse's summation order on the CPU
// and the fake device, in its CUDA kernels' order on a CUDA device). Sums
// and dots of floats are float64 values added by an MPI allreduce
// (MPI_SUM), as Sum and Dot add their ranks' partial sums: the same bits
// on every run at a given rank count and MPI library, but not across rank
// counts, whose blocks, and so whose partial sums, differ (SumRepro and
// DotRepro give the same bits at any rank count). Integer sums wrap in 64
// bits: exact. Maxima and minima are exact: the largest or smallest of the
// ranks' results, of the operand's type, NaN if any is NaN; between ranks,
// -0 counts as smaller than +0 (within a block, fuse keeps the first of
// equal values). A rank whose block is empty contributes the reduction's
// identity: 0 to a sum, -Inf or +Inf to a float maximum or minimum, the
// type's smallest or largest integer to an integer one. An array with no
// elements at all therefore gives those identities, as Kernel.Run does on
// zero elements (where Max and Min return an error wrapping ErrEmpty
// instead). An array of layout Replicated is reduced on each rank alone.
//
// A failure of a rank's run of a kernel with reductions, on an array that
// is not Replicated, is returned on every rank as the same *mpi.RankError
// (as mpi.Agree returns it), and no rank is left waiting: the ranks'
// outcomes travel with their results, in at most three allreduces (of the
// float sums, of the integer sums, and of the maxima and minima as
// order-preserving integer keys), none at one rank. A kernel without
// reductions communicates nothing: a failure is returned on the rank where
// it happened, as the elementwise functions do.
func RunFused(k *fuse.Kernel, args fuse.Args) (FusedResult, error) {
	if k == nil {
		panic("dist: RunFused of a nil kernel")
	}
	local := make(fuse.Args, len(args))
	for name, v := range args {
		local[name] = v // Params, and entries that k does not use
	}
	var first fusedArg
	var firstName string
	for _, name := range k.Vars() {
		v, ok := args[name]
		if !ok {
			panic(fmt.Sprintf("dist: RunFused: missing argument %q (a *dist.Array)", name))
		}
		a, ok := v.(fusedArg)
		if !ok {
			panic(fmt.Sprintf("dist: RunFused: argument %q is a %T, want a *dist.Array", name, v))
		}
		blk := a.fusedBlock()
		if blk == nil {
			panic(fmt.Sprintf("dist: RunFused: argument %q is a nil %T", name, v))
		}
		if a.isFreed() {
			return FusedResult{}, freedCollective("RunFused", a.Comm())
		}
		if first == nil {
			first, firstName = a, name
		} else {
			switch {
			case !a.Layout().Equal(first.Layout()):
				panic(fmt.Sprintf("dist: RunFused: argument %q has layout %v, %q has %v", name, a.Layout(), firstName, first.Layout()))
			case a.Comm() != first.Comm():
				panic(fmt.Sprintf("dist: RunFused: argument %q is on another communicator than %q", name, firstName))
			case a.Device() != first.Device():
				panic(fmt.Sprintf("dist: RunFused: argument %q is on %v, %q on %v: move one with ToDevice or ToHost", name, a.Device(), firstName, first.Device()))
			}
		}
		local[name] = blk
	}
	c, l := first.Comm(), first.Layout()
	names := k.Reductions()
	if err := mpi.CheckCollective(c, "RunFused",
		mpi.Arg{Name: "layout", Value: l.hash(), Text: l.String()},
		mpi.Arg{Name: "reductions", Value: int64(len(names))}); err != nil {
		return FusedResult{}, err
	}
	res, err := k.Run(local)
	out := FusedResult{names: names, vals: make([]backend.Scalar, len(names))}
	alone := len(names) == 0 || l.Axis() == Replicated
	if c.Size() == 1 && err != nil && !alone {
		return FusedResult{}, mpi.Agree(c, err) // as with more ranks
	}
	if alone || c.Size() == 1 {
		if err != nil {
			return FusedResult{}, err
		}
		for i, n := range names {
			out.vals[i] = res.Scalar(n)
		}
		return out, nil
	}
	return out, combineFused(c, k, res, err, out)
}

// combineFused combines the ranks' results res of k's reductions into
// out.vals, and the ranks' outcomes err: the float sums, the integer sums
// and the extrema each in one allreduce, the first of them carrying a
// count of the ranks that failed.
func combineFused(c mpi.Comm, k *fuse.Kernel, res fuse.Result, err error, out FusedResult) error {
	type slot struct {
		kind fuse.ReductionKind
		dt   backend.DType
		i    int // index in fsum, isum or ext
	}
	slots := make([]slot, len(out.names))
	var fsum []float64
	var isum, ext []uint64
	for r, n := range out.names {
		kind, dt := k.ReductionKind(n)
		var s backend.Scalar
		if err == nil {
			s = res.Scalar(n)
		}
		switch {
		case kind == fuse.KindSum && dt == backend.Float64:
			slots[r] = slot{kind, dt, len(fsum)}
			fsum = append(fsum, s.Float64()) // 0 where this rank failed
		case kind == fuse.KindSum:
			slots[r] = slot{kind, dt, len(isum)}
			isum = append(isum, s.Uint64())
		default:
			slots[r] = slot{kind, dt, len(ext)}
			if err != nil {
				ext = append(ext, 0) // the least key: no effect
			} else {
				ext = append(ext, extKey(kind, s))
			}
		}
	}
	// The first allreduce also counts the failed ranks, in one more
	// element at its end; the others are skipped where some rank failed.
	flag := 0
	if err != nil {
		flag = 1
	}
	carrier := 0
	switch {
	case len(fsum) > 0:
		fsum = append(fsum, float64(flag))
	case len(isum) > 0:
		isum, carrier = append(isum, uint64(flag)), 1
	default:
		ext, carrier = append(ext, uint64(flag)), 2
	}
	failed := 0
	var cerr error
	if len(fsum) > 0 {
		if fsum, cerr = allreduced(c, fsum, mpi.Sum); cerr != nil {
			return cerr
		}
		failed = int(fsum[len(fsum)-1])
	}
	if failed == 0 && len(isum) > 0 {
		if isum, cerr = allreduced(c, isum, mpi.Sum); cerr != nil {
			return cerr
		}
		if carrier == 1 {
			failed = int(isum[len(isum)-1])
		}
	}
	if failed == 0 && len(ext) > 0 {
		if ext, cerr = allreduced(c, ext, mpi.Max); cerr != nil {
			return cerr
		}
		if carrier == 2 {
			failed = int(ext[len(ext)-1])
		}
	}
	if failed != 0 {
		return mpi.Agree(c, err)
	}
	for r, s := range slots {
		switch {
		case s.kind == fuse.KindSum && s.dt == backend.Float64:
			out.vals[r] = backend.ScalarOf(fsum[s.i])
		case s.kind == fuse.KindSum && s.dt == backend.Int64:
			out.vals[r] = backend.ScalarOf(int64(isum[s.i]))
		case s.kind == fuse.KindSum:
			out.vals[r] = backend.ScalarOf(isum[s.i])
		default:
			out.vals[r] = extValue(s.kind, s.dt, ext[s.i])
		}
	}
	return nil
}

// allreduced returns the allreduce of send with op.
func allreduced[T mpi.Number](c mpi.Comm, send []T, op mpi.Op) ([]T, error) {
	recv := make([]T, len(send))
	err := mpi.Allreduce(c, send, recv, op)
	return recv, err
}

// extKey maps the result s of a maximum or a minimum to a key whose
// unsigned order is the combination's: the maximum of the ranks' keys is
// the key of their maximum (kind KindMax) or minimum (KindMin). Floats
// (float32 exactly as float64) map by their sign and magnitude, so that
// -0 is below +0, and a NaN to the largest key of all, above any other
// float's key of either kind; signed integers have their sign bit flipped.
// A minimum's key is the complement of its value's.
func extKey(kind fuse.ReductionKind, s backend.Scalar) uint64 {
	var key uint64
	switch dt := s.DType(); {
	case dt.IsFloat():
		f := s.Float64()
		if f != f {
			return math.MaxUint64
		}
		b := math.Float64bits(f)
		if b>>63 == 0 {
			key = b | 1<<63
		} else {
			key = ^b
		}
	case dt.IsSigned():
		key = uint64(s.Int64()) ^ 1<<63
	default:
		key = s.Uint64()
	}
	if kind == fuse.KindMin {
		key = ^key
	}
	return key
}

// extValue is the value of type dt whose key (extKey) is key.
func extValue(kind fuse.ReductionKind, dt backend.DType, key uint64) backend.Scalar {
	if dt.IsFloat() && key == math.MaxUint64 {
		if dt == backend.Float32 {
			return backend.ScalarOf(float32(math.NaN()))
		}
		return backend.ScalarOf(math.NaN())
	}
	if kind == fuse.KindMin {
		key = ^key
	}
	switch {
	case dt.IsFloat():
		b := ^key
		if key>>63 == 1 {
			b = key &^ (1 << 63)
		}
		f := math.Float64frombits(b)
		if dt == backend.Float32 {
			return backend.ScalarOf(float32(f))
		}
		return backend.ScalarOf(f)
	case dt == backend.Int32:
		return backend.ScalarOf(int32(int64(key ^ 1<<63)))
	case dt.IsSigned():
		return backend.ScalarOf(int64(key ^ 1<<63))
	case dt == backend.Uint32:
		return backend.ScalarOf(uint32(key))
	}
	return backend.ScalarOf(key)
}
