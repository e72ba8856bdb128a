// Package sysmem reports how much memory this process may still allocate:
// the smaller of the node's available memory and what its control group
// leaves it.
package sysmem

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Info is an amount of memory and where it was read.
type Info struct {
	Bytes  uint64
	Source string // "MemAvailable", "cgroup memory.max", "cgroup memory.limit_in_bytes"
}

func (i Info) String() string { return fmt.Sprintf("%s (%s)", Bytes(i.Bytes), i.Source) }

// Files read; tests point them elsewhere.
var (
	meminfo  = "/proc/meminfo"
	cgroup2  = "/sys/fs/cgroup"
	cgroup1  = "/sys/fs/cgroup/memory"
	errNoAny = errors.New("sysmem: neither /proc/meminfo nor a cgroup memory limit is readable")
)

// Available returns the memory this process may still allocate: the
// node's MemAvailable, or the control group's limit less its usage where
// that is smaller.
func Available() (Info, error) {
	best := Info{}
	found := false
	if b, err := memAvailable(); err == nil {
		best, found = Info{Bytes: b, Source: "MemAvailable"}, true
	}
	for _, c := range []struct{ limit, usage, name string }{
		{cgroup2 + "/memory.max", cgroup2 + "/memory.current", "cgroup memory.max"},
		{cgroup1 + "/memory.limit_in_bytes", cgroup1 + "/memory.usage_in_bytes", "cgroup memory.limit_in_bytes"},
	} {
		limit, err1 := readUint(c.limit)
		usage, err2 := readUint(c.usage)
		if err1 != nil || err2 != nil {
			continue
		}
		left := uint64(0)
		if limit > usage {
			left = limit - usage
		}
		if !found || left < best.Bytes {
			best, found = Info{Bytes: left, Source: c.name}, true
		}
		break
	}
	if !found {
		return Info{}, errNoAny
	}
	return best, nil
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
