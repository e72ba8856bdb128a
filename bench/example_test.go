package bench_test

import (
	"fmt"
	"os"

	"github.com/xpmpi/xpmpi/bench"
)

// A report is printed as `xpmpi bench` prints it; a program that runs the
// bench (bench.Run) prints it on rank 0 only.
func ExampleReport_WriteText() {
	rep := &bench.Report{
		Ranks: 2, Reps: 3,
		Rows: []bench.Row{{
			Workload: "W3", Ranks: 2, Backend: "cpu", Metric: "Jacobi iteration", Unit: "ms/iter",
			XPMPI: 2.2, Reference: 2, Ratio: 1.1, ChecksumOK: true, Reps: 3, Spread: 0.05,
			Kind: bench.KindTime, Target: 1.1,
		}},
		Checks: []bench.Check{{Workload: "W3", What: "sum of u", XPMPI: 1234.5, Ref: 1234.5, OK: true, Detail: "equal"}},
	}
	if err := rep.WriteText(os.Stdout, false); err != nil {
		fmt.Println(err)
	}
	fmt.Println(rep.Err())
	// Output:
	// xpmpi bench: 2 ranks, 3 repetitions of each side, interleaved; medians; ratio = xpmpi time / reference time (lower is better)
	// workload  ranks  backend  metric            unit     xpmpi  reference  ratio  target     checksum  reps  spread
	// W3        2      cpu      Jacobi iteration  ms/iter  2.2    2          1.100  <=1.1 met  ok        3     5.0%
	// checksums (first repetition):
	//   W3 sum of u: xpmpi 1234.5, reference 1234.5: agree (equal)
	// <nil>
}
