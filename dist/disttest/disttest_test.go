package disttest_test

import (
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/dist/disttest"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// level: -short runs the short matrix, XPMPI_DISTTEST_LONG=1 the long one.
func level() disttest.Level {
	switch {
	case os.Getenv("XPMPI_DISTTEST_LONG") == "1":
		return disttest.Long
	case testing.Short():
		return disttest.Short
	}
	return disttest.Default
}

// logCells: XPMPI_DISTTEST_LOG=1 logs every cell with its outcome.
func logCells(t *testing.T) func(string) {
	if os.Getenv("XPMPI_DISTTEST_LOG") != "1" {
		return nil
	}
	return func(s string) { t.Log(s) }
}

// TestConformance runs every cell of the matrix but the freed ones.
func TestConformance(t *testing.T) {
	c := mpitest.World(t)
	if testing.Short() {
		// The checking mode's agreement before every collective doubles
		// the collectives, which cost most where the ranks outnumber the
		// cores (-short): every rank calls the same operations here, and
		// the default matrix runs with it.
		defer mpi.SetChecking(mpi.SetChecking(false))
	}
	cfg := disttest.Config{Level: level(), Dir: mpitest.TempDir(t, c), Log: logCells(t)}
	tally := disttest.Run(t, c, cfg)
	t.Logf("rank %d of %d: %d cells: %d pass, %d tested refusals, %d fail", c.Rank(), c.Size(), tally.Cells, tally.Pass, tally.Refused, tally.Fail)
}

// TestFreed runs every operation on a freed array: each must fail with an
// error wrapping dist.ErrFreed. XPMPI_DISTTEST_FREED=0 skips it.
func TestFreed(t *testing.T) {
	if os.Getenv("XPMPI_DISTTEST_FREED") == "0" {
		t.Skip("XPMPI_DISTTEST_FREED=0")
	}
	c := mpitest.World(t)
	cfg := disttest.Config{Level: level(), Freed: true, Dir: mpitest.TempDir(t, c), Log: logCells(t)}
	tally := disttest.Run(t, c, cfg)
	t.Logf("rank %d of %d: %d freed cells: %d pass, %d fail", c.Rank(), c.Size(), tally.Cells, tally.Pass, tally.Fail)
}

// TestSupportPage fails when docs/SUPPORT.md is not the page that the
// matrix makes; XPMPI_UPDATE_SUPPORT=1 writes it.
func TestSupportPage(t *testing.T) {
	const path = "../../docs/SUPPORT.md"
	if mpitest.World(t).Size() != 1 {
		t.Skip("the page does not depend on the rank count: checked at 1 rank")
	}
	page := disttest.SupportPage()
	if os.Getenv("XPMPI_UPDATE_SUPPORT") == "1" {
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: regenerate it with XPMPI_UPDATE_SUPPORT=1 go test ./dist/disttest -run TestSupportPage", err)
	}
	if string(got) != page {
		t.Errorf("%s is not the page that the matrix makes: regenerate it with XPMPI_UPDATE_SUPPORT=1 go test ./dist/disttest -run TestSupportPage", path)
	}
}
