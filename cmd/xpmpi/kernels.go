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
}

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

--parity runs every kernel's parity cases on the host and on the selected
backend's device (XPMPI_BACKEND=cuda for the GPU), compares the results (bit
for bit, or within each case's tolerance in ULPs), prints one line per case,
and exits 1 naming the cases that differ. On the CPU backend both sides are
the host implementation.

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
		res, err := cat.Parity(parity)
		doc.Parity = res
		for _, r := range res {
			if r.Error != "" {
				doc.Failed = append(doc.Failed, "parity "+parityName(r))
			}
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
	if parity != nil {
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
