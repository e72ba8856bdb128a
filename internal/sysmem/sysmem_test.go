package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fake(t *testing.T) string {
	dir := t.TempDir()
	old := [4]string{meminfo, cgroup2, cgroup1, selfCgroup}
	meminfo, cgroup2, cgroup1, selfCgroup = dir+"/meminfo", dir+"/cg2", dir+"/cg1", dir+"/self-cgroup"
	t.Cleanup(func() { meminfo, cgroup2, cgroup1, selfCgroup = old[0], old[1], old[2], old[3] })
	return dir
}

func TestAvailable(t *testing.T) {
	const mi = "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n"
	for _, c := range []struct {
		name   string
		files  map[string]string
		bytes  uint64
		source string
		fail   bool
	}{
		{name: "meminfo only", files: map[string]string{"meminfo": mi}, bytes: 8000000 * 1024, source: "MemAvailable"},
		{name: "cgroup v2 tighter", files: map[string]string{"meminfo": mi, "cg2/memory.max": "2147483648\n", "cg2/memory.current": "1073741824\n"}, bytes: 1 << 30, source: "cgroup memory.max"},
		{name: "cgroup v2 without limit", files: map[string]string{"meminfo": mi, "cg2/memory.max": "max\n", "cg2/memory.current": "1073741824\n"}, bytes: 8000000 * 1024, source: "MemAvailable"},
		{name: "cgroup v2 looser", files: map[string]string{"meminfo": mi, "cg2/memory.max": "99999999999999\n", "cg2/memory.current": "0\n"}, bytes: 8000000 * 1024, source: "MemAvailable"},
		{name: "cgroup v1 over its limit", files: map[string]string{"meminfo": mi, "cg1/memory.limit_in_bytes": "100\n", "cg1/memory.usage_in_bytes": "200\n"}, bytes: 0, source: "cgroup memory.limit_in_bytes"},
		{name: "cgroup alone", files: map[string]string{"cg2/memory.max": "4096\n", "cg2/memory.current": "1024\n"}, bytes: 3072, source: "cgroup memory.max"},
		{name: "nothing readable", files: nil, fail: true},
		{name: "meminfo in another unit", files: map[string]string{"meminfo": "MemAvailable: 12 MB\n"}, fail: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fake(t)
			for f, s := range c.files {
				write(t, filepath.Join(dir, f), s)
			}
			got, err := Available()
			if c.fail {
				if err == nil {
					t.Fatalf("Available() = %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Bytes != c.bytes || got.Source != c.source {
				t.Fatalf("Available() = %d from %s, want %d from %s", got.Bytes, got.Source, c.bytes, c.source)
			}
		})
	}
}

func TestAvailableHere(t *testing.T) {
	got, err := Available()
	if err != nil {
		t.Skip("no memory information on this system:", err)
	}
	if got.Bytes == 0 {
		t.Fatalf("Available() = %v on the machine running the test", got)
	}
}

func TestBytes(t *testing.T) {
	for b, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3 << 29: "1.5 GiB", 1 << 40: "1.0 TiB"} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", b, got, want)
		}
	}
}

// The limit of the process's own control group, and of every group above
// it, counts, on fake cgroup trees: v2, v1, and v2 in the hybrid layout
// (/sys/fs/cgroup/unified); the tightest wins, wherever it is; a path
// from another cgroup namespace falls back to the root.
func TestAvailableOwnCgroup(t *testing.T) {
	const mi = "MemAvailable:    8000000 kB\n"
	const gi = 1 << 30
	for _, c := range []struct {
		name   string
		files  map[string]string
		bytes  uint64
		source string
		path   string // the limit file, under the fake tree
	}{
		{name: "v2 job group", files: map[string]string{"meminfo": mi, "self-cgroup": "0::/job42/step0\n",
			"cg2/memory.max": "max\n", "cg2/memory.current": "5000000000\n",
			"cg2/job42/memory.max": "1073741824\n", "cg2/job42/memory.current": "104857600\n",
			"cg2/job42/step0/memory.max": "max\n", "cg2/job42/step0/memory.current": "104857600\n"},
			bytes: gi - 100<<20, source: "cgroup memory.max", path: "cg2/job42/memory.max"},
		{name: "v2 own group tightest", files: map[string]string{"meminfo": mi, "self-cgroup": "0::/a/b\n",
			"cg2/a/memory.max": "4294967296\n", "cg2/a/memory.current": "0\n",
			"cg2/a/b/memory.max": "1073741824\n", "cg2/a/b/memory.current": "0\n"},
			bytes: gi, source: "cgroup memory.max", path: "cg2/a/b/memory.max"},
		{name: "v2 parent tighter", files: map[string]string{"meminfo": mi, "self-cgroup": "0::/a/b\n",
			"cg2/a/memory.max": "536870912\n", "cg2/a/memory.current": "0\n",
			"cg2/a/b/memory.max": "1073741824\n", "cg2/a/b/memory.current": "0\n"},
			bytes: gi / 2, source: "cgroup memory.max", path: "cg2/a/memory.max"},
		{name: "v2 hybrid layout", files: map[string]string{"meminfo": mi, "self-cgroup": "4:memory:/\n0::/job\n",
			"cg2/unified/job/memory.max": "1073741824\n", "cg2/unified/job/memory.current": "0\n"},
			bytes: gi, source: "cgroup memory.max", path: "cg2/unified/job/memory.max"},
		{name: "v1 job group", files: map[string]string{"meminfo": mi, "self-cgroup": "5:cpu,memory:/slurm/uid_0/job_7\n0::/\n",
			"cg1/memory.limit_in_bytes": "9223372036854771712\n", "cg1/memory.usage_in_bytes": "1000\n",
			"cg1/slurm/memory.limit_in_bytes": "9223372036854771712\n", "cg1/slurm/memory.usage_in_bytes": "1000\n",
			"cg1/slurm/uid_0/job_7/memory.limit_in_bytes": "1073741824\n", "cg1/slurm/uid_0/job_7/memory.usage_in_bytes": "0\n"},
			bytes: gi, source: "cgroup memory.limit_in_bytes", path: "cg1/slurm/uid_0/job_7/memory.limit_in_bytes"},
		{name: "another namespace's path", files: map[string]string{"meminfo": mi, "self-cgroup": "0::/docker/abc\n",
			"cg2/memory.max": "2147483648\n", "cg2/memory.current": "0\n"},
			bytes: 2 * gi, source: "cgroup memory.max", path: "cg2/memory.max"},
		{name: "no limit anywhere", files: map[string]string{"meminfo": mi, "self-cgroup": "0::/job\n",
			"cg2/memory.max": "max\n", "cg2/memory.current": "0\n", "cg2/job/memory.max": "max\n", "cg2/job/memory.current": "0\n"},
			bytes: 8000000 * 1024, source: "MemAvailable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fake(t)
			for f, s := range c.files {
				write(t, filepath.Join(dir, f), s)
			}
			got, err := Available()
			if err != nil {
				t.Fatal(err)
			}
			want := Info{Bytes: c.bytes, Source: c.source}
			if c.path != "" {
				want.Path = filepath.Join(dir, c.path)
			}
			if got != want {
				t.Fatalf("Available() = %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseCgroups(t *testing.T) {
	for _, c := range []struct{ in, v2, v1 string }{
		{"0::/user.slice/job42\n", "/user.slice/job42", "/"},
		{"9:name=systemd:/\n4:memory:/process_api/8b23\n1:cpu:/x\n0::/\n", "/", "/process_api/8b23"},
		{"5:cpu,memory,pids:/a/b/\n", "/", "/a/b"},
		{"", "/", "/"},
		{"garbage\n0:x\n0::relative\n4:memory:/a/../../etc\n", "/", "/"},
	} {
		v2, v1 := parseCgroups(c.in)
		if v2 != c.v2 || v1 != c.v1 {
			t.Errorf("parseCgroups(%q) = %q, %q; want %q, %q", c.in, v2, v1, c.v2, c.v1)
		}
	}
}
