package backend_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
)

func TestThreadsFromEnv(t *testing.T) {
	for v, want := range map[string]int{"": 0, " ": 0, "3": 3, " 12 ": 12} {
		t.Setenv("XPMPI_THREADS", v)
		if n, err := backend.ThreadsFromEnv(); err != nil || n != want {
			t.Errorf("XPMPI_THREADS=%q: %d, %v, want %d", v, n, err, want)
		}
	}
	for _, v := range []string{"0", "-2", "many", "1.5", "4x"} {
		t.Setenv("XPMPI_THREADS", v)
		n, err := backend.ThreadsFromEnv()
		if err == nil || !strings.Contains(err.Error(), "XPMPI_THREADS") {
			t.Errorf("XPMPI_THREADS=%q: %d, %v, want an error naming the variable", v, n, err)
		}
		// The library itself falls back to the default.
		if d := backend.DefaultThreads(); d < 1 {
			t.Errorf("XPMPI_THREADS=%q: DefaultThreads() = %d", v, d)
		}
	}
	t.Setenv("XPMPI_THREADS", "5")
	if d := backend.DefaultThreads(); d != 5 {
		t.Errorf("XPMPI_THREADS=5: DefaultThreads() = %d", d)
	}
}
