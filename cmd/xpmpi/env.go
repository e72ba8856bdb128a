package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/bench"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/envvar"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/launch"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/staging"
)

// envVar is an XPMPI_ variable that xpmpi reads, with the check of its
// value: the function of the package that reads it, where it has one, so
// that what is refused here is what the package would ignore.
type envVar struct {
	name  string
	check func(v string) error // v is the variable's value, not empty
}

// choice returns a check that accepts the values given (any case, spaces
// around ignored).
func choice(name, hint string, values ...string) func(string) error {
	return func(v string) error {
		for _, c := range values {
			if strings.EqualFold(strings.TrimSpace(v), c) {
				return nil
			}
		}
		return fmt.Errorf("%s=%s: want %s", name, envvar.Quote(v), hint)
	}
}

// anyText accepts any value within envvar's limits (a file name, a
// suffix).
func anyText(string) error { return nil }

// envVars are every XPMPI_ variable that the library and the CLI read
// (the test harness's own, XPMPI_KERNELS_EMULATION and
// XPMPI_FAKECUDA_CACHE of internal/fakecudatest, dist/disttest's, and the
// tests/ package's, are not read by xpmpi). TestEnvVarsListed checks the list against the
// source.
var envVars = []envVar{
	{"XPMPI_BACKEND", func(string) error { return backend.CheckEnv() }},
	{"XPMPI_BACKEND_STRICT", func(string) error { return backend.CheckEnv() }},
	{"XPMPI_THREADS", func(string) error { _, err := backend.ThreadsFromEnv(); return err }},
	{"XPMPI_CUDA_AWARE", func(string) error { _, _, err := staging.CUDAAwareFromEnv(); return err }},
	{"XPMPI_IO", func(string) error { _, err := dist.WritePathFromEnv(); return err }},
	{"XPMPI_LOG", func(string) error { _, _, err := logLevelFromEnv(); return err }},
	{"XPMPI_MPI", func(string) error { _, _, err := launch.OverrideFromEnv(); return err }},
	{"XPMPI_DEVICE", func(string) error { _, _, err := cuda.DeviceFromEnv(); return err }},
	{"XPMPI_CHECK", func(string) error { _, err := mpi.CheckingFromEnv(); return err }},
	{"XPMPI_THREAD_LEVEL", func(string) error { return mpi.CheckInitEnv() }},
	{"XPMPI_MPI_WAIT", func(string) error { return mpi.CheckInitEnv() }},
	{"XPMPI_KERNELS_STRICT", func(string) error { _, err := kernels.StrictFromEnv(); return err }},
	{"XPMPI_CUDA_DEBUG", func(string) error { _, err := kernels.DebugFromEnv(); return err }},
	{"XPMPI_GEMM", choice("XPMPI_GEMM", "auto, openblas or gonum (unset: auto)", "auto", "openblas", "gonum")},
	{"XPMPI_CPU_VECTOR", choice("XPMPI_CPU_VECTOR", "off (Go loops instead of the AVX2 kernels) or on (unset: on)", "on", "off")},
	{"XPMPI_CPU_AVX512", choice("XPMPI_CPU_AVX512", "off (no AVX-512 kernels) or on (every AVX-512 kernel; unset: all but the CPU backend's Dot, Axpy and Axpby on AMD processors)", "on", "off")},
	{"XPMPI_PTX_CACHE", choice("XPMPI_PTX_CACHE", "off or 0 (no PTX cache on disk) or on (unset: on)", "on", "off", "0")},
	{"XPMPI_OPENBLAS", anyText},
	{"XPMPI_NVRTC", anyText},
	{"XPMPI_LIBCUDA", anyText},
	{"XPMPI_CUDA_LIBS", func(string) error { _, err := cuda.LibModeFromEnv(); return err }},
	{"XPMPI_CUBLAS", anyText},
	{"XPMPI_CUFFT", anyText},
	{"XPMPI_PROBE_CACHE", anyText},
	{"XPMPI_BENCH_REF", anyText},
	{"XPMPI_BENCH_COMMIT", anyText},
	{"XPMPI_BENCH_SLOWDOWN", func(string) error { return bench.CheckSlowdownEnv() }},
	{"XPMPI_FAILWRITE_RANK", func(v string) error {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 0 {
			return fmt.Errorf("XPMPI_FAILWRITE_RANK=%s: want a rank, 0 or more (fault tests only)", envvar.Quote(v))
		}
		return nil
	}},
	{"XPMPI_FAILWRITE_ERRNO", choice("XPMPI_FAILWRITE_ERRNO", "EIO or ENOSPC (fault tests only)", "EIO", "ENOSPC")},
	{"XPMPI_FAILWRITE_MATCH", anyText},
}

// checkEnv refuses the XPMPI_ variables whose values the library would
// otherwise ignore, panic on, or only trip on later, naming each with its
// value (the first 64 bytes of a long one) and its choices, where there
// are few, one line each: every variable of envVars, where it is set.
// Any value longer than envvar.MaxLen or not UTF-8 is refused.
func checkEnv() error {
	var errs []error
	seen := map[string]bool{}
	for _, ev := range envVars {
		v := os.Getenv(ev.name)
		if v == "" {
			continue
		}
		err := envvar.Check(ev.name, v)
		if err == nil {
			err = ev.check(v)
		}
		// Two variables with one check (XPMPI_BACKEND and _STRICT) give
		// their error once.
		if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
