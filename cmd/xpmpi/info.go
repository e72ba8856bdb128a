package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/launch"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
	"github.com/xpmpi/xpmpi/zarr"
)

// rankInfo is what one rank reports about itself.
type rankInfo struct {
	Rank      int    `json:"rank"`
	Size      int    `json:"size"`
	LocalRank int    `json:"local_rank"`
	LocalSize int    `json:"local_size"`
	Host      string `json:"host"`
	PID       int    `json:"pid"`
	Backend   string `json:"backend"`
	Device    string `json:"device"`
	Threads   int    `json:"threads"`
	GPU       string `json:"gpu"` // the GPU this rank binds, or why none
	// GPULibs says what computes the CUDA backend's GEMM and FFT:
	// cuBLAS and cuFFT, or xpmpi's kernels and why (missing, not started,
	// XPMPI_CUDA_LIBS=parity).
	GPULibs    string `json:"gpu_libs"`
	MPI        string `json:"mpi"`
	MPIVersion string `json:"mpi_version"`
	Thread     string `json:"thread_level"`
	Warning    string `json:"warning,omitempty"`
	// What the launcher's (or batch system's) variables say, before MPI:
	// the local rank that binds the GPU, and the node's name (Slurm's
	// SLURMD_NODENAME).
	Launcher        string `json:"launcher"`
	LaunchLocalRank int    `json:"launcher_local_rank"`
	LaunchLocalSize int    `json:"launcher_local_size"`
	Node            string `json:"node,omitempty"`
}

// jobInfo is the document `xpmpi info --json` prints.
type jobInfo struct {
	MPI             string         `json:"mpi"`
	MPIVersion      string         `json:"mpi_version"`
	ThreadLevel     string         `json:"thread_level"`
	WaitMode        string         `json:"wait_mode"` // how MPI calls wait: block or sleep (mpi.Info.WaitMode)
	CUDAAware       bool           `json:"cuda_aware"`
	CUDAAwareKnown  bool           `json:"cuda_aware_known"`
	CUDAAwareSource string         `json:"cuda_aware_source"`
	Launched        bool           `json:"launched"`
	Backend         backend.Info   `json:"backend"`
	Ranks           []rankInfo     `json:"ranks"`
	PETSc           string         `json:"petsc,omitempty"` // the PETSc version of a -tags petsc build
	Formats         formatsInfo    `json:"formats"`
	Problems        []string       `json:"problems,omitempty"` // refused environment variables, one each
	Extra           map[string]any `json:"extra,omitempty"`
}

// formatsInfo says which file formats this binary reads and writes
// (docs/FORMATS.md): .npy and Zarr v2 always, HDF5 with -tags mpi,hdf5.
type formatsInfo struct {
	HDF5        bool     `json:"hdf5"`
	HDF5Version string   `json:"hdf5_version,omitempty"` // the HDF5 library's, where HDF5 is built in
	HDF5Note    string   `json:"hdf5_note,omitempty"`    // how to get it, where it is not
	Zarr        bool     `json:"zarr"`
	ZarrVersion int      `json:"zarr_version"`     // the Zarr format written and read
	ZarrCodecs  []string `json:"zarr_compressors"` // the compressors written and read
}

func formatsOf() formatsInfo {
	f := formatsInfo{HDF5: h5.Available(), HDF5Version: h5.Version(), Zarr: true, ZarrVersion: 2, ZarrCodecs: zarr.Compressors()}
	if !f.HDF5 {
		f.HDF5Note = h5.ErrUnavailable.Error()
	}
	return f
}

func newInfoCmd(world mpi.Comm) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Print every rank's rank, node, MPI library and backend",
		Long: `info gathers from every rank its rank, size, local rank, host, MPI library
and version, thread level, backend and device, and prints one table on rank
0 (with --json also the launcher, its local rank and local size, and the
node name a batch system gives), with whether MPI accepts device pointers (CUDA-aware) and where that answer
came from, and which file formats the binary has: HDF5 (its library's
version, in a build with -tags mpi,hdf5) and Zarr (v2, its compressors). --json prints the same as one JSON document.

A refused environment variable (XPMPI_BACKEND naming no backend, say) does
not stop info: it prints what it can, then the problem on standard error,
one line per variable, and exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInfo(world, cmd.OutOrStdout(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document")
	return cmd
}

func runInfo(world mpi.Comm, w io.Writer, asJSON bool) error {
	envErr := checkEnv()
	// Whether some rank will return an error, which ends the job
	// (mpi.Main): then every rank waits, below, until rank 0 has printed
	// the table, which is what a user runs info for.
	allOK, err := mpi.AllTrue(world, envErr == nil)
	if err != nil {
		return err
	}
	lib := mpi.LibraryInfo()
	host, _ := os.Hostname()
	lr, ls := mpi.NodeRank()
	beInfo := backend.GetInfo() // never panics; Selected is empty if refused
	beName, device := "none", "-"
	if beInfo.Selected != "" {
		be := backend.Current()
		beName, device = be.Name(), be.Device().String()
	}
	me := rankInfo{
		Rank: world.Rank(), Size: world.Size(), LocalRank: lr, LocalSize: ls,
		Host: host, PID: os.Getpid(), Backend: beName, Device: device,
		Threads: backend.Threads(), MPI: lib.Implementation, MPIVersion: lib.Version,
		Thread: lib.ThreadLevel, Warning: mpi.NodeRankWarning(), GPU: gpuOf(), GPULibs: gpuLibsOf(),
	}
	ld := launch.Detect()
	me.Launcher, me.LaunchLocalRank, me.LaunchLocalSize, me.Node = ld.Kind.String(), ld.LocalRank, ld.LocalSize, ld.Node
	b, err := json.Marshal(me)
	if err != nil {
		return err
	}
	all, err := mpi.GatherBytes(world, b, 0)
	if err != nil {
		return err
	}
	if world.Rank() != 0 {
		if !allOK {
			world.Barrier()
		}
		return envErr
	}
	aware := staging.CUDAAware()
	doc := jobInfo{
		MPI: lib.Implementation, MPIVersion: lib.Version, ThreadLevel: lib.ThreadLevel,
		WaitMode: lib.WaitMode, CUDAAware: aware.Aware, CUDAAwareKnown: aware.Known,
		CUDAAwareSource: aware.Source, Launched: mpi.Launched(),
		Backend: beInfo, PETSc: petscVersion(), Formats: formatsOf(),
	}
	for _, raw := range all {
		var r rankInfo
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		doc.Ranks = append(doc.Ranks, r)
	}
	if envErr != nil {
		doc.Problems = strings.Split(envErr.Error(), "\n")
	}
	perr := printInfo(w, doc, asJSON)
	if !allOK {
		if f, ok := w.(interface{ Sync() error }); ok {
			f.Sync()
		}
		world.Barrier()
	}
	if perr != nil {
		return perr
	}
	return envErr
}

// printInfo prints the job's document on rank 0.
func printInfo(w io.Writer, doc jobInfo, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	fmt.Fprintf(w, "MPI:        %s, %s (thread level %s, waits: %s)\n", doc.MPI, doc.MPIVersion, doc.ThreadLevel, doc.WaitMode)
	aware := "no"
	switch {
	case !doc.CUDAAwareKnown:
		aware = "unknown (device buffers are staged through host memory)"
	case doc.CUDAAware:
		aware = "yes"
	}
	fmt.Fprintf(w, "CUDA-aware: %s [source: %s]\n", aware, doc.CUDAAwareSource)
	if doc.PETSc != "" {
		fmt.Fprintf(w, "PETSc:      %s\n", doc.PETSc)
	}
	if doc.Formats.HDF5 {
		fmt.Fprintf(w, "HDF5:       %s (parallel, MPI-IO; h5 package, --checkpoint-format h5)\n", doc.Formats.HDF5Version)
	} else {
		fmt.Fprintf(w, "HDF5:       not in this build (%s)\n", strings.TrimPrefix(doc.Formats.HDF5Note, "this binary is built without HDF5: "))
	}
	fmt.Fprintf(w, "Zarr:       v%d, compressors %s (zarr package)\n", doc.Formats.ZarrVersion, strings.Join(doc.Formats.ZarrCodecs, ", "))
	if doc.Backend.Selected == "" {
		fmt.Fprintf(w, "Backend:    none (%s)", doc.Backend.Error)
	} else {
		fmt.Fprintf(w, "Backend:    %s", doc.Backend.Selected)
	}
	if doc.Backend.Fallback != "" {
		fmt.Fprintf(w, " (asked for %s: %s)", doc.Backend.Requested, doc.Backend.Fallback)
	}
	fmt.Fprintln(w)
	for _, s := range doc.Backend.Backends {
		if s.Available {
			fmt.Fprintf(w, "  %-6s available on %s %s\n", s.Name, s.Device, s.Details)
		} else {
			fmt.Fprintf(w, "  %-6s unavailable: %s\n", s.Name, s.Reason)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tSIZE\tLOCAL\tHOST\tPID\tBACKEND\tDEVICE\tTHREADS\tGPU")
	for _, r := range doc.Ranks {
		fmt.Fprintf(tw, "%d\t%d\t%d/%d\t%s\t%d\t%s\t%s\t%d\t%s\n", r.Rank, r.Size, r.LocalRank, r.LocalSize, r.Host, r.PID, r.Backend, r.Device, r.Threads, r.GPU)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range doc.Ranks {
		if r.Warning != "" {
			fmt.Fprintf(w, "rank %d: %s\n", r.Rank, r.Warning)
		}
	}
	if len(doc.Ranks) > 0 {
		fmt.Fprintf(w, "GPU libraries (rank 0): %s\n", doc.Ranks[0].GPULibs)
	}
	return nil
}

// gpuLibsOf says what computes the CUDA backend's GEMM and FFT on this
// rank: with a device, the backend's answer (cuBLAS and cuFFT started on
// it, or xpmpi's kernels and why); without one, whether the libraries
// load here at all.
func gpuLibsOf() string {
	if cuda.Available() == nil {
		if b, err := cuda.Default(); err == nil {
			st := b.Vendor()
			return fmt.Sprintf("mode %s; GEMM: %s; FFT: %s", st.Mode, st.GEMM, st.FFT)
		}
	}
	mode, err := cuda.LibModeFromEnv()
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, l := range cuda.VendorLibraries() {
		parts = append(parts, l.String())
	}
	return fmt.Sprintf("mode %s; no CUDA device; %s", mode, strings.Join(parts, "; "))
}

// gpuOf says which GPU this rank binds (local rank modulo the device count,
// or XPMPI_DEVICE), or why it binds none.
func gpuOf() string {
	if err := cuda.Available(); err != nil {
		return "none (" + err.Error() + ")"
	}
	n, err := cuda.DeviceCount()
	if err != nil {
		return "none (" + err.Error() + ")"
	}
	id, err := cuda.ChooseDevice(n)
	if err != nil {
		return "none (" + err.Error() + ")"
	}
	return fmt.Sprintf("cuda:%d of %d", id, n)
}
