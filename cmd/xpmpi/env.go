package main

import (
	"errors"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// checkEnv refuses the XPMPI_ variables whose values the library would
// otherwise ignore, panic on, or only trip on later, naming each with its
// value (and its choices, where there are few), one line each.
func checkEnv() error {
	var errs []error
	if err := backend.CheckEnv(); err != nil {
		errs = append(errs, err)
	}
	if _, err := backend.ThreadsFromEnv(); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := mpi.CUDAAwareFromEnv(); err != nil {
		errs = append(errs, err)
	}
	if _, err := dist.WritePathFromEnv(); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := logLevelFromEnv(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
