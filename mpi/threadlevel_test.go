package mpi

import (
	"strings"
	"testing"
)

func TestRequestedThreadLevel(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want threadRequest
		bad  bool
	}{
		{env: "", want: askMultiple},
		{env: "multiple", want: askMultiple},
		{env: " Multiple ", want: askMultiple},
		{env: "serialized", want: askSerialized},
		{env: "SERIALIZED", want: askSerialized},
		{env: "single", want: askSingle},
		{env: "Single", want: askSingle},
		{env: "funneled", bad: true},
		{env: "singel", bad: true},
		{env: "3", bad: true},
	} {
		t.Setenv(ThreadLevelEnv, tc.env)
		got, err := requestedThreadLevel()
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), ThreadLevelEnv) || !strings.HasPrefix(err.Error(), "mpi: ") {
				t.Errorf("%s=%q: %v, want an error naming the variable", ThreadLevelEnv, tc.env, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s=%q: %v, %v, want %v", ThreadLevelEnv, tc.env, got, err, tc.want)
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
