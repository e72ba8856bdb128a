//go:build mpi

package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFaults injects each fault of `xpmpi selftest --fault` on one rank at 2,
// 3 and 4 ranks: every case must end in under 10 seconds with a non-zero
// exit and the expected message, and none may hang. The cases are
// independent jobs and run two at a time, apart from the other tests' jobs
// (see doc.go): four at a time on a busy 2-core machine took up to 12 s.
func TestFaults(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	cases := []struct {
		fault string
		code  int
		want  func(r int) []string
	}{
		{"panic", 2, func(r int) []string {
			return []string{fmt.Sprintf("panic on rank %d", r), fmt.Sprintf("injected panic on rank %d", r)}
		}},
		{"collective-error", 1, func(r int) []string {
			// Every rank reports the same error, naming rank r.
			return []string{fmt.Sprintf("xpmpi: rank 0: failed on rank %d: injected failure", r)}
		}},
		{"mismatch", 1, func(r int) []string {
			return []string{fmt.Sprintf("rank %d called Dot", r), "rank 0 called Sum", "collective mismatch"}
		}},
		{"hang", 3, func(r int) []string {
			return []string{
				"exceeded its time limit of 2s",
				fmt.Sprintf("rank %d: the job exceeded its time limit of 2s; this rank is not in a collective call", r),
				"this rank is in Allreduce",
			}
		}},
	}
	jobs := make(chan struct{}, 2)
	for _, np := range []int{2, 3, 4} {
		for _, c := range cases {
			r := np - 1 // the last rank: not rank 0, which prints for the job
			if c.fault == "panic" && np > 2 {
				r = 1
			}
			t.Run(fmt.Sprintf("%s/np%d", c.fault, np), func(t *testing.T) {
				t.Parallel()
				jobs <- struct{}{}
				defer func() { <-jobs }()
				args := []string{"selftest", "--fault", c.fault, "--rank", fmt.Sprint(r)}
				if c.fault == "hang" {
					args = append(args, "--timeout", "2s")
				}
				res := launch(t, 60*time.Second, np, bin, args...)
				if res.code == 0 {
					res.fail(t, "fault %s on rank %d: exit 0", c.fault, r)
					return
				}
				if res.elapsed >= 10*time.Second {
					res.fail(t, "fault %s took %v, want under 10s", c.fault, res.elapsed)
				}
				if res.code != c.code {
					res.fail(t, "fault %s: exit code %d, want %d", c.fault, res.code, c.code)
				}
				for _, w := range c.want(r) {
					if !strings.Contains(res.combined, w) {
						res.fail(t, "fault %s: the output lacks %q", c.fault, w)
					}
				}
			})
		}
	}
}

// TestSelftestPasses runs the whole selftest at 1 to 4 ranks.
func TestSelftestPasses(t *testing.T) {
	t.Parallel() // see doc.go
	bin := binary(t, "XPMPI_BIN")
	for np := 1; np <= 4; np++ {
		res := launch(t, 2*time.Minute, np, bin, "selftest")
		if res.code != 0 || !strings.Contains(res.stdout, "0 failed") {
			res.fail(t, "selftest at %d ranks", np)
		}
	}
}

// TestRunTimeout stops a long heat2d run with the watchdog.
func TestRunTimeout(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	res := launch(t, 60*time.Second, 2, bin, "run", "--timeout", "2s", "heat2d", "--n", "1024", "--iters", "1000000", "--quiet")
	if res.code != 3 || res.elapsed >= 10*time.Second {
		res.fail(t, "heat2d with --timeout 2s: want exit code 3 within 10s")
	}
	if !strings.Contains(res.combined, "the job exceeded its time limit of 2s") {
		res.fail(t, "no watchdog message")
	}
}
