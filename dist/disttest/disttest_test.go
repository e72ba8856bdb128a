package disttest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/xpmpi/xpmpi/dist/disttest"
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

// TestCells prints the matrix's size at each rank count.
func TestCells(t *testing.T) {
	for _, l := range []disttest.Level{disttest.Short, disttest.Default, disttest.Long} {
		for p := 1; p <= 4; p++ {
			n, refuse := 0, 0
			for _, cl := range disttest.Cells(disttest.Config{Level: l}, p) {
				n++
				if cl.Refuse != "" {
					refuse++
				}
			}
			freed := len(disttest.Cells(disttest.Config{Level: l, Freed: true}, p))
			t.Logf("level %d, %d ranks: %d cells (%d refusals), %d freed cells", l, p, n, refuse, freed)
		}
	}
	_ = fmt.Sprint
}

// TestSupportPage fails when docs/SUPPORT.md is not the page that the
// matrix makes; XPMPI_UPDATE_SUPPORT=1 writes it.
func TestSupportPage(t *testing.T) {
	const path = "../../docs/SUPPORT.md"
	page := disttest.SupportPage()
	if os.Getenv("XPMPI_UPDATE_SUPPORT") == "1" {
		if mpitest.World(t).Rank() == 0 {
			if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
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
