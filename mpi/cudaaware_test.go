package mpi_test

import (
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
)

// TestLibraryCUDAAware checks the library's own answer: Open MPI gives one
// through mpi-ext.h, the serial stand-in none. Whether the answer is yes
// depends on how the library was built, and is not checked; package
// staging's tests check the policy built on it (staging.CUDAAware).
func TestLibraryCUDAAware(t *testing.T) {
	t.Setenv("XPMPI_CUDA_AWARE", "1") // the library's answer ignores the setting
	aware, known := mpi.LibraryCUDAAware()
	switch {
	case !mpi.Built:
		if aware || known {
			t.Fatalf("stand-in: aware %v, known %v; want no answer", aware, known)
		}
	case mpi.LibraryInfo().Implementation == "Open MPI":
		if !known {
			t.Fatal("Open MPI: no answer from MPIX_Query_cuda_support")
		}
	}
	t.Logf("%s: aware %v, known %v", mpi.LibraryInfo().Implementation, aware, known)
}
