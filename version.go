package xpmpi

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
)

// modulePath is the path of this module.
const modulePath = "github.com/xpmpi/xpmpi"

// Version returns the version of the xpmpi module linked into the running
// program, such as "v0.3.1" or a pseudo-version, from its build
// information. It returns "devel" for a build from a working tree (go build
// or go run inside the module, or a replace directive to a directory) and
// when the program carries no build information.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
}

// Revision returns the version control revision the running program was
// built from, with " (modified)" when the working tree had changes, or
// "unknown" when the build recorded none (go build -buildvcs=false, a
// build outside a repository, or a test binary).
func Revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return revisionOf(bi)
}

// RequireVersion returns an error if the linked xpmpi module is older than
// min, a semantic version such as "v0.3.0" (the leading v may be left
// out). A devel build (see Version) satisfies every min: it is built from
// source that is assumed current. A min that is not a semantic version is
// an error.
func RequireVersion(min string) error {
	return requireVersion(Version(), min)
}

func requireVersion(have, min string) error {
	want, ok := parseSemver(min)
	if !ok {
		return fmt.Errorf("xpmpi: RequireVersion(%q): not a semantic version such as v1.2.3", min)
	}
	if have == "devel" {
		return nil
	}
	got, ok := parseSemver(have)
	if !ok {
		return fmt.Errorf("xpmpi: version %q of the linked module is not a semantic version; want %s or newer", have, min)
	}
	if compareSemver(got, want) < 0 {
		return fmt.Errorf("xpmpi: version %s is older than the required %s: go get %s@%s", have, min, modulePath, want.String())
	}
	return nil
}

// versionOf finds this module in bi: the main module, or a dependency
// (following a replace directive).
func versionOf(bi *debug.BuildInfo) string {
	m := &bi.Main
	if m.Path != modulePath {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				m = d
				break
			}
		}
	}
	if m == nil {
		return "devel"
	}
	if m.Replace != nil {
		m = m.Replace
	}
	if m.Version == "" || m.Version == "(devel)" {
		return "devel"
	}
	return m.Version
}

func revisionOf(bi *debug.BuildInfo) string {
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if modified {
		rev += " (modified)"
	}
	return rev
}

// semver is a parsed semantic version; build metadata is dropped.
type semver struct {
	major, minor, patch int
	pre                 []string
}

func (v semver) String() string {
	s := fmt.Sprintf("v%d.%d.%d", v.major, v.minor, v.patch)
	if len(v.pre) > 0 {
		s += "-" + strings.Join(v.pre, ".")
	}
	return s
}

// parseSemver parses v1.2.3, 1.2.3, v1.2.3-rc.1+meta; "v1" and "v1.2" are
// read as v1.0.0 and v1.2.0.
func parseSemver(s string) (semver, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	var v semver
	core, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) > 3 || core == "" {
		return semver{}, false
	}
	nums := [3]int{}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (len(p) > 1 && p[0] == '0') {
			return semver{}, false
		}
		nums[i] = n
	}
	v.major, v.minor, v.patch = nums[0], nums[1], nums[2]
	if hasPre {
		if pre == "" {
			return semver{}, false
		}
		v.pre = strings.Split(pre, ".")
		for _, id := range v.pre {
			if id == "" {
				return semver{}, false
			}
		}
	}
	return v, true
}

// compareSemver orders a and b by semantic-version precedence.
func compareSemver(a, b semver) int {
	for _, d := range []int{a.major - b.major, a.minor - b.minor, a.patch - b.patch} {
		if d != 0 {
			return sign(d)
		}
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1 // a release follows its pre-releases
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, y := a.pre[i], b.pre[i]
		nx, ex := strconv.Atoi(x)
		ny, ey := strconv.Atoi(y)
		switch {
		case ex == nil && ey == nil:
			if nx != ny {
				return sign(nx - ny)
			}
		case ex == nil:
			return -1 // numeric identifiers sort before alphanumeric ones
		case ey == nil:
			return 1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return sign(len(a.pre) - len(b.pre))
}

func sign(d int) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}
