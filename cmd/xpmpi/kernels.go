package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/mpi"
)

// kernelsDoc is what `xpmpi kernels --json` prints.
type kernelsDoc struct {
	Summary string                  `json:"summary"`
	Kernels []kernels.Info          `json:"kernels"`
	NVRTC   string                  `json:"nvrtc"`             // version and file, or why none
	Compile []kernels.CompileResult `json:"compile,omitempty"` // with --compile
	Failed  []string                `json:"failed,omitempty"`  // kernel (variant) that did not compile
}

func newKernelsCmd(world mpi.Comm) *cobra.Command {
	var asJSON, compile bool
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
NVRTC it exits 1 saying so. --json prints one JSON document instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKernels(cmd.OutOrStdout(), kernels.Default, asJSON, compile)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document")
	cmd.Flags().BoolVar(&compile, "compile", false, "compile every CUDA kernel to PTX with NVRTC; exit 1 naming failures")
	return cmd
}

func runKernels(w io.Writer, cat *kernels.Catalog, asJSON, compile bool) error {
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
	return failure
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
