package mpi

import (
	"strings"
	"testing"
)

func TestRequestedThreadLevel(t *testing.T) {
	for _, tc := range []struct {
		env      string
		multiple bool
		bad      bool
	}{
		{env: "", multiple: defaultThreadLevel == "multiple"},
		{env: "multiple", multiple: true},
		{env: " Multiple ", multiple: true},
		{env: "serialized"},
		{env: "SERIALIZED"},
		{env: "funneled", bad: true},
		{env: "single", bad: true},
		{env: "3", bad: true},
	} {
		t.Setenv(ThreadLevelEnv, tc.env)
		multiple, err := requestedThreadLevel()
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), ThreadLevelEnv) || !strings.HasPrefix(err.Error(), "mpi: ") {
				t.Errorf("%s=%q: %v, want an error naming the variable", ThreadLevelEnv, tc.env, err)
			}
			continue
		}
		if err != nil || multiple != tc.multiple {
			t.Errorf("%s=%q: multiple %v, %v, want %v", ThreadLevelEnv, tc.env, multiple, err, tc.multiple)
		}
	}
}
