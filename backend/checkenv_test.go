package backend_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	_ "github.com/xpmpi/xpmpi/backend/cpu"
)

func init() {
	// The deprecated forwarder of driver.Register, which must keep working.
	backend.Register("unusable", func() (backend.Backend, error) {
		return nil, errors.New("unusable: no device here")
	})
}

func TestCheckEnv(t *testing.T) {
	// The backends registered in this test binary (other tests of the
	// package register the fake device too), as CheckEnv lists them.
	choices := "choices: " + strings.Join(backend.Names(), ", ")
	for _, c := range []struct {
		backend, strict string
		want            []string // in the error; nil: no error
	}{
		{"", "", nil},
		{"cpu", "", nil},
		{" cpu ", "1", nil},
		{"unusable", "", nil}, // falls back to cpu, reported by Select
		{"unusable", "0", nil},
		{"foo", "", []string{`XPMPI_BACKEND="foo"`, "no such backend", choices}},
		{"foo", "1", []string{`XPMPI_BACKEND="foo"`, choices}},
		{"unusable", "1", []string{`XPMPI_BACKEND="unusable"`, "XPMPI_BACKEND_STRICT=1", "no device here", choices}},
		{"cpu", "yes", []string{`XPMPI_BACKEND_STRICT="yes"`, "choices: 0, 1"}},
	} {
		t.Setenv("XPMPI_BACKEND", c.backend)
		t.Setenv("XPMPI_BACKEND_STRICT", c.strict)
		err := backend.CheckEnv()
		if c.want == nil {
			if err != nil {
				t.Errorf("XPMPI_BACKEND=%q XPMPI_BACKEND_STRICT=%q: %v, want no error", c.backend, c.strict, err)
			}
			continue
		}
		var ee *backend.EnvError
		if !errors.As(err, &ee) {
			t.Errorf("XPMPI_BACKEND=%q XPMPI_BACKEND_STRICT=%q: %v, want an *EnvError", c.backend, c.strict, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("XPMPI_BACKEND=%q XPMPI_BACKEND_STRICT=%q: %q lacks %q", c.backend, c.strict, err, w)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: more than one line", err)
		}
	}
}

func TestGetInfoBadEnv(t *testing.T) {
	// Nothing is selected yet in this test binary (this test runs first).
	t.Setenv("XPMPI_BACKEND", "foo")
	info := backend.GetInfo() // no panic
	if info.Selected != "" || !strings.Contains(info.Error, `XPMPI_BACKEND="foo"`) {
		t.Errorf("XPMPI_BACKEND=foo: selected %q, error %q; want none and the variable named", info.Selected, info.Error)
	}
	if len(info.Backends) < 2 {
		t.Errorf("XPMPI_BACKEND=foo: %d backends described, want every registered one", len(info.Backends))
	}
	t.Setenv("XPMPI_BACKEND", "cpu")
	if info := backend.GetInfo(); info.Selected != "cpu" || info.Error != "" {
		t.Errorf("XPMPI_BACKEND=cpu: selected %q, error %q", info.Selected, info.Error)
	}
}
