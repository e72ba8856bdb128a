package mpi_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

var errCustom = errors.New("custom kind")

func init() { mpi.RegisterErrorKind("mpi_test.custom", errCustom) }

// An error agreed on keeps its kind on every rank: errors.Is finds the
// sentinel of each failing rank's kind everywhere, and errors.Unwrap gives
// a failing rank its own error.
func TestAgreeKeepsKinds(t *testing.T) {
	c := mpitest.World(t)
	last := c.Size() - 1
	cases := []struct {
		name  string
		local func(rank int) error
		is    []error
		isNot []error
	}{
		{"not exist on the last rank", func(r int) error {
			if r == last {
				_, err := os.Open("/no/such/file/here")
				return fmt.Errorf("opening: %w", err)
			}
			return nil
		}, []error{fs.ErrNotExist}, []error{fs.ErrPermission, errCustom, syscall.ENOSPC}},
		{"a registered kind on rank 0", func(r int) error {
			if r == 0 {
				return fmt.Errorf("wrapped twice: %w", fmt.Errorf("once: %w", errCustom))
			}
			return nil
		}, []error{errCustom}, []error{fs.ErrNotExist}},
		{"different kinds on different ranks", func(r int) error {
			if r == 0 {
				return syscall.ENOSPC
			}
			if r == last {
				return errCustom
			}
			return nil
		}, []error{syscall.ENOSPC, errCustom}, []error{fs.ErrNotExist}},
		{"no kind", func(r int) error {
			if r == last {
				return errors.New("plain")
			}
			return nil
		}, nil, []error{fs.ErrNotExist, errCustom, syscall.ENOSPC}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			local := tc.local(c.Rank())
			err := mpi.Agree(c, local)
			if err == nil {
				t.Fatal("Agree = nil after a failure")
			}
			for _, k := range tc.is {
				if k == errCustom && c.Size() == 1 && tc.name == "different kinds on different ranks" {
					continue // one rank: rank 0 is the last, and ENOSPC came first
				}
				if !errors.Is(err, k) {
					t.Errorf("rank %d: errors.Is(%v, %v) = false", c.Rank(), err, k)
				}
			}
			for _, k := range tc.isNot {
				if errors.Is(err, k) {
					t.Errorf("rank %d: errors.Is(%v, %v) = true", c.Rank(), err, k)
				}
			}
			if got := errors.Unwrap(err); got != local {
				t.Errorf("rank %d: errors.Unwrap = %v, want the local error %v", c.Rank(), got, local)
			}
			if !mpi.IsRankError(err) {
				t.Errorf("%T is no RankError", err)
			}
		})
	}
	if err := mpi.Agree(c, nil); err != nil {
		t.Fatalf("Agree(nil) = %v", err)
	}
}

func TestRegisterErrorKindTwice(t *testing.T) {
	mpi.RegisterErrorKind("mpi_test.custom", errCustom) // the same: fine
	defer func() {
		if recover() == nil {
			t.Fatal("a name registered with another error did not panic")
		}
	}()
	mpi.RegisterErrorKind("mpi_test.custom", errors.New("another"))
}
