package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// The statuses of a finding.
const (
	statusOK      = "ok"
	statusNote    = "note"    // worth knowing, not a problem (no GPU on a CPU-only machine)
	statusProblem = "problem" // something a job needs is wrong
)

// finding is one line of the doctor's diagnosis.
type finding struct {
	Check  string `json:"check"`
	Status string `json:"status"` // ok, note or problem
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // what to do about a problem or a note
}

func okFinding(check, detail string) finding { return finding{check, statusOK, detail, ""} }

func noteFinding(check, detail, fix string) finding { return finding{check, statusNote, detail, fix} }

func problemFinding(check, detail, fix string) finding {
	return finding{check, statusProblem, detail, fix}
}

// doctorReport is what `xpmpi doctor --json` prints.
type doctorReport struct {
	Healthy  bool      `json:"healthy"` // no finding is a problem
	Problems int       `json:"problems"`
	Notes    int       `json:"notes"`
	Findings []finding `json:"findings"`
}

func report(fs []finding) doctorReport {
	r := doctorReport{Findings: fs}
	for _, f := range fs {
		switch f.Status {
		case statusProblem:
			r.Problems++
		case statusNote:
			r.Notes++
		}
	}
	r.Healthy = r.Problems == 0
	return r
}

func newDoctorCmd(world mpi.Comm) *cobra.Command {
	var (
		np     int
		runner string
		probe  bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Diagnose the GPU and MPI set-up, with the fix for each problem",
		Long: `doctor checks what a job needs and prints a diagnosis with the fix for each
problem it finds: a refused XPMPI_ variable, no MPI launcher, an MPI job that
does not start, launcher variables missing, all ranks on one GPU, MPI not
CUDA-aware. A machine without an NVIDIA driver or GPU is a note, not a
problem: the cpu backend needs neither.

Run it directly, not under mpirun: it starts its own small jobs (mpirun -np
--np) as child processes, so that the CUDA-aware probe, which can crash an MPI
library that is not CUDA-aware, cannot take the doctor down with it. The probe
sends device memory around a ring of ranks and checks what arrives.

--json prints the findings as one JSON object.

Exit codes:
  0  healthy: no problems (notes are not problems)
  1  problems found
  2  could not run: a bad flag, or started under mpirun (where the launcher
     may report its own code for the aborted job)`,
		Example: `  xpmpi doctor
  xpmpi doctor --json
  xpmpi doctor --np 4 --mpirun /usr/bin/mpirun.openmpi`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if probe {
				return runProbe(world, cmd.OutOrStdout())
			}
			if world.Size() > 1 {
				return &exitError{2, errors.New("doctor: run xpmpi doctor directly, not under mpirun: it starts its own jobs")}
			}
			if np < 1 {
				return &exitError{2, fmt.Errorf("doctor: --np %d: want at least 1", np)}
			}
			rep := report(diagnose(np, runner))
			w := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(w, rep); err != nil {
					return &exitError{2, err}
				}
			} else {
				printFindings(w, rep)
			}
			if !rep.Healthy {
				return &exitError{1, fmt.Errorf("doctor: %d problem(s) found", rep.Problems)}
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{2, err} })
	f := cmd.Flags()
	f.IntVar(&np, "np", 2, "ranks of the jobs the doctor starts")
	f.StringVar(&runner, "mpirun", "", "MPI launcher (default: mpirun.openmpi or mpirun on PATH)")
	f.BoolVar(&probe, "probe", false, "run the CUDA-aware probe (inside a job the doctor starts)")
	f.MarkHidden("probe")
	f.BoolVar(&asJSON, "json", false, "print the findings as one JSON object")
	cmd.MarkFlagFilename("mpirun")
	return cmd
}

// probeLine is what a probe job prints on rank 0.
const probeLine = "xpmpi-probe:"

// runProbe is the child job: the ring probe with device memory.
func runProbe(world mpi.Comm, w io.Writer) error {
	b, err := backend.Lookup("cuda")
	if err != nil {
		fmt.Fprintf(w, "%s no-device %v\n", probeLine, err)
		return nil
	}
	aware, err := staging.ProbeCUDAAware(world, b)
	switch {
	case err != nil:
		fmt.Fprintf(w, "%s not-aware %v\n", probeLine, err)
	case aware:
		fmt.Fprintf(w, "%s aware\n", probeLine)
	default:
		fmt.Fprintf(w, "%s not-aware another rank saw wrong data\n", probeLine)
	}
	return nil
}

// diagnose runs every check and returns the findings.
func diagnose(np int, runner string) []finding {
	var out []finding
	if err := checkEnv(); err != nil {
		out = append(out, problemFinding("env", strings.ReplaceAll(err.Error(), "\n", "; "),
			"unset the variable or give it one of the values named"))
	} else {
		out = append(out, okFinding("env", "the XPMPI_ variables are valid"))
	}
	dev, gpus := deviceFindings()
	out = append(out, dev...)
	out = append(out, vendorFindings()...)
	launcher := runner
	if launcher == "" {
		for _, name := range []string{"mpirun.openmpi", "mpirun"} {
			if p, err := exec.LookPath(name); err == nil {
				launcher = p
				break
			}
		}
	}
	self, err := os.Executable()
	if launcher == "" || err != nil {
		return append(out, problemFinding("mpi job", "no MPI launcher found",
			"install Open MPI (scripts/setup.sh) or pass --mpirun"))
	}
	info, text, err := childJob(launcher, np, self, "info", "--json")
	if err != nil {
		fix := "see the output above; run the job by hand to see more"
		if strings.Contains(text, "-tags mpi") {
			fix = "rebuild with -tags mpi: go build -tags mpi -o bin/xpmpi ./cmd/xpmpi"
		}
		return append(out, problemFinding("mpi job", fmt.Sprintf("%s -np %d xpmpi info failed: %v: %s", launcher, np, err, lastLine(text)), fix))
	}
	var doc jobInfo
	if err := json.Unmarshal([]byte(info), &doc); err != nil || len(doc.Ranks) != np {
		return append(out, problemFinding("mpi job", fmt.Sprintf("xpmpi info printed no document for %d ranks", np), "run the job by hand to see its output"))
	}
	out = append(out, okFinding("mpi job", fmt.Sprintf("%d ranks, %s", np, doc.MPIVersion)))
	out = append(out, launcherFinding(doc))
	if gpus > 0 {
		out = append(out, gpuFinding(doc, gpus))
	}
	out = append(out, awareFinding(doc, gpus, launcher, np, self))
	return out
}

// deviceFindings checks the NVIDIA driver and devices, and returns the
// number of devices. Neither is needed by the cpu backend: their absence is
// a note, not a problem.
func deviceFindings() ([]finding, int) {
	const cpuOnly = "for the cuda backend, install the NVIDIA driver (libcuda.so.1); the cpu backend needs nothing more"
	if err := cuda.Available(); err != nil {
		return []finding{noteFinding("driver", err.Error(), cpuOnly)}, 0
	}
	v, _ := cuda.DriverVersion()
	out := []finding{okFinding("driver", "CUDA driver "+v)}
	n, err := cuda.DeviceCount()
	if err != nil || n == 0 {
		return append(out, noteFinding("devices", fmt.Sprintf("no CUDA device (%v)", err),
			"for the cuda backend, check nvidia-smi, CUDA_VISIBLE_DEVICES and the container's device access")), 0
	}
	return append(out, okFinding("devices", fmt.Sprintf("%d CUDA device(s)", n))), n
}

// vendorFindings checks that cuBLAS and cuFFT load (no device needed):
// the CUDA backend's float GEMM and FFT use them in the vendor mode (the
// default), and xpmpi's own kernels where they are missing, which is a
// note: the results are right, the speed is not the vendor's.
func vendorFindings() []finding {
	var out []finding
	mode, err := cuda.LibModeFromEnv()
	if err != nil {
		return []finding{problemFinding("gpu libraries", err.Error(), "set XPMPI_CUDA_LIBS to vendor or parity")}
	}
	if mode == cuda.ParityMode {
		return []finding{okFinding("gpu libraries", "XPMPI_CUDA_LIBS=parity: the CUDA backend's GEMM and FFT are xpmpi's kernels (the CPU's bits)")}
	}
	for _, l := range cuda.VendorLibraries() {
		check := strings.ToLower(l.Name)
		if l.Err != "" {
			op, env := "GEMM (gemm.cu)", cuda.CUBLASEnv
			if l.Name == "cuFFT" {
				op, env = "FFT (fft.cu)", cuda.CUFFTEnv
			}
			out = append(out, noteFinding(check, l.String()+": the CUDA backend's "+op+" falls back to xpmpi's kernel",
				"for the vendor's speed on a GPU, install "+l.Name+" (the CUDA toolkit's libraries) or set "+env+" to the library; XPMPI_CUDA_LIBS=parity chooses xpmpi's kernels"))
			continue
		}
		out = append(out, okFinding(check, l.String()))
	}
	return out
}

// childJob runs launcher -np np self args..., and returns rank 0's
// standard output and everything it printed.
func childJob(launcher string, np int, self string, args ...string) (stdout, all string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := []string{"--oversubscribe"}
	if os.Geteuid() == 0 {
		full = append(full, "--allow-run-as-root")
	}
	full = append(full, "-np", strconv.Itoa(np), self)
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, launcher, full...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), o.String() + e.String(), err
}

// lastLine returns the last line of s with words in it.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.Trim(l, "-=") != "" {
			return l
		}
	}
	return ""
}

func launcherFinding(doc jobInfo) finding {
	if !doc.Launched {
		return problemFinding("launcher", "the ranks see none of the launcher variables (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, ...)",
			"start jobs with mpirun/mpiexec/srun --mpi=pmix; or set XPMPI_MPI=1 and a local-rank variable such as LOCAL_RANK")
	}
	for _, r := range doc.Ranks {
		if r.Warning != "" {
			return problemFinding("launcher", fmt.Sprintf("rank %d: %s", r.Rank, r.Warning),
				"the launcher's local rank disagrees with MPI's: check the launcher's rank mapping")
		}
	}
	return okFinding("launcher", "launcher variables and local ranks agree with MPI")
}

// gpuFinding checks whether ranks of one node share a GPU.
func gpuFinding(doc jobInfo, gpus int) finding {
	perHost := map[string]map[string]int{}
	for _, r := range doc.Ranks {
		if perHost[r.Host] == nil {
			perHost[r.Host] = map[string]int{}
		}
		perHost[r.Host][r.GPU]++
	}
	// In the order of host and GPU names, so that a job with several
	// shared GPUs names the same one every time.
	for _, host := range slices.Sorted(maps.Keys(perHost)) {
		m := perHost[host]
		for _, gpu := range slices.Sorted(maps.Keys(m)) {
			if n := m[gpu]; n > 1 {
				return problemFinding("gpu binding", fmt.Sprintf("%d ranks on %s share %s", n, host, gpu),
					fmt.Sprintf("run at most %d ranks per node (one per GPU), or give each rank its own GPU with XPMPI_DEVICE or CUDA_VISIBLE_DEVICES", gpus))
			}
		}
	}
	return okFinding("gpu binding", "one GPU per rank")
}

func awareFinding(doc jobInfo, gpus int, launcher string, np int, self string) finding {
	hints := "build Open MPI with CUDA and UCX, MPICH with ch4:ucx, use MVAPICH2-GDR with MV2_USE_CUDA=1 or Cray MPICH with MPICH_GPU_SUPPORT_ENABLED=1; or leave it: xpmpi stages device buffers through pinned host memory, which is always correct"
	lib := fmt.Sprintf("MPI's own answer: %v (from %s)", doc.CUDAAware, doc.CUDAAwareSource)
	if !doc.CUDAAwareKnown {
		lib = "MPI gives no answer"
	}
	if gpus == 0 {
		return okFinding("cuda-aware", lib+"; no device to probe")
	}
	out, text, err := childJob(launcher, np, self, "doctor", "--probe")
	var verdict string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, probeLine) {
			verdict = strings.TrimSpace(strings.TrimPrefix(l, probeLine))
		}
	}
	switch {
	case err != nil && verdict == "":
		detail := fmt.Sprintf("the probe crashed the MPI job (%v: %s)", err, lastLine(text))
		return problemFinding("cuda-aware", fmt.Sprintf("%s; %s: MPI is not CUDA-aware%s", lib, detail, saveProbe(false, detail)), hints)
	case strings.HasPrefix(verdict, "aware"):
		return okFinding("cuda-aware", lib+"; the probe passed"+saveProbe(true, "a ring of device buffers arrived intact"))
	case strings.HasPrefix(verdict, "no-device"):
		return problemFinding("cuda-aware", fmt.Sprintf("%s; probe: %s", lib, verdict), hints)
	default:
		return problemFinding("cuda-aware", fmt.Sprintf("%s; probe: %s%s", lib, verdict, saveProbe(false, verdict)), hints)
	}
}

// saveProbe records the probe's verdict for later jobs on this host with
// this MPI library (staging.SaveProbe) and says where, or why not.
func saveProbe(aware bool, detail string) string {
	if _, err := staging.SaveProbe(aware, detail); err != nil {
		return fmt.Sprintf("; not recorded: %v", err)
	}
	return fmt.Sprintf("; recorded in %s, where later jobs on this host with this MPI library find it (XPMPI_CUDA_AWARE=1 or 0 overrides it)", staging.ProbeCachePath())
}

func printFindings(w io.Writer, rep doctorReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tSTATUS\tDETAIL")
	for _, f := range rep.Findings {
		status := f.Status
		if status == statusProblem {
			status = "PROBLEM"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Check, status, f.Detail)
	}
	tw.Flush()
	for _, f := range rep.Findings {
		switch {
		case f.Fix == "":
		case f.Status == statusProblem:
			fmt.Fprintf(w, "fix (%s): %s\n", f.Check, f.Fix)
		case f.Status == statusNote:
			fmt.Fprintf(w, "note (%s): %s\n", f.Check, f.Fix)
		}
	}
	if rep.Problems == 0 {
		fmt.Fprintln(w, "no problems found")
	}
}
