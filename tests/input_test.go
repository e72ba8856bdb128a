//go:build mpi

package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBadInputRefused gives heat2d sizes, flags and environment variables
// that once crashed the runtime, overflowed, or were silently ignored, at
// 2 ranks (and some at 3 and 4): the job must refuse with a message naming
// the flag or variable, promptly, without a Go crash or stack trace, and
// exit 1. The cases run together, apart from the other tests' jobs (as
// TestFaults).
func TestBadInputRefused(t *testing.T) {
	bin := binary(t, "XPMPI_BIN")
	cases := []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		// 100000^2 float64 three times over: hundreds of GiB per rank.
		{"n past memory", nil, []string{"--n", "100000"},
			[]string{"heat2d: --n 100000 on", "GiB per rank", "available (", "it fits on"}},
		{"n overflows", nil, []string{"--n", "4294967294"},
			[]string{"--n 4294967294", "too large"}},
		{"n at MaxInt", nil, []string{"--n", "9223372036854775807"},
			[]string{"--n 9223372036854775807", "too large"}},
		{"negative timeout", nil, []string{"--timeout", "-5s"},
			[]string{"--timeout -5s: want a positive duration"}},
		{"every without checkpoint", nil, []string{"--every", "5"},
			[]string{"--every 5 without --checkpoint"}},
		{"every zero", nil, []string{"--every", "0", "--checkpoint", "CKPT"},
			[]string{"--every 0: want a positive number"}},
		{"every negative", nil, []string{"--every", "-3", "--checkpoint", "CKPT"},
			[]string{"--every -3: want a positive number"}},
		{"threads zero", []string{"XPMPI_THREADS=0"}, nil,
			[]string{`XPMPI_THREADS="0": want a positive integer`}},
		{"threads not a number", []string{"XPMPI_THREADS=many"}, nil,
			[]string{`XPMPI_THREADS="many": want a positive integer`}},
		{"cuda-aware maybe", []string{"XPMPI_CUDA_AWARE=maybe"}, nil,
			[]string{`XPMPI_CUDA_AWARE="maybe": want 1`}},
		{"io path unknown", []string{"XPMPI_IO=nfs"}, nil,
			[]string{`XPMPI_IO="nfs": want posix or mpiio`}},
	}
	// Every case at 2 ranks; at 3 and 4 those whose outcome depends on
	// the rank count (memory per rank, the global size) and one variable
	// of each kind, since each rank reads them on its own.
	atEvery := map[string]bool{"n past memory": true, "n overflows": true, "threads zero": true, "io path unknown": true}
	for _, np := range []int{2, 3, 4} {
		for _, c := range cases {
			if np > 2 && !atEvery[c.name] {
				continue
			}
			if c.args == nil {
				c.args = []string{"--n", "16"}
			}
			t.Run(fmt.Sprintf("%s/np%d", c.name, np), func(t *testing.T) {
				t.Parallel()
				args := []string{"run", "heat2d", "--iters", "3", "--quiet"}
				for _, a := range c.args {
					if a == "CKPT" {
						a = t.TempDir() + "/ck"
					}
					args = append(args, a)
				}
				if c.args[0] == "--timeout" {
					// A flag of run's, before the example.
					args = []string{"run", c.args[0], c.args[1], "heat2d", "--iters", "3", "--quiet"}
				}
				res := launchEnv(t, 60*time.Second, np, c.env, bin, args...)
				if res.code != 1 {
					res.fail(t, "exit code %d, want 1", res.code)
				}
				if res.elapsed > 20*time.Second {
					res.fail(t, "took %v", res.elapsed)
				}
				for _, w := range c.want {
					if !strings.Contains(res.combined, w) {
						res.fail(t, "the output lacks %q", w)
					}
				}
				// Some rank says it (every rank finds the same error, but
				// the first to end the job may stop the others before they
				// print), and nothing crashed.
				if !strings.Contains(res.combined, "xpmpi: rank ") {
					res.fail(t, "no rank printed an error")
				}
				for _, bad := range []string{"goroutine ", "fatal error", "panic:", "checksum"} {
					if strings.Contains(res.combined, bad) {
						res.fail(t, "the output holds %q", bad)
					}
				}
			})
		}
	}
}
