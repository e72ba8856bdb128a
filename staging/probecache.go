package staging

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/xpmpi/xpmpi/mpi"
)

// The CUDA-aware probe's verdict outlives the job that ran it: SaveProbe
// writes it to a cache file, keyed by the host and the MPI library's
// identity (implementation and version string), and CUDAAware reads it
// back in later jobs on the same machine with the same library, after an
// explicit setting and the library's own answer.
//
// The file is $XPMPI_PROBE_CACHE, else $XDG_CACHE_HOME/xpmpi/cuda-aware.json,
// else ~/.cache/xpmpi/cuda-aware.json. XPMPI_PROBE_CACHE=off turns the
// cache off.

// ProbeRecord is one cached verdict.
type ProbeRecord struct {
	Host    string    `json:"host"`
	Library string    `json:"library"` // implementation and version
	Aware   bool      `json:"aware"`
	Time    time.Time `json:"time"`
	Detail  string    `json:"detail,omitempty"` // what the probe saw
}

// ProbeCachePath returns the cache file's path, or "" where the cache is
// off or no directory for it is known.
func ProbeCachePath() string {
	if p := strings.TrimSpace(os.Getenv("XPMPI_PROBE_CACHE")); p != "" {
		if p == "off" {
			return ""
		}
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "xpmpi", "cuda-aware.json")
}

// libraryIdentity names the MPI library this binary runs with.
func libraryIdentity() string {
	lib := mpi.LibraryInfo()
	return lib.Implementation + " | " + lib.Version
}

var probeFile sync.Mutex

func readProbeCache(path string) ([]ProbeRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var recs []ProbeRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("staging: the CUDA-aware probe cache %s: %w", path, err)
	}
	return recs, nil
}

// SaveProbe records the verdict of a CUDA-aware probe in this process (as
// RecordCUDAAwareProbe does) and in the cache file, replacing an earlier
// verdict for this host and library. detail says what the probe saw. Call
// it on one rank per host (writes from several are safe but redundant).
func SaveProbe(aware bool, detail string) (ProbeRecord, error) {
	RecordCUDAAwareProbe(aware)
	host, _ := os.Hostname()
	rec := ProbeRecord{Host: host, Library: libraryIdentity(), Aware: aware, Time: time.Now().UTC().Truncate(time.Second), Detail: detail}
	path := ProbeCachePath()
	if path == "" {
		return rec, errors.New("staging: the CUDA-aware probe cache is off (XPMPI_PROBE_CACHE=off) or has no directory")
	}
	probeFile.Lock()
	defer probeFile.Unlock()
	recs, err := readProbeCache(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		recs = nil // a damaged cache is replaced
	}
	kept := recs[:0]
	for _, r := range recs {
		if r.Host != rec.Host || r.Library != rec.Library {
			kept = append(kept, r)
		}
	}
	kept = append(kept, rec)
	b, err := json.MarshalIndent(kept, "", "  ")
	if err != nil {
		return rec, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return rec, fmt.Errorf("staging: saving the CUDA-aware probe: %w", err)
	}
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return rec, fmt.Errorf("staging: saving the CUDA-aware probe: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return rec, fmt.Errorf("staging: saving the CUDA-aware probe: %w", err)
	}
	probeLoaded.ok = false
	return rec, nil
}

// CachedProbe returns the cached verdict for this host and MPI library, if
// there is one. The file is read once per process (and again after
// SaveProbe or ClearCUDAAware, or when XPMPI_PROBE_CACHE changes).
func CachedProbe() (ProbeRecord, bool) {
	path := ProbeCachePath()
	if path == "" {
		return ProbeRecord{}, false
	}
	probeFile.Lock()
	defer probeFile.Unlock()
	if probeLoaded.ok && probeLoaded.path == path {
		return probeLoaded.rec, probeLoaded.found
	}
	probeLoaded.path, probeLoaded.ok, probeLoaded.found = path, true, false
	recs, err := readProbeCache(path)
	if err != nil {
		return ProbeRecord{}, false
	}
	host, _ := os.Hostname()
	id := libraryIdentity()
	for _, r := range recs {
		if r.Host == host && r.Library == id {
			probeLoaded.rec, probeLoaded.found = r, true
			return r, true
		}
	}
	return ProbeRecord{}, false
}

// probeLoaded is the cache file as last read; probeFile guards it.
var probeLoaded struct {
	path      string
	ok, found bool
	rec       ProbeRecord
}

func forgetProbeCache() {
	probeFile.Lock()
	probeLoaded.ok = false
	probeFile.Unlock()
}

// ErrNotCUDAAware is (wrapped in) RequireCUDAAware's error.
var ErrNotCUDAAware = errors.New("MPI is not known to take device memory")

// RequireCUDAAware returns nil if MPI may be handed device memory, and
// otherwise an error that says where the answer came from and how to get a
// CUDA-aware MPI, or to stage through host memory instead.
func RequireCUDAAware() error {
	a := CUDAAware()
	if a.Known && a.Aware {
		return nil
	}
	why := "nobody could tell (no setting, no answer from the library, no probe on this host)"
	if a.Known {
		why = "the answer from " + a.Source + " is no"
	}
	return fmt.Errorf("staging: %w: %s. A CUDA-aware MPI: Open MPI built with CUDA and UCX (ompi_info | grep -i cuda), "+
		"MPICH with ch4:ucx and a CUDA-enabled UCX, MVAPICH2-GDR with MV2_USE_CUDA=1, Cray MPICH with MPICH_GPU_SUPPORT_ENABLED=1; "+
		"or stage through host memory (the default where the answer is no or unknown). "+
		"xpmpi doctor probes and records the answer; XPMPI_CUDA_AWARE=1 or 0 sets it", ErrNotCUDAAware, why)
}
