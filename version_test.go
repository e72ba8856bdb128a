package xpmpi

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	dep := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: replace}
	}
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"main module from a working tree", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, "devel"},
		{"main module at a tag", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.4.2"}}, "v0.4.2"},
		{"a dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/prog", Version: "(devel)"},
			Deps: []*debug.Module{dep("gonum.org/v1/gonum", "v0.17.0", nil), dep(modulePath, "v0.5.0-rc.1", nil)}}, "v0.5.0-rc.1"},
		{"a dependency replaced by a directory", debug.BuildInfo{Main: debug.Module{Path: "example.com/prog"},
			Deps: []*debug.Module{dep(modulePath, "v0.5.0", dep("../xpmpi", "", nil))}}, "devel"},
		{"a dependency replaced by a fork", debug.BuildInfo{Main: debug.Module{Path: "example.com/prog"},
			Deps: []*debug.Module{dep(modulePath, "v0.5.0", dep("example.com/fork", "v0.5.1", nil))}}, "v0.5.1"},
		{"not linked", debug.BuildInfo{Main: debug.Module{Path: "example.com/prog", Version: "v1.0.0"}}, "devel"},
	} {
		if got := versionOf(&c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestRevisionOf(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, c := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, "unknown"},
		{set("vcs", "git", "vcs.revision", "0123abcd", "vcs.modified", "false"), "0123abcd"},
		{set("vcs.modified", "true", "vcs.revision", "0123abcd"), "0123abcd (modified)"},
		{set("vcs.modified", "true"), "unknown"},
	} {
		if got := revisionOf(&debug.BuildInfo{Settings: c.settings}); got != c.want {
			t.Errorf("%v: %q, want %q", c.settings, got, c.want)
		}
	}
}

func TestRequireVersion(t *testing.T) {
	for _, c := range []struct {
		have, min string
		ok        bool
	}{
		{"v0.4.2", "v0.4.2", true},
		{"v0.4.2", "0.4.1", true},
		{"v0.4.2", "v0.4.3", false},
		{"v0.4.2", "v0.5", false},
		{"v1.0.0", "v0.9.9", true},
		{"v0.10.0", "v0.9.0", true}, // numeric, not lexical
		{"v0.5.0-rc.1", "v0.5.0", false},
		{"v0.5.0", "v0.5.0-rc.1", true},
		{"v0.5.0-rc.2", "v0.5.0-rc.10", false},
		{"v0.5.0-alpha", "v0.5.0-1", true},
		{"v0.0.0-20260101120000-0123456789ab", "v0.1.0", false},
		{"v0.4.2+meta", "v0.4.2", true},
		{"devel", "v9.9.9", true},
		{"v0.4.2", "latest", false},
		{"v0.4.2", "v1.2.3.4", false},
		{"v0.4.2", "v01.2.3", false},
		{"garbage", "v0.1.0", false},
	} {
		err := requireVersion(c.have, c.min)
		if (err == nil) != c.ok {
			t.Errorf("have %s, min %s: %v, want ok=%v", c.have, c.min, err, c.ok)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "xpmpi: ") {
			t.Errorf("have %s, min %s: %q does not start with xpmpi:", c.have, c.min, err)
		}
	}
}

func TestVersionOfThisBinary(t *testing.T) {
	// A test binary is built from the working tree and records no VCS
	// revision: the fallbacks, never an empty string.
	if v := Version(); v != "devel" {
		t.Errorf("Version() = %q in a test of the module itself, want devel", v)
	}
	if r := Revision(); r == "" {
		t.Error("Revision() is empty")
	}
	if err := RequireVersion("v0.1.0"); err != nil {
		t.Errorf("RequireVersion in a devel build: %v", err)
	}
	if err := RequireVersion("not-a-version"); err == nil {
		t.Error("RequireVersion(not-a-version): no error")
	}
}
