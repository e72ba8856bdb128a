package mpi

import (
	"unsafe"

	"github.com/xpmpi/xpmpi/profiling"
)

// checked wraps a communicator so that every collective call goes through
// CheckCollective first (one atomic load and a branch when neither checking
// nor a watchdog is on, before any argument is built) and records its exit for the watchdog, and so that every call counts
// for the profiling package's traffic counters (a branch when none is
// active). Init wraps the world with it.
type checked struct {
	Comm
	fast valueReducer // Comm's scalar fast path, or nil
}

// wrap returns c wrapped for checking (nil stays nil).
func wrap(c Comm) Comm {
	if c == nil {
		return nil
	}
	if _, ok := c.(*checked); ok {
		return c
	}
	w := &checked{Comm: c}
	w.fast, _ = c.(valueReducer)
	return w
}

// unwrap returns the communicator under the checking wrapper.
func unwrap(c Comm) Comm {
	if w, ok := c.(*checked); ok {
		return w.Comm
	}
	return c
}

func dtArg(dt Datatype) Arg { return Arg{Name: "datatype", Value: int64(dt), Text: dt.String()} }
func rootArg(r int) Arg     { return Arg{Name: "root", Value: int64(r)} }
func countArg(n int) Arg    { return Arg{Name: "count", Value: int64(n)} }

func (w *checked) Barrier() error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Barrier"); err != nil {
			return err
		}
		defer leave()
	}
	return w.Comm.Barrier()
}

func (w *checked) Bcast(buf unsafe.Pointer, count int, dt Datatype, root int) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Bcast", dtArg(dt), countArg(count), rootArg(root)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Bcast", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Bcast(buf, count, dt, root)
}

func (w *checked) Reduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op, root int) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Reduce", dtArg(dt), countArg(count), Arg{Name: "op", Value: int64(op), Text: op.String()}, rootArg(root)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Reduce", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Reduce(send, recv, count, dt, op, root)
}

func (w *checked) Allreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Allreduce", dtArg(dt), countArg(count), Arg{Name: "op", Value: int64(op), Text: op.String()}); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Allreduce", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Allreduce(send, recv, count, dt, op)
}

func (w *checked) Gather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Gather", dtArg(dt), countArg(count), rootArg(root)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Gather", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Gather(send, count, recv, dt, root)
}

func (w *checked) Gatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype, root int) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Gatherv", dtArg(dt), rootArg(root)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Gatherv", profiling.Collective, int64(scount*dt.Size()))
	return w.Comm.Gatherv(send, scount, recv, counts, displs, dt, root)
}

func (w *checked) Allgather(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Allgather", dtArg(dt), countArg(count)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Allgather", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Allgather(send, count, recv, dt)
}

func (w *checked) Allgatherv(send unsafe.Pointer, scount int, recv unsafe.Pointer, counts, displs []int, dt Datatype) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Allgatherv", dtArg(dt)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Allgatherv", profiling.Collective, int64(scount*dt.Size()))
	return w.Comm.Allgatherv(send, scount, recv, counts, displs, dt)
}

func (w *checked) Scatter(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype, root int) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Scatter", dtArg(dt), countArg(count), rootArg(root)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Scatter", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Scatter(send, count, recv, dt, root)
}

func (w *checked) Scatterv(send unsafe.Pointer, counts, displs []int, recv unsafe.Pointer, rcount int, dt Datatype, root int) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Scatterv", dtArg(dt), rootArg(root)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Scatterv", profiling.Collective, int64(rcount*dt.Size()))
	return w.Comm.Scatterv(send, counts, displs, recv, rcount, dt, root)
}

func (w *checked) Alltoall(send unsafe.Pointer, count int, recv unsafe.Pointer, dt Datatype) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Alltoall", dtArg(dt), countArg(count)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Alltoall", profiling.Collective, int64(w.Size()*count*dt.Size()))
	return w.Comm.Alltoall(send, count, recv, dt)
}

func (w *checked) Alltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Alltoallv", dtArg(dt)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Alltoallv", profiling.Collective, int64(sum(scounts)*dt.Size()))
	return w.Comm.Alltoallv(send, scounts, sdispls, recv, rcounts, rdispls, dt)
}

func opArg(op Op) Arg { return Arg{Name: "op", Value: int64(op), Text: op.String()} }

func (w *checked) Scan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Scan", dtArg(dt), countArg(count), opArg(op)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Scan", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Scan(send, recv, count, dt, op)
}

func (w *checked) Exscan(send, recv unsafe.Pointer, count int, dt Datatype, op Op) error {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Exscan", dtArg(dt), countArg(count), opArg(op)); err != nil {
			return err
		}
		defer leave()
	}
	profiling.RecordMessage("Exscan", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Exscan(send, recv, count, dt, op)
}

// The non-blocking collectives are checked when they start: that is where
// every rank must make the same call. Between start and completion the
// rank computes, so the watchdog does not count it as in the collective.

func (w *checked) Iallreduce(send, recv unsafe.Pointer, count int, dt Datatype, op Op) (Request, error) {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Iallreduce", dtArg(dt), countArg(count), opArg(op)); err != nil {
			return nil, err
		}
		defer leave()
	}
	profiling.RecordMessage("Iallreduce", profiling.Collective, int64(count*dt.Size()))
	return w.Comm.Iallreduce(send, recv, count, dt, op)
}

func (w *checked) Ialltoallv(send unsafe.Pointer, scounts, sdispls []int, recv unsafe.Pointer, rcounts, rdispls []int, dt Datatype) (Request, error) {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Ialltoallv", dtArg(dt)); err != nil {
			return nil, err
		}
		defer leave()
	}
	profiling.RecordMessage("Ialltoallv", profiling.Collective, int64(sum(scounts)*dt.Size()))
	return w.Comm.Ialltoallv(send, scounts, sdispls, recv, rcounts, rdispls, dt)
}

func (w *checked) Split(color, key int) (Comm, error) {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Split"); err != nil {
			return nil, err
		}
		defer leave()
	}
	c, err := w.Comm.Split(color, key)
	return wrap(c), err
}

func (w *checked) SplitShared() (Comm, error) {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "SplitShared"); err != nil {
			return nil, err
		}
		defer leave()
	}
	c, err := w.Comm.SplitShared()
	return wrap(c), err
}

func sum(s []int) int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

// The point-to-point calls are recorded for the traffic counters.

func (w *checked) Send(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) error {
	profiling.RecordMessage("Send", dest, int64(count*dt.Size()))
	return w.Comm.Send(buf, count, dt, dest, tag)
}

func (w *checked) Recv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Status, error) {
	st, err := w.Comm.Recv(buf, count, dt, src, tag)
	if err == nil {
		profiling.RecordMessage("Recv", st.Source, int64(st.Count*dt.Size()))
	}
	return st, err
}

func (w *checked) Sendrecv(send unsafe.Pointer, scount int, dest, stag int, recv unsafe.Pointer, rcount int, src, rtag int, dt Datatype) (Status, error) {
	profiling.RecordMessage("Send", dest, int64(scount*dt.Size()))
	st, err := w.Comm.Sendrecv(send, scount, dest, stag, recv, rcount, src, rtag, dt)
	if err == nil {
		profiling.RecordMessage("Recv", st.Source, int64(st.Count*dt.Size()))
	}
	return st, err
}

func (w *checked) Isend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int) (Request, error) {
	profiling.RecordMessage("Isend", dest, int64(count*dt.Size()))
	return w.Comm.Isend(buf, count, dt, dest, tag)
}

func (w *checked) Irecv(buf unsafe.Pointer, count int, dt Datatype, src, tag int) (Request, error) {
	profiling.RecordMessage("Irecv", src, int64(count*dt.Size()))
	return w.Comm.Irecv(buf, count, dt, src, tag)
}

// allreduceValue is the scalar fast path of AllreduceValue.
func (w *checked) allreduceValue(bits uint64, dt Datatype, op Op) (uint64, error) {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Allreduce", dtArg(dt), countArg(1), opArg(op)); err != nil {
			return 0, err
		}
		defer leave()
	}
	profiling.RecordMessage("Allreduce", profiling.Collective, int64(dt.Size()))
	if w.fast != nil {
		return w.fast.allreduceValue(bits, dt, op)
	}
	return allreduceBits(w.Comm, bits, dt, op)
}

// reduceValue is the scalar fast path of ReduceValue.
func (w *checked) reduceValue(bits uint64, dt Datatype, op Op, root int) (uint64, error) {
	if mode.Load() != 0 {
		if err := CheckCollective(w.Comm, "Reduce", dtArg(dt), countArg(1), opArg(op), rootArg(root)); err != nil {
			return 0, err
		}
		defer leave()
	}
	profiling.RecordMessage("Reduce", profiling.Collective, int64(dt.Size()))
	if w.fast != nil {
		return w.fast.reduceValue(bits, dt, op, root)
	}
	return reduceBits(w.Comm, bits, dt, op, root)
}
