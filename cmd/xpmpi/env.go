package main

import (
	"errors"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// checkEnv refuses the XPMPI_ variables whose values the library would
// otherwise ignore or only trip on later, naming each.
func checkEnv() error {
	var errs []error
	if _, err := backend.ThreadsFromEnv(); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := mpi.CUDAAwareFromEnv(); err != nil {
		errs = append(errs, err)
	}
	if _, err := dist.WritePathFromEnv(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
