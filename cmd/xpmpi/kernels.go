package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi"
)

// kernelsDoc is what `xpmpi kernels --json` prints.
type kernelsDoc struct {
	Summary string                  `json:"summary"`
	Kernels []kernels.Info          `json:"kernels"`
	NVRTC   string                  `json:"nvrtc"`             // version and file, or why none
	Compile []kernels.CompileResult `json:"compile,omitempty"` // with --compile
	Parity  []kernels.ParityResult  `json:"parity,omitempty"`  // with --parity
	Device  string                  `json:"device,omitempty"`  // where --parity ran the device side
	Failed  []string                `json:"failed,omitempty"`  // kernel (variant or case) that failed
	// NothingToCompare says why --parity compared no two implementations
	// (the exit code is then exitNothingToCompare).
	NothingToCompare string `json:"nothing_to_compare,omitempty"`
}

// exitNothingToCompare is the exit code of `xpmpi kernels --parity` when
// it compared nothing: no CUDA device selected (the device side would be
// the host implementation again), or no kernel whose CUDA kernel ran.
const exitNothingToCompare = 3

func newKernelsCmd(world mpi.Comm) *cobra.Command {
	var asJSON, compile, parity bool
	cmd := &cobra.Command{
		Use:   "kernels",
		Short: "List the kernel catalog; --compile compiles every CUDA kernel to PTX",
		Long: `kernels lists the kernels of the catalog (package kernels): for each, whether
it has a host implementation and CUDA source, its variants (element types and
compile-time defines) and its signature, then a summary line such as
"CUDA kernels: 3 of 3".

--compile compiles every variant of every CUDA kernel to PTX with NVRTC (no
GPU needed; XPMPI_NVRTC names the library), checks the struct layouts, prints
one line per variant, and exits 1 naming the kernels that failed; without
NVRTC it exits 1 saying so.

--parity compares each kernel's host implementation with its CUDA kernel:
it runs every parity case, for every element type, on the host and on the
selected backend's CUDA device (XPMPI_BACKEND=cuda), compares the results
(bit for bit, or within each case's tolerance in ULPs), prints one line per
case, and exits 1 naming the cases that differ. Kernels without CUDA source
or without a host implementation are listed as skipped. Where the selected
backend runs no CUDA code (the CPU, the fake device) or no CUDA kernel ran
(NVRTC missing), there is nothing to compare: it says so and exits 3 (no
"ok" lines). Without a GPU, the tests compare the two on the fake CUDA
driver (kernels/kerneltest).

--json prints one JSON document instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var dev backend.Backend
			if parity {
				dev = backend.Current()
			}
			return runKernels(cmd.OutOrStdout(), kernels.Default, asJSON, compile, dev)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document")
	cmd.Flags().BoolVar(&compile, "compile", false, "compile every CUDA kernel to PTX with NVRTC; exit 1 naming failures")
	cmd.Flags().BoolVar(&parity, "parity", false, "run the parity cases on the host and the selected backend's device; exit 1 naming failures")
	return cmd
}

// runKernels lists cat on w; with compile, compiles it; with a parity
// device, runs its parity cases there.
func runKernels(w io.Writer, cat *kernels.Catalog, asJSON, compile bool, parity backend.Backend) error {
	sum := cat.Summary()
	doc := kernelsDoc{Summary: sum.String(), Kernels: sum.Kernels}
	version, path, nverr := kernels.NVRTC()
	if nverr == nil {
		doc.NVRTC = version + " (" + path + ")"
	} else {
		doc.NVRTC = "none: " + nverr.Error()
	}
	var failure error
	if compile {
		if nverr != nil {
			failure = fmt.Errorf("kernels --compile: %w", nverr)
		} else {
			res, err := cat.CompileAll()
			doc.Compile = res
			for _, r := range res {
				if r.Error != "" {
					doc.Failed = append(doc.Failed, r.Kernel+" ("+r.Variant+")")
				}
			}
			if cerr := cat.Check(); cerr != nil {
				err = errors.Join(err, cerr)
				doc.Failed = append(doc.Failed, "check: "+firstLine(cerr.Error()))
			}
			if err != nil {
				failure = fmt.Errorf("kernels --compile: %d failed: %s", len(doc.Failed), strings.Join(doc.Failed, ", "))
			}
		}
	}
	nCompileFailed := len(doc.Failed)
	if parity != nil {
		doc.Device = parity.Device().String()
		var res []kernels.ParityResult
		var err error
		if parity.Device().Kind != backend.CUDA {
			doc.NothingToCompare = fmt.Sprintf("%s runs no CUDA code: the device side would be the host implementation again; select a CUDA device (XPMPI_BACKEND=cuda) on a machine with a GPU", doc.Device)
		} else {
			res, err = cat.Parity(parity)
			doc.Parity = res
			compared := 0
			for _, r := range res {
				if r.Compared() {
					compared++
				}
				if r.Error != "" {
					doc.Failed = append(doc.Failed, "parity "+parityName(r))
				}
			}
			if compared == 0 {
				doc.NothingToCompare = fmt.Sprintf("no kernel's CUDA kernel ran on %s (%d skipped)", doc.Device, len(res))
			}
		}
		if doc.NothingToCompare != "" && failure == nil {
			failure = &exitError{exitNothingToCompare, fmt.Errorf("kernels --parity: nothing to compare: %s", doc.NothingToCompare)}
		}
		if err != nil {
			msg := fmt.Sprintf("kernels --parity on %s: %d failed: %s", doc.Device, len(doc.Failed)-nCompileFailed, strings.Join(doc.Failed[nCompileFailed:], ", "))
			if failure != nil {
				msg = failure.Error() + "; " + msg
			}
			failure = errors.New(msg)
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
		return failure
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KERNEL\tHOST\tCUDA\tVARIANTS\tSIGNATURE")
	for _, k := range doc.Kernels {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Name, yesNo(k.Host), yesNo(k.CUDA), strings.Join(k.Variants, ", "), k.Signature)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, doc.Summary)
	if compile && nverr == nil {
		fmt.Fprintf(w, "NVRTC %s\n", doc.NVRTC)
		for _, r := range doc.Compile {
			if r.Error != "" {
				fmt.Fprintf(w, "FAIL %s (%s): %s\n", r.Kernel, r.Variant, firstLine(r.Error))
			} else {
				fmt.Fprintf(w, "ok   %s (%s): %d bytes of PTX\n", r.Kernel, r.Variant, r.Bytes)
			}
		}
	}
	if parity != nil && doc.NothingToCompare != "" && len(doc.Parity) == 0 {
		fmt.Fprintf(w, "parity: nothing to compare: %s\n", doc.NothingToCompare)
	} else if parity != nil {
		fmt.Fprintf(w, "parity: host and %s\n", doc.Device)
		for _, r := range doc.Parity {
			switch {
			case r.Skipped != "":
				fmt.Fprintf(w, "skip %s: %s\n", r.Kernel, r.Skipped)
			case r.Error != "":
				fmt.Fprintf(w, "FAIL %s: %s\n", parityName(r), firstLine(r.Error))
			default:
				fmt.Fprintf(w, "ok   %s\n", parityName(r))
			}
		}
	}
	return failure
}

// parityName names a parity case: "axpy (float64, odd size)".
func parityName(r kernels.ParityResult) string {
	if r.Type != "" {
		return fmt.Sprintf("%s (%s, %s)", r.Kernel, r.Type, r.Case)
	}
	return fmt.Sprintf("%s (%s)", r.Kernel, r.Case)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
