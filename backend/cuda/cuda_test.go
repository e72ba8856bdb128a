package cuda_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/cuda"
)

// Reasons why the backend is unavailable where there is no GPU.
const (
	noDriver = "cuda: cannot load libcuda.so.1 (no NVIDIA driver): "
	noDevice = "cuda: driver loaded but no CUDA device: "
)

// unavailable returns why CUDA cannot run here, or skips the test where it
// can.
func unavailable(t *testing.T) error {
	t.Helper()
	err := cuda.Available()
	if err == nil {
		t.Skip("a CUDA driver and device are present: this test is for machines without")
	}
	return err
}

// TestNoDriver checks that, without a driver or a GPU, looking up the
// backend is an error that says which, and that nothing crashes on the way.
// XPMPI_CUDA_EXPECT, if set, is the reason the error must start with (the
// fake-driver test sets it for a driver without devices).
func TestNoDriver(t *testing.T) {
	err := unavailable(t)
	_, lerr := backend.Lookup("cuda")
	if lerr == nil || lerr.Error() != err.Error() {
		t.Fatalf("Lookup(cuda) = %v, Available() = %v; want the same error", lerr, err)
	}
	msg := err.Error()
	t.Logf("Lookup(cuda): %s", msg)
	want := os.Getenv("XPMPI_CUDA_EXPECT")
	switch {
	case want != "":
		if !strings.HasPrefix(msg, want) {
			t.Errorf("error %q, want one starting %q", msg, want)
		}
	case os.Getenv("XPMPI_LIBCUDA") == "":
		if !strings.HasPrefix(msg, noDriver) && !strings.HasPrefix(msg, noDevice) {
			t.Errorf("error %q, want one starting %q or %q", msg, noDriver, noDevice)
		}
	}
	// Everything that needs the driver says the same, and does not crash.
	if _, err2 := cuda.Default(); err2 == nil || err2.Error() != msg {
		t.Errorf("Default() = %v", err2)
	}
	if _, err2 := cuda.Open(0); err2 == nil || err2.Error() != msg {
		t.Errorf("Open(0) = %v", err2)
	}
	if _, err2 := cuda.Devices(); err2 == nil {
		t.Error("Devices(): no error")
	}
	if n, err2 := cuda.DeviceCount(); n != 0 || err2 == nil {
		t.Errorf("DeviceCount() = %d, %v", n, err2)
	}
	if _, err2 := cuda.DriverVersion(); err2 == nil {
		t.Error("DriverVersion(): no error")
	}
	// A second lookup gives the same answer (the load is tried once).
	if _, err2 := backend.Lookup("cuda"); err2 == nil || err2.Error() != msg {
		t.Errorf("second Lookup(cuda) = %v", err2)
	}
}

// TestFallback checks backend selection without CUDA: SelectStrict is an
// error and changes nothing; Select falls back to the CPU and reports it.
// Selection is global: it is restored to the CPU.
func TestFallback(t *testing.T) {
	reason := unavailable(t).Error()
	t.Cleanup(func() {
		if err := backend.Select("cpu"); err != nil {
			t.Errorf("restoring the CPU backend: %v", err)
		}
	})
	if err := backend.Select("cpu"); err != nil {
		t.Fatal(err)
	}
	if err := backend.SelectStrict("cuda"); err == nil || err.Error() != reason {
		t.Errorf("SelectStrict(cuda) = %v, want %q", err, reason)
	}
	if got := backend.Current().Name(); got != "cpu" {
		t.Errorf("after a failed SelectStrict, %s is selected", got)
	}
	if err := backend.Select("cuda"); err != nil {
		t.Fatalf("Select(cuda) = %v, want a fallback to cpu", err)
	}
	info := backend.GetInfo()
	if info.Selected != "cpu" || info.Requested != "cuda" || info.Fallback != reason {
		t.Errorf("GetInfo() = %+v; want cpu selected, cuda requested, fallback %q", info, reason)
	}
	found := false
	for _, st := range info.Backends {
		if st.Name == "cuda" {
			found = true
			if st.Available || st.Reason != reason {
				t.Errorf("cuda status %+v, want unavailable because %q", st, reason)
			}
		}
	}
	if !found {
		t.Errorf("GetInfo() lists no cuda backend: %+v", info.Backends)
	}
}

// TestEnvFallback checks XPMPI_BACKEND=cuda in a fresh process: the default
// (non-strict) selection falls back to the CPU with the reason in GetInfo,
// and XPMPI_BACKEND_STRICT=1 makes it a panic with the reason.
func TestEnvFallback(t *testing.T) {
	if os.Getenv("XPMPI_CUDA_TEST_CHILD") == "env" {
		defer func() {
			if r := recover(); r != nil {
				os.Stdout.WriteString("PANIC: " + r.(string) + "\n")
				os.Exit(3)
			}
		}()
		b := backend.Current()
		json.NewEncoder(os.Stdout).Encode(backend.GetInfo())
		if b.Name() != "cpu" {
			os.Exit(2)
		}
		os.Exit(0)
	}
	reason := unavailable(t).Error()
	run := func(strict string) (string, string, int) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvFallback$")
		cmd.Env = append(os.Environ(), "XPMPI_CUDA_TEST_CHILD=env", "XPMPI_BACKEND=cuda", "XPMPI_BACKEND_STRICT="+strict)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}
	out, errOut, code := run("")
	if code != 0 {
		t.Fatalf("XPMPI_BACKEND=cuda: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var info backend.Info
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	if info.Selected != "cpu" || info.Requested != "cuda" || info.Fallback != reason {
		t.Errorf("XPMPI_BACKEND=cuda: info %+v, want a fallback to cpu because %q", info, reason)
	}
	if !strings.Contains(errOut, `backend "cuda" is unavailable`) || !strings.Contains(errOut, "using cpu") {
		t.Errorf("XPMPI_BACKEND=cuda: the fallback is not reported on stderr: %q", errOut)
	}
	out, _, code = run("1")
	if code != 3 || !strings.Contains(out, "XPMPI_BACKEND=cuda") || !strings.Contains(out, reason) {
		t.Errorf("XPMPI_BACKEND_STRICT=1: exit %d, output %q; want a panic with the reason", code, out)
	}
}
