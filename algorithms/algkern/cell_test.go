package algkern

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi"
)

// cellProgram prints xpmpi/cell.cuh's cell and xpmpi/morton.cuh's key of
// each case; Go fills in the cases and compares.
const cellProgram = `
#include <cstdio>
#include <cstring>
#include "xpmpi/cell.cuh"
#include "xpmpi/morton.cuh"

static const unsigned long long cases[][4] = {
@CASES@};

static double d(unsigned long long b) { double x; memcpy(&x, &b, 8); return x; }

int main()
{
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int levels = (int)cases[i][3];
		unsigned int c = xpmpi_cell_index(d(cases[i][0]), d(cases[i][1]), d(cases[i][2]), xpmpi_cell_scale(levels));
		printf("%u %llx\n", c, levels <= 21 ? xpmpi_morton3(c, c / 2, c / 3) : xpmpi_morton2(c, ~c));
	}
	return 0;
}
`

// TestCellHeader compiles xpmpi/cell.cuh as C++ with g++ and checks its
// cells against algorithms.CellIndex (and the keys of those cells against
// algorithms.Morton2 and Morton3), over boundaries, points outside the
// box, NaN, infinities, signed zeros, subnormal and huge coordinates,
// reversed axes, and levels 0 to 32.
func TestCellHeader(t *testing.T) {
	if mpi.Built {
		t.Skip("the default build runs it (once, not on every rank)")
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++ on PATH: xpmpi/cell.cuh is not compared with algorithms.CellIndex")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "xpmpi"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"xpmpi/cell.cuh", "xpmpi/morton.cuh"} {
		h, ok := kernels.Header(n)
		if !ok {
			t.Fatalf("no shipped header %s", n)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(h), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type cellCase struct {
		x, lower, upper float64
		levels          int
	}
	negz := math.Copysign(0, -1)
	xs := []float64{0, negz, 0.5, 1, -1, 0.25, 0.75, 1.0 / 3, math.NaN(), math.Inf(1), math.Inf(-1),
		5e-324, -5e-324, 1e308, -1e308, 0.9999999999999999, 1 + 1e-16, 2, 3.5, -7.25, 1e-300}
	boxes := [][2]float64{{0, 1}, {1, 0}, {-1, 3}, {3, -1}, {-1e308, 1e308}, {0.1, 0.3}, {-8, -7}}
	var cases []cellCase
	for _, levels := range []int{0, 1, 2, 7, 21, 31, 32} {
		for _, b := range boxes {
			for _, x := range xs {
				cases = append(cases, cellCase{x, b[0], b[1], levels})
			}
			// Every cell boundary of a few cells, and next to them.
			if levels <= 7 {
				cells := math.Ldexp(1, levels)
				for k := 0.0; k <= cells; k++ {
					x := b[0] + (b[1]-b[0])*k/cells
					cases = append(cases, cellCase{x, b[0], b[1], levels},
						cellCase{math.Nextafter(x, math.Inf(1)), b[0], b[1], levels},
						cellCase{math.Nextafter(x, math.Inf(-1)), b[0], b[1], levels})
				}
			}
		}
	}
	var ct strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&ct, "\t{0x%xull, 0x%xull, 0x%xull, %d},\n", math.Float64bits(c.x), math.Float64bits(c.lower), math.Float64bits(c.upper), c.levels)
	}
	main := filepath.Join(dir, "main.cpp")
	if err := os.WriteFile(main, []byte(strings.Replace(cellProgram, "@CASES@", ct.String(), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "cell")
	args := []string{"-std=c++17", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-I", dir, "-o", exe, main}
	if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("running the program: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(cases) {
			t.Fatalf("more output lines than %d cases", len(cases))
		}
		c := cases[i]
		f := strings.Fields(sc.Text())
		cell, _ := strconv.ParseUint(f[0], 10, 32)
		want := algorithms.CellIndex(c.x, c.lower, c.upper, c.levels)
		var key uint64
		if c.levels <= 21 {
			key = algorithms.Morton3(want, want/2, want/3)
		} else {
			key = algorithms.Morton2(want, ^want)
		}
		if uint32(cell) != want || f[1] != strconv.FormatUint(key, 16) {
			t.Errorf("x=%v in [%v, %v], levels %d: C cell %s key %s, Go %d %x", c.x, c.lower, c.upper, c.levels, f[0], f[1], want, key)
		}
	}
	if i != len(cases) {
		t.Errorf("the program printed %d of %d cases", i, len(cases))
	}
	t.Logf("%d cases: xpmpi/cell.cuh gives algorithms.CellIndex's cells", len(cases))
}
