package staging_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/staging"
)

func TestCUDAAwareFromEnv(t *testing.T) {
	for _, c := range []struct {
		v          string
		aware, set bool
	}{{"", false, false}, {"1", true, true}, {"TRUE", true, true}, {"yes", true, true}, {"0", false, true}, {" no ", false, true}, {"false", false, true}} {
		t.Setenv("XPMPI_CUDA_AWARE", c.v)
		aware, set, err := staging.CUDAAwareFromEnv()
		if err != nil || aware != c.aware || set != c.set {
			t.Errorf("XPMPI_CUDA_AWARE=%q: %v, %v, %v, want %v, %v", c.v, aware, set, err, c.aware, c.set)
		}
	}
	for _, v := range []string{"maybe", "2", "auto"} {
		t.Setenv("XPMPI_CUDA_AWARE", v)
		if _, set, err := staging.CUDAAwareFromEnv(); err == nil || set || !strings.Contains(err.Error(), "XPMPI_CUDA_AWARE") {
			t.Errorf("XPMPI_CUDA_AWARE=%q: set %v, %v, want an error naming the variable", v, set, err)
		}
		// CUDAAware does not take a refused value as an answer.
		if a := staging.CUDAAware(); a.Source == "XPMPI_CUDA_AWARE" {
			t.Errorf("XPMPI_CUDA_AWARE=%q: CUDAAware() = %+v", v, a)
		}
	}
}
