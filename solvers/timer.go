package solvers

import "github.com/xpmpi/xpmpi/mpi"

// Timer measures the time to solution of a collective solve: from a
// barrier to the slowest rank's end.
type Timer struct {
	comm  mpi.Comm
	start float64
}

// StartTimer waits for every rank of comm (a barrier) and starts a timer.
// It is collective.
func StartTimer(comm mpi.Comm) (*Timer, error) {
	if err := comm.Barrier(); err != nil {
		return nil, err
	}
	return &Timer{comm: comm, start: comm.Wtime()}, nil
}

// Stop returns the seconds since StartTimer on the slowest rank, the same
// on every rank. It is collective.
func (t *Timer) Stop() (float64, error) {
	return mpi.AllreduceValue(t.comm, t.comm.Wtime()-t.start, mpi.Max)
}
