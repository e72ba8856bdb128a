package mpi

import (
	"errors"
	"os"

	"github.com/xpmpi/xpmpi/internal/envvar"
)

// CheckingFromEnv returns whether XPMPI_CHECK turns the checking mode on
// (1, true, yes; 0, false, no or unset: off), and an error
// naming the variable for any other value, which leaves the mode off (the
// CLI refuses to start on it).
func CheckingFromEnv() (bool, error) {
	on, _, err := envvar.Bool("XPMPI_CHECK", os.Getenv("XPMPI_CHECK"), "check that every rank makes the same collective call")
	return on, err
}

// CheckInitEnv returns the error that Init would return for the values of
// XPMPI_THREAD_LEVEL and XPMPI_MPI_WAIT, or nil, without starting MPI.
func CheckInitEnv() error {
	var errs []error
	for _, name := range []string{ThreadLevelEnv, WaitModeEnv} {
		if err := envvar.Check(name, os.Getenv(name)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	_, err1 := requestedThreadLevel()
	_, err2 := requestedWaitMode()
	return errors.Join(err1, err2)
}
