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

func TestRequestedWaitMode(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int
		bad  bool
	}{
		{env: "", want: -1},
		{env: "auto", want: -1},
		{env: " Sleep ", want: 1},
		{env: "block", want: 0},
		{env: "BLOCK", want: 0},
		{env: "spin", bad: true},
		{env: "1", bad: true},
	} {
		t.Setenv(WaitModeEnv, tc.env)
		got, err := requestedWaitMode()
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), WaitModeEnv) || !strings.HasPrefix(err.Error(), "mpi: ") {
				t.Errorf("%s=%q: %v, want an error naming the variable", WaitModeEnv, tc.env, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s=%q: %d, %v, want %d", WaitModeEnv, tc.env, got, err, tc.want)
		}
	}
}
