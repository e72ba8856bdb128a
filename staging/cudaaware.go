package staging

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/xpmpi/xpmpi/mpi"
)

// CUDAAwareness is the answer to "can MPI take device pointers?", with where
// the answer came from.
type CUDAAwareness struct {
	Aware  bool   // MPI may be handed device memory
	Known  bool   // false: nobody could tell; stage through host memory
	Source string // "XPMPI_CUDA_AWARE", "SetCUDAAware", "library", "probe", "probe cache PATH (TIME)", or "unknown"
}

var cudaAware struct {
	mu  sync.Mutex
	set *CUDAAwareness
}

// SetCUDAAware records an explicit answer, which wins over every other
// source but XPMPI_CUDA_AWARE.
func SetCUDAAware(aware bool) {
	cudaAware.mu.Lock()
	defer cudaAware.mu.Unlock()
	cudaAware.set = &CUDAAwareness{Aware: aware, Known: true, Source: "SetCUDAAware"}
}

// RecordCUDAAwareProbe records the result of a device probe (ProbeCUDAAware,
// run in a process of its own), used where no explicit setting and no
// library answer exist. SaveProbe records it and caches it for later jobs.
func RecordCUDAAwareProbe(aware bool) {
	cudaAware.mu.Lock()
	defer cudaAware.mu.Unlock()
	if cudaAware.set == nil || cudaAware.set.Source == "probe" {
		cudaAware.set = &CUDAAwareness{Aware: aware, Known: true, Source: "probe"}
	}
}

// CUDAAware returns whether MPI accepts device pointers, and where the
// answer came from: first an explicit setting (XPMPI_CUDA_AWARE=1|0, then
// SetCUDAAware), then the library's own answer (mpi.LibraryCUDAAware,
// where mpi-ext.h provides MPIX_Query_cuda_support), then a probe recorded
// in this process, then one cached by an earlier job on this host with
// this library (SaveProbe). Known is false where none of them answers:
// a Staging then stages device buffers through host memory, which is
// always correct, while a strict one (Strict) reports an error that asks
// to set or detect the answer.
//
// It is what a Staging asks unless WithCUDAAware says otherwise, and so
// what package dist hands MPI by.
func CUDAAware() CUDAAwareness {
	if aware, set, err := CUDAAwareFromEnv(); set && err == nil {
		return CUDAAwareness{Aware: aware, Known: true, Source: "XPMPI_CUDA_AWARE"}
	}
	cudaAware.mu.Lock()
	set := cudaAware.set
	cudaAware.mu.Unlock()
	if set != nil && set.Source == "SetCUDAAware" {
		return *set
	}
	if aware, known := mpi.LibraryCUDAAware(); known {
		return CUDAAwareness{Aware: aware, Known: true, Source: "library"}
	}
	if set != nil {
		return *set
	}
	if r, ok := CachedProbe(); ok {
		return CUDAAwareness{Aware: r.Aware, Known: true, Source: "probe cache " + ProbeCachePath() + " (" + r.Time.Format(time.DateTime) + ")"}
	}
	return CUDAAwareness{Source: "unknown"}
}

// ClearCUDAAware forgets the answers recorded by SetCUDAAware and
// RecordCUDAAwareProbe, and the cached probe as read (the next CUDAAware
// reads the cache file again).
func ClearCUDAAware() {
	cudaAware.mu.Lock()
	defer cudaAware.mu.Unlock()
	cudaAware.set = nil
	forgetProbeCache()
}

// CUDAAwareFromEnv returns the answer XPMPI_CUDA_AWARE gives: set is false
// where it is unset or empty, and err names the variable where its value
// is none of 1, true, yes, 0, false, no. CUDAAware ignores a value this
// refuses (the CLI refuses to start on it).
func CUDAAwareFromEnv() (aware, set bool, err error) {
	v := strings.TrimSpace(os.Getenv("XPMPI_CUDA_AWARE"))
	switch strings.ToLower(v) {
	case "":
		return false, false, nil
	case "1", "true", "yes":
		return true, true, nil
	case "0", "false", "no":
		return false, true, nil
	}
	return false, false, fmt.Errorf("XPMPI_CUDA_AWARE=%q: want 1 (MPI takes device memory) or 0 (stage through host memory); unset to ask the library and the recorded probe", v)
}
