package main

import (
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/solvers/heat"
)

// stopOnSignals makes SIGTERM and SIGUSR1 requests to stop a run that
// checkpoints (mpi.NotifyStop): the run saves its checkpoint at the end of
// the iteration and exits with mpi.ExitStopped, where the signals'
// default action would kill it and lose the iterations since the last
// checkpoint.
func stopOnSignals(cfg *heat.Config) {
	mpi.NotifyStop()
	cfg.Stoppable = true
}
