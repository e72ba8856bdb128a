package mpi_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// refReduce is what op over the values v(0), ..., v(p-1) gives in Go:
// Go's integer arithmetic wraps as MPI's (and the binding's own 8- and
// 16-bit operations) does.
func refReduce[T ordered](op mpi.Op, p int, v func(r int) T) T {
	acc := v(0)
	for r := 1; r < p; r++ {
		x := v(r)
		switch op {
		case mpi.Sum:
			acc += x
		case mpi.Prod:
			acc *= x
		case mpi.Min:
			acc = min(acc, x)
		case mpi.Max:
			acc = max(acc, x)
		}
	}
	return acc
}

// testValues checks AllreduceValue and ReduceValue (every root) of T with
// every arithmetic operation against refReduce, with values that differ by
// rank, are negative on some ranks for the signed types, and wrap for the
// small ones.
func testValues[T ordered](t *testing.T, c mpi.Comm) {
	p, me := c.Size(), c.Rank()
	v := func(r int) T { return T(r*37) - T(3) + T(r%2)*T(100) }
	for _, op := range []mpi.Op{mpi.Sum, mpi.Prod, mpi.Min, mpi.Max} {
		want := refReduce(op, p, v)
		got, err := mpi.AllreduceValue(c, v(me), op)
		mpitest.Check(t, c, err == nil && got == want, "AllreduceValue(%v, %v) = %v, %v, want %v", v(me), op, got, err, want)
		for root := 0; root < p; root++ {
			got, err := mpi.ReduceValue(c, v(me), op, root)
			w := want
			if me != root {
				w = 0
			}
			mpitest.Check(t, c, err == nil && got == w, "ReduceValue(%v, %v, root %d) = %v, %v, want %v", v(me), op, root, got, err, w)
		}
	}
}

func TestReduceValue(t *testing.T) {
	c := mpitest.World(t)
	t.Run("float32", func(t *testing.T) { testValues[float32](t, c) })
	t.Run("float64", func(t *testing.T) { testValues[float64](t, c) })
	t.Run("int32", func(t *testing.T) { testValues[int32](t, c) })
	t.Run("int64", func(t *testing.T) { testValues[int64](t, c) })
	t.Run("uint32", func(t *testing.T) { testValues[uint32](t, c) })
	t.Run("uint64", func(t *testing.T) { testValues[uint64](t, c) })
	t.Run("int8", func(t *testing.T) { testValues[int8](t, c) })
	t.Run("int16", func(t *testing.T) { testValues[int16](t, c) })
	t.Run("uint8", func(t *testing.T) { testValues[uint8](t, c) })
	t.Run("uint16", func(t *testing.T) { testValues[uint16](t, c) })
	t.Run("named", func(t *testing.T) {
		type meters float64
		testValues[meters](t, c)
	})
	t.Run("complex128", func(t *testing.T) {
		// 16 bytes: the slice path. (1+i)^p and the sum of rank+i.
		p, me := c.Size(), c.Rank()
		want := complex(0, 0)
		for r := 0; r < p; r++ {
			want += complex(float64(r), 1)
		}
		for root := 0; root < p; root++ {
			got, err := mpi.ReduceValue(c, complex(float64(me), 1), mpi.Sum, root)
			w := want
			if me != root {
				w = 0
			}
			mpitest.Check(t, c, err == nil && got == w, "ReduceValue(complex128, root %d) = %v, %v, want %v", root, got, err, w)
		}
	})
	t.Run("LogicalOpOnFloatPanics", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("no panic")
			}
		}()
		mpi.ReduceValue(c, 1.0, mpi.LAnd, 0)
	})
}

// TestConcurrentCalls has several goroutines call MPI at once, each on a
// communicator of its own (two goroutines may not share one for
// collectives): allreduces, reductions to a rotating root, and a ring
// exchange by Sendrecv and by Isend/Irecv, with values that name the
// goroutine, the iteration and the rank, so that a message delivered to
// the wrong goroutine or a result mixed between calls is caught. At
// MPI_THREAD_MULTIPLE the calls run in MPI side by side. Under the library
// lock (MPI_THREAD_SERIALIZED) only the non-blocking exchange runs: a
// blocking call holds the lock until its partners arrive, and goroutine 0
// of rank 0 holding it while goroutine 1 of rank 1 holds rank 1's would
// wait forever (as the package documentation says).
func TestConcurrentCalls(t *testing.T) {
	c := mpitest.World(t)
	me := c.Rank()
	blocking := lockFree()
	const workers = 4
	iters := 200
	if testing.Short() {
		iters = 20
	}
	comms := make([]mpi.Comm, workers)
	for g := range comms {
		d, err := c.Split(0, me)
		if err != nil {
			t.Fatal(err)
		}
		comms[g] = d
		defer d.Free()
	}
	errs := make(chan string, workers)
	for g := 0; g < workers; g++ {
		go func(g int, d mpi.Comm) {
			for k := 0; k < iters; k++ {
				if blocking {
					if msg := blockingCalls(d, g, k); msg != "" {
						errs <- msg
						return
					}
				}
				if msg := nonBlockingCalls(d, g, k); msg != "" {
					errs <- msg
					return
				}
			}
			errs <- ""
		}(g, comms[g])
	}
	var msgs []string
	for g := 0; g < workers; g++ {
		if m := <-errs; m != "" {
			msgs = append(msgs, m)
		}
	}
	mpitest.Check(t, c, len(msgs) == 0, "%v", msgs)
}

// concValue is goroutine g's value at iteration k on rank r.
func concValue(g, k, r int) int64 { return int64(g*1_000_000 + k*1000 + r) }

// blockingCalls is one iteration of goroutine g's blocking calls on d; it
// returns what went wrong, or "".
func blockingCalls(d mpi.Comm, g, k int) string {
	p, me := d.Size(), d.Rank()
	next, prev := (me+1)%p, (me+p-1)%p
	v := concValue(g, k, me)
	sum, err := mpi.AllreduceValue(d, v, mpi.Sum)
	want := int64(p*(g*1_000_000+k*1000) + p*(p-1)/2)
	if err != nil || sum != want {
		return fmt.Sprintf("goroutine %d, iteration %d: AllreduceValue = %d, %v, want %d", g, k, sum, err, want)
	}
	root := k % p
	got, err := mpi.ReduceValue(d, v, mpi.Max, root)
	want = concValue(g, k, p-1)
	if me != root {
		want = 0
	}
	if err != nil || got != want {
		return fmt.Sprintf("goroutine %d, iteration %d: ReduceValue = %d, %v, want %d", g, k, got, err, want)
	}
	in := []int64{0, 0}
	if _, err := mpi.Sendrecv(d, []int64{v, int64(g)}, next, k, in, prev, k); err != nil || in[0] != concValue(g, k, prev) || in[1] != int64(g) {
		return fmt.Sprintf("goroutine %d, iteration %d: Sendrecv got %v, %v from rank %d", g, k, in, err, prev)
	}
	return ""
}

// nonBlockingCalls is one iteration of goroutine g's ring exchange by
// Isend, Irecv and Waitall on d.
func nonBlockingCalls(d mpi.Comm, g, k int) string {
	p, me := d.Size(), d.Rank()
	next, prev := (me+1)%p, (me+p-1)%p
	in := []int64{0, 0}
	rq, err := mpi.Irecv(d, in, prev, k)
	if err != nil {
		return err.Error()
	}
	sq, err := mpi.Isend(d, []int64{-concValue(g, k, me), int64(g)}, next, k)
	if err != nil {
		return err.Error()
	}
	if _, err := mpi.Waitall([]mpi.Request{rq, sq}); err != nil || in[0] != -concValue(g, k, prev) || in[1] != int64(g) {
		return fmt.Sprintf("goroutine %d, iteration %d: Isend/Irecv got %v, %v from rank %d", g, k, in, err, prev)
	}
	return ""
}

// lockFree reports whether the binding calls MPI without its library lock:
// real MPI at MPI_THREAD_MULTIPLE, not turned off by XPMPI_THREAD_LEVEL. The
// stand-in has no lock to hold across a blocking call either.
func lockFree() bool {
	if !mpi.Built {
		return true
	}
	return mpi.LibraryInfo().ThreadLevel == "multiple" && !strings.EqualFold(strings.TrimSpace(os.Getenv(mpi.ThreadLevelEnv)), "serialized")
}

// TestThreadLevel checks the level reported against the one asked for
// (XPMPI_THREAD_LEVEL, multiple by default). MPI may grant more than was
// asked; Open MPI and MPICH grant exactly the level asked for, so there the
// two must be equal (a request for MPI_THREAD_SINGLE that became MULTIPLE
// fails).
func TestThreadLevel(t *testing.T) {
	c := mpitest.World(t)
	level := mpi.LibraryInfo().ThreadLevel
	if !mpi.Built {
		mpitest.Check(t, c, level == "n/a", "stand-in thread level %q", level)
		return
	}
	order := map[string]int{"single": 0, "funneled": 1, "serialized": 2, "multiple": 3}
	asked := strings.ToLower(strings.TrimSpace(os.Getenv(mpi.ThreadLevelEnv)))
	if asked == "" {
		asked = "multiple"
	}
	got, ok := order[level]
	want, known := order[asked]
	exact := mpi.LibraryInfo().Implementation != "MPI" // Open MPI or MPICH
	mpitest.Check(t, c, ok && known && (got == want || !exact && got > want), "thread level %q granted, %s=%q asked for %q", level, mpi.ThreadLevelEnv, os.Getenv(mpi.ThreadLevelEnv), asked)
}

// TestRecvBesideSend has one goroutine block in Recv until another
// goroutine of the same process sends the message: where the binding takes
// no lock (MPI_THREAD_MULTIPLE, the default), the send gets through; under
// MPI_THREAD_SERIALIZED the Recv would hold the library lock and the send
// would wait for it forever, so the test runs only without the lock.
func TestRecvBesideSend(t *testing.T) {
	c := mpitest.World(t)
	if !mpi.Built || !lockFree() {
		t.Skip("the library lock is on: a blocking Recv holds the library")
	}
	me := c.Rank()
	got := make(chan error, 1)
	buf := []int64{0}
	go func() {
		_, err := mpi.Recv(c, buf, me, 9)
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // the Recv is in MPI, most likely
	sent := make(chan error, 1)
	go func() { sent <- mpi.Send(c, []int64{42}, me, 9) }()
	ok := true
	var msg string
	for _, ch := range []chan error{sent, got} {
		select {
		case err := <-ch:
			if err != nil {
				ok, msg = false, err.Error()
			}
		case <-time.After(30 * time.Second):
			ok, msg = false, "a Send beside a blocked Recv did not complete in 30 s"
		}
	}
	mpitest.Check(t, c, ok && buf[0] == 42, "%s (received %d)", msg, buf[0])
}
