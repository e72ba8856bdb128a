// Package sysmem reports how much memory this process may still allocate:
// the smaller of the node's available memory and what its control group
// leaves it.
package sysmem

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Info is an amount of memory and where it was read.
type Info struct {
	Bytes  uint64
	Source string // "MemAvailable", "cgroup memory.max", "cgroup memory.limit_in_bytes"
	// Path is the control group file of the limit (for a cgroup Source):
	// the process's own group's or an ancestor's, whichever leaves least.
	Path string
}

func (i Info) String() string {
	if i.Path != "" {
		return fmt.Sprintf("%s (%s, %s)", Bytes(i.Bytes), i.Source, i.Path)
	}
	return fmt.Sprintf("%s (%s)", Bytes(i.Bytes), i.Source)
}

// Files read; tests point them elsewhere.
var (
	meminfo    = "/proc/meminfo"
	selfCgroup = "/proc/self/cgroup"
	cgroup2    = "/sys/fs/cgroup"        // cgroup v2 (unified), or the hybrid layout's tmpfs
	cgroup1    = "/sys/fs/cgroup/memory" // cgroup v1's memory controller
	errNoAny   = errors.New("sysmem: neither /proc/meminfo nor a cgroup memory limit is readable")
)

// Available returns the memory this process may still allocate: the
// node's MemAvailable, or, where it is smaller, what the control groups
// leave it: for the process's own group (from /proc/self/cgroup, as Slurm
// and container runtimes make one per job) and each group above it up to
// the root, its limit less its usage (cgroup v2: memory.max and
// memory.current; v1: memory.limit_in_bytes and memory.usage_in_bytes),
// the smallest of them. A group that is not readable (a path from another
// cgroup namespace) is skipped; a group without a limit leaves the rest.
func Available() (Info, error) {
	best := Info{}
	found := false
	if b, err := memAvailable(); err == nil {
		best, found = Info{Bytes: b, Source: "MemAvailable"}, true
	}
	v2, v1 := ownCgroups()
	for _, h := range []struct{ root, path, limit, usage, name string }{
		{cgroup2, v2, "memory.max", "memory.current", "cgroup memory.max"},
		{cgroup2 + "/unified", v2, "memory.max", "memory.current", "cgroup memory.max"},
		{cgroup1, v1, "memory.limit_in_bytes", "memory.usage_in_bytes", "cgroup memory.limit_in_bytes"},
	} {
		for dir := h.path; ; dir = filepath.Dir(dir) {
			limitFile := filepath.Join(h.root, dir, h.limit)
			limit, err1 := readUint(limitFile)
			usage, err2 := readUint(filepath.Join(h.root, dir, h.usage))
			if err1 == nil && err2 == nil {
				left := uint64(0)
				if limit > usage {
					left = limit - usage
				}
				if !found || left < best.Bytes {
					best, found = Info{Bytes: left, Source: h.name, Path: limitFile}, true
				}
			}
			if dir == "/" || dir == "." {
				break
			}
		}
	}
	if !found {
		return Info{}, errNoAny
	}
	return best, nil
}

// ownCgroups returns the path of this process's control group in the
// cgroup v2 hierarchy and in v1's memory hierarchy, from
// /proc/self/cgroup ("/" where it says none, or cannot be read).
func ownCgroups() (v2, v1 string) {
	v2, v1 = "/", "/"
	b, err := os.ReadFile(selfCgroup)
	if err != nil {
		return v2, v1
	}
	return parseCgroups(string(b))
}

// parseCgroups parses /proc/self/cgroup: lines "ID:CONTROLLERS:PATH",
// where v2's is "0::PATH" and v1's memory controller is among the
// comma-separated CONTROLLERS of its line. Paths that are not absolute or
// climb with ".." are ignored.
func parseCgroups(s string) (v2, v1 string) {
	v2, v1 = "/", "/"
	for _, line := range strings.Split(s, "\n") {
		id, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		ctl, path, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(path, "/") || slices.Contains(strings.Split(path, "/"), "..") {
			continue
		}
		path = filepath.Clean(path)
		switch {
		case id == "0" && ctl == "":
			v2 = path
		case slices.Contains(strings.Split(ctl, ","), "memory"):
			v1 = path
		}
	}
	return v2, v1
}

func memAvailable() (uint64, error) {
	f, err := os.Open(meminfo)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			break
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("sysmem: %s: MemAvailable %q", meminfo, fields[0])
		}
		if len(fields) < 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("sysmem: %s: MemAvailable in %q, not kB", meminfo, strings.Join(fields[1:], " "))
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("sysmem: %s has no MemAvailable line", meminfo)
}

// readUint reads a cgroup file holding one number; "max" (no limit) is an
// error, so that the caller skips it.
func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}

// Bytes formats a byte count with a binary unit: "512 B", "1.5 GiB".
func Bytes(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit && exp < 5; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
