package h5_test

import (
	_ "github.com/xpmpi/xpmpi/backend/cpu" // the CPU backend, which a program registers by importing it
	"testing"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }
