package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// hostile are values no XPMPI_ variable takes: negative, huge,
// non-numeric, 100 KB, not UTF-8. The file-name and suffix variables
// (anyText) take the first three.
var hostile = map[string]string{
	"negative":    "-1",
	"huge":        "99999999999999999999999",
	"non-numeric": "abc",
	"100 KB":      strings.Repeat("7", 100<<10),
	"non-UTF-8":   "1\xff\xfe",
}

// Every variable in envVars with every hostile value: checkEnv refuses it
// with one short line that names the variable; a good value passes.
func TestCheckEnvHostile(t *testing.T) {
	good := map[string]string{
		"XPMPI_BACKEND": "cpu", "XPMPI_BACKEND_STRICT": "0", "XPMPI_THREADS": "2", "XPMPI_CUDA_AWARE": "0",
		"XPMPI_IO": "posix", "XPMPI_LOG": "warn", "XPMPI_MPI": "0", "XPMPI_DEVICE": "0", "XPMPI_CHECK": "1",
		"XPMPI_THREAD_LEVEL": "serialized", "XPMPI_MPI_WAIT": "sleep", "XPMPI_KERNELS_STRICT": "yes",
		"XPMPI_CUDA_DEBUG": "0", "XPMPI_GEMM": "gonum", "XPMPI_CPU_VECTOR": "off", "XPMPI_CPU_AVX512": "on",
		"XPMPI_PTX_CACHE": "off", "XPMPI_OPENBLAS": "/usr/lib/libopenblas.so.0", "XPMPI_NVRTC": "/x/libnvrtc.so",
		"XPMPI_LIBCUDA": "/x/libcuda.so", "XPMPI_CUDA_LIBS": "parity", "XPMPI_CUBLAS": "/x/libcublas.so.12", "XPMPI_CUFFT": "/x/libcufft.so.11", "XPMPI_PROBE_CACHE": "off", "XPMPI_BENCH_REF": "/x/ref", "XPMPI_BENCH_COMMIT": "abc123", "XPMPI_BENCH_SLOWDOWN": "W3=1.3",
		"XPMPI_FAILWRITE_RANK": "1", "XPMPI_FAILWRITE_ERRNO": "ENOSPC", "XPMPI_FAILWRITE_MATCH": ".json",
	}
	for _, ev := range envVars {
		for _, ev2 := range envVars {
			t.Setenv(ev2.name, "")
		}
		g, ok := good[ev.name]
		if !ok {
			t.Errorf("%s: no good value in the test", ev.name)
			continue
		}
		t.Setenv(ev.name, g)
		if err := checkEnv(); err != nil {
			t.Errorf("%s=%q refused: %v", ev.name, g, err)
		}
		for what, v := range hostile {
			anyText := slices.Contains([]string{"XPMPI_OPENBLAS", "XPMPI_NVRTC", "XPMPI_LIBCUDA", "XPMPI_CUBLAS", "XPMPI_CUFFT", "XPMPI_PROBE_CACHE", "XPMPI_BENCH_REF", "XPMPI_BENCH_COMMIT", "XPMPI_FAILWRITE_MATCH"}, ev.name)
			if anyText && (what == "negative" || what == "huge" || what == "non-numeric") {
				continue
			}
			t.Setenv(ev.name, v)
			err := checkEnv()
			switch {
			case err == nil:
				t.Errorf("%s (%s) accepted", ev.name, what)
			case !strings.Contains(err.Error(), ev.name+"=") || strings.Contains(err.Error(), "\n") || len(err.Error()) > 400:
				t.Errorf("%s (%s): want one short line naming the variable, got %d bytes: %.400s", ev.name, what, len(err.Error()), err)
			}
		}
		t.Setenv(ev.name, "")
	}
}

// envRead matches where the source reads an XPMPI_ variable.
var envRead = regexp.MustCompile(`(?:Getenv|LookupEnv)\("(XPMPI_[A-Z0-9_]+)"\)|Env\s*=\s*"(XPMPI_[A-Z0-9_]+)"`)

// Every XPMPI_ variable that xpmpi's source reads is in envVars, so that
// checkEnv (and doctor) check it; the test harnesses' own are not.
func TestEnvVarsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, ev := range envVars {
		listed[ev.name] = true
	}
	harness := map[string]bool{"internal/fakecudatest": true, "tests": true, "mpi/mpitest": true, "dist/disttest": true}
	root := "../.."
	found := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (harness[rel] || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envRead.FindAllStringSubmatch(string(b), -1) {
			name := m[1] + m[2]
			found[name] = true
			if !listed[name] {
				t.Errorf("%s reads %s, which envVars does not list", rel, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range listed {
		if !found[name] {
			t.Errorf("envVars lists %s, which no source file reads", name)
		}
	}
}
