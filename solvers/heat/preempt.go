package heat

import (
	"time"

	"github.com/xpmpi/xpmpi/mpi"
)

// stopHere is called at the end of every iteration of a run with
// Config.Stoppable: it asks every rank whether a stop is pending on any
// (mpi.StopRequested), and if one is, saves the field at step and returns
// the *mpi.StopError that Solve returns. It returns nil to go on.
func stopHere(comm mpi.Comm, cfg Config, step int, save func(int) error) error {
	stop, why, err := mpi.StopRequested(comm)
	if err != nil || !stop {
		return err
	}
	start := time.Now()
	if err := save(step); err != nil {
		return err
	}
	// The slowest rank's time: the save is collective, but the ranks
	// leave it at different moments.
	took, err := mpi.AllreduceValue(comm, time.Since(start).Seconds(), mpi.Max)
	if err != nil {
		return err
	}
	return &mpi.StopError{Step: int64(step), Reason: why, Checkpoint: cfg.Checkpoint,
		Saved: time.Duration(took * float64(time.Second))}
}
