package staging_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/staging"
)

// A verdict saved by one job is what a later job's CUDAAware answers, for
// the same host and library, after explicit settings and the library.
func TestProbeCache(t *testing.T) {
	c := mpitest.World(t)
	if aware, known := mpi.LibraryCUDAAware(); known {
		t.Skipf("the library answers itself (aware %v): the cache is never consulted", aware)
	}
	t.Setenv("XPMPI_CUDA_AWARE", "")
	path := filepath.Join(t.TempDir(), fmt.Sprintf("rank%d", c.Rank()), "cache.json")
	t.Setenv("XPMPI_PROBE_CACHE", path)
	staging.ClearCUDAAware()
	defer staging.ClearCUDAAware()
	if a := staging.CUDAAware(); a.Known {
		t.Fatalf("no cache yet: %+v", a)
	}
	if err := staging.RequireCUDAAware(); !errors.Is(err, staging.ErrNotCUDAAware) || !strings.Contains(err.Error(), "MPICH_GPU_SUPPORT_ENABLED=1") {
		t.Fatalf("RequireCUDAAware with no answer: %v", err)
	}
	for _, aware := range []bool{true, false, true} {
		rec, err := staging.SaveProbe(aware, "ring of 4 float64")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Aware != aware || rec.Library == "" || rec.Host == "" {
			t.Fatalf("SaveProbe: %+v", rec)
		}
		// A new process: forget what this one recorded.
		staging.ClearCUDAAware()
		a := staging.CUDAAware()
		if !a.Known || a.Aware != aware || !strings.HasPrefix(a.Source, "probe cache "+path) {
			t.Fatalf("after SaveProbe(%v) and a fresh start: %+v", aware, a)
		}
		if got, ok := staging.CachedProbe(); !ok || got.Aware != aware || got.Detail != "ring of 4 float64" {
			t.Fatalf("CachedProbe: %+v, %v", got, ok)
		}
	}
	if err := staging.RequireCUDAAware(); err != nil {
		t.Fatalf("RequireCUDAAware after an aware verdict: %v", err)
	}
	// An explicit setting still wins.
	t.Setenv("XPMPI_CUDA_AWARE", "0")
	if a := staging.CUDAAware(); a.Aware || a.Source != "XPMPI_CUDA_AWARE" {
		t.Fatalf("XPMPI_CUDA_AWARE=0 over the cache: %+v", a)
	}
	t.Setenv("XPMPI_CUDA_AWARE", "")
	// One record per host and library: three saves left one.
	b, err := os.ReadFile(path)
	if err != nil || strings.Count(string(b), `"host"`) != 1 {
		t.Fatalf("cache file: %v\n%s", err, b)
	}
	// Another library's verdict is not this one's.
	os.WriteFile(path, []byte(`[{"host":"`+hostname(t)+`","library":"Some MPI | 0.1","aware":true}]`), 0o644)
	staging.ClearCUDAAware()
	if a := staging.CUDAAware(); a.Known {
		t.Fatalf("a verdict for another library answered: %+v", a)
	}
	// A damaged file is no answer, and the next save replaces it.
	os.WriteFile(path, []byte("{not json"), 0o644)
	staging.ClearCUDAAware()
	if a := staging.CUDAAware(); a.Known {
		t.Fatalf("a damaged cache answered: %+v", a)
	}
	if _, err := staging.SaveProbe(false, ""); err != nil {
		t.Fatalf("SaveProbe over a damaged cache: %v", err)
	}
}

func TestProbeCacheOff(t *testing.T) {
	t.Setenv("XPMPI_PROBE_CACHE", "off")
	if p := staging.ProbeCachePath(); p != "" {
		t.Fatalf("ProbeCachePath with the cache off = %q", p)
	}
	defer staging.ClearCUDAAware()
	if _, err := staging.SaveProbe(true, ""); err == nil {
		t.Fatal("SaveProbe with the cache off: no error")
	}
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}
