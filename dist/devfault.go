package dist

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Device faults in collectives.
//
// A device reports a fault late (backend.ErrDevice): at the next call
// that waits for it, as an error, or as a panic whose value is the error
// where the call returns none. A collective whose local step runs on the
// device must not let one rank panic, or return, while the others wait for
// it in MPI. So:
//
//   - the local step of a collective runs under localStep, which turns a
//     device panic into an error; before device data go to MPI, the device
//     is synchronized (deviceSync), which takes the fault still kept on it;
//   - the ranks agree on the outcome before they communicate the data:
//     in the message that agrees on the result where the operation has one
//     whose content it controls (a failure count beside Sum's value, a
//     flag beside Histogram's counts, an index no rank can have beside
//     Argmax's), otherwise in one small allreduce of two counts
//     (agreeStep), or in the mpi.Agree the operation already makes (an
//     allocation's), where backend.ErrDevice is a registered error kind;
//   - a device fault that appears after the ranks exchanged their data
//     (the copy of what MPI received to the device) is recorded
//     (exchanged); MatMul's ring and SUMMA go on past a fault that their
//     own products raise, taking part from host memory, and record it;
//   - an exchange that must not add a message (the ghost exchange, every
//     iteration of a solver) records the fault instead (recordFault), goes
//     on with what it has, and returns no error: the next call that agrees
//     (Sum, Dot, Norm, Max, Gather, ...) takes the recorded fault
//     (takeFault) and returns it on every rank.
//
// A device fault is thus recorded and returned at the next call that
// communicates an agreement or reads back, on every rank, as an error
// wrapping backend.ErrDevice. Elementwise operations do not check: they
// queue work and stay cheap.

// pendingFault is the device fault recorded on this process (this rank)
// by a call that could not report it on every rank (the ghost exchange),
// for the next call that agrees; nil for none.
var pendingFault atomic.Pointer[error]

// recordFault keeps err, a device fault that the caller cannot report on
// every rank, for the next call that agrees; the first fault recorded
// stays until it is reported.
func recordFault(err error) {
	pendingFault.CompareAndSwap(nil, &err)
}

// takeFault returns err together with the recorded device fault, if any,
// and forgets the recorded one: for a call about to agree with the other
// ranks on its outcome. Without a recorded fault it costs one atomic
// load.
func takeFault(err error) error {
	if pendingFault.Load() == nil {
		return err
	}
	p := pendingFault.Swap(nil)
	switch {
	case p == nil:
		return err
	case err == nil:
		return *p
	}
	return errors.Join(*p, err)
}

// isDeviceFault reports whether err is a failure of a device.
func isDeviceFault(err error) bool { return errors.Is(err, backend.ErrDevice) }

// localStep runs f, a local step of a collective on the device, and
// returns the device failure it panicked with (an error wrapping
// backend.ErrDevice) as an error. Any other panic goes on.
func localStep(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok || !isDeviceFault(e) {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// stickyStep runs f as localStep does, in a call that does not
// communicate afterwards: a device failure is recorded (recordFault) for
// the next call that agrees, and the call goes on.
func stickyStep(f func()) {
	if err := localStep(f); err != nil {
		recordFault(err)
	}
}

// localValue runs f, the local step of a reduction, and returns the
// device failure that it panicked with (an error wrapping
// backend.ErrDevice: a device reports a fault at the next call that
// returns a value) as an error. Any other panic goes on.
func localValue(f func() backend.Scalar) (s backend.Scalar, err error) {
	err = localStep(func() { s = f() })
	return s, err
}

// deviceSync waits for the work queued on the device of a, when it is on
// one, and returns the fault the device kept: before a's memory goes to
// MPI (package staging would report the fault on this rank alone).
func deviceSync[T backend.Numeric](a *backend.Array[T]) error {
	if a == nil || a.Device().IsHost() {
		return nil
	}
	return a.Backend().Synchronize()
}

// failFlag returns the failure counts a rank contributes for err, its
// local step's outcome: (1, 0) for a device fault, (0, 1) for another
// failure, (0, 0) for none.
func failFlag(err error) (dev, other int64) {
	switch {
	case err == nil:
		return 0, 0
	case isDeviceFault(err):
		return 1, 0
	}
	return 0, 1
}

// failCode is failFlag's outcome as one number, for a gather that carries
// it beside a rank's values: 0 for no failure, 1 for a device fault, 2
// for another failure.
func failCode(err error) int64 {
	dev, other := failFlag(err)
	return dev + 2*other
}

// addFailCode adds the failure a rank's failCode says to the counts of
// device faults and other failures.
func addFailCode(dev, other, code int64) (int64, int64) {
	return dev + code%2, other + code/2
}

// agreedFailure is the error of op once the ranks know that dev ranks
// failed on their devices and other ranks otherwise; own is this rank's
// failure, or nil. It returns nil if no rank failed.
func agreedFailure(op string, own error, dev, other int64) error {
	switch {
	case own != nil:
		return fmt.Errorf("dist.%s: %w", op, own)
	case dev > 0:
		return deviceFailure(op, nil, int(dev))
	case other > 0:
		return fmt.Errorf("dist.%s: the local step failed on %d other rank(s)", op, other)
	}
	return nil
}

// agreeStep agrees on the outcome of the local step of op before the ranks
// of c communicate its data: err is this rank's failure (nil for none),
// joined with the recorded device fault. Every rank returns nil if no rank
// failed, and an error otherwise (wrapping backend.ErrDevice where a
// device failed): one allreduce of two counts. It is for operations that
// have no agreement message of their own to carry a flag.
func agreeStep(c mpi.Comm, op string, err error) error {
	err = takeFault(err)
	dev, other := failFlag(err)
	n := [2]int64{dev, other}
	if aerr := mpi.AllreduceInPlace(c, n[:], mpi.Sum); aerr != nil {
		return aerr
	}
	return agreedFailure(op, err, n[0], n[1])
}

// deviceFailure is the error of a reduction op that failed on the devices
// of failed ranks: own is this rank's failure, or nil where another rank
// failed.
func deviceFailure(op string, own error, failed int) error {
	if own != nil {
		return fmt.Errorf("dist.%s: %w", op, own)
	}
	return fmt.Errorf("dist.%s: a device failed on %d other rank(s): %w", op, failed, backend.ErrDevice)
}

// capableBlock returns x on a backend with capability C (an optional
// interface of package backend, such as backend.AxisReducer): x itself
// where its backend is a C, or else a host copy of x (recorded as a
// transfer by backend.ToHost; none for an empty x) with the CPU backend.
// A complex x counts as one the backend cannot serve unless the backend
// is also a backend.ComplexKernels.
func capableBlock[C any, T backend.Numeric](x *backend.Array[T]) (*backend.Array[T], C, error) {
	if r, ok := x.Backend().(C); ok && complexKernels[T](x.Backend()) {
		return x, r, nil
	}
	h := backend.Wrap([]T{})
	if x.Len() > 0 {
		var err error
		if h, err = backend.ToHost(x); err != nil {
			var zero C
			return nil, zero, err
		}
	}
	return h, h.Backend().(C), nil
}

// combineStep runs step, the local step of op whose results the ranks of
// c combine next from device array a when comb is true: step's device
// failure, or the fault a synchronization of a's device reports, is agreed
// on (agreeStep) before a goes to MPI, and every rank returns the error if
// a rank failed. When comb is false nothing is communicated: a device
// failure of step is recorded for the next call that agrees
// (stickyStep), and combineStep returns nil.
func combineStep[A backend.Numeric](c mpi.Comm, comb bool, op string, step func(), a *backend.Array[A]) error {
	if !comb {
		stickyStep(step)
		return nil
	}
	err := localStep(step)
	if err == nil {
		err = deviceSync(a)
	}
	return agreeStep(c, op, err)
}

// blockFailed is the error of op on a rank whose block could not be made
// ready for the local step (err: a host copy that failed, say): where the
// ranks combine their results next (comb), it joins their agreement
// (agreeStep) so that none waits for this rank, and is returned on
// every rank.
func blockFailed(c mpi.Comm, comb bool, op string, err error) error {
	if !comb {
		return err
	}
	return agreeStep(c, op, err)
}

// allreduceCount sums v over c in one allreduce together with the ranks'
// failure counts: err is this rank's failure in the local step before it
// (nil for none). Every rank returns the sum, or, if a rank failed, an
// error naming op (wrapping backend.ErrDevice where a device failed).
func allreduceCount(c mpi.Comm, op string, v int64, err error) (int64, error) {
	dev, other := failFlag(err)
	if err != nil {
		v = 0
	}
	n := [3]int64{v, dev, other}
	if aerr := mpi.AllreduceInPlace(c, n[:], mpi.Sum); aerr != nil {
		return 0, aerr
	}
	if ferr := agreedFailure(op, err, n[1], n[2]); ferr != nil {
		return 0, ferr
	}
	return n[0], nil
}

func init() {
	// A device fault keeps its identity through mpi.Agree on every rank:
	// an operation whose ranks agree on a local step with mpi.Agree (an
	// allocation, a copy of a block to the host before a file write)
	// returns an error wrapping backend.ErrDevice on every rank where one
	// rank's device failed.
	mpi.RegisterErrorKind("device", backend.ErrDevice)
}

// agreeBlocks is agreeStep for an operation of c whose device blocks go
// to MPI next: err is this rank's failure so far (an allocation, a local
// step), and, where it is nil, a synchronization of the devices of the
// blocks takes the fault a device kept. Every rank returns nil if no
// rank failed, and an error otherwise (wrapping backend.ErrDevice where a
// device failed): one allreduce of two counts. Host blocks (or nil ones)
// are not synchronized.
func agreeBlocks[T backend.Numeric](c mpi.Comm, op string, err error, blocks ...*backend.Array[T]) error {
	for _, b := range blocks {
		if err != nil {
			break
		}
		err = deviceSync(b)
	}
	return agreeStep(c, op, err)
}

// onDevice reports whether a block lives on a device (not the host). The
// ranks of an array's communicator agree on it: the backend is the same
// option on every rank.
func onDevice[T backend.Numeric](a *backend.Array[T]) bool { return a != nil && !a.Device().IsHost() }

// exchanged is the outcome of a step after the ranks exchanged their data
// (the copy of what MPI received to the device, an unpacking kernel): a
// device fault there is on this rank alone, after the others have left
// the exchange, so it is recorded (recordFault) for the next call that
// agrees, which returns it on every rank, and exchanged returns nil.
// Another failure is returned as it is.
func exchanged(err error) error {
	if err != nil && isDeviceFault(err) {
		recordFault(err)
		return nil
	}
	return err
}
