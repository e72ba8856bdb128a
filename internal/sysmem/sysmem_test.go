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
	old := [3]string{meminfo, cgroup2, cgroup1}
	meminfo, cgroup2, cgroup1 = dir+"/meminfo", dir+"/cg2", dir+"/cg1"
	t.Cleanup(func() { meminfo, cgroup2, cgroup1 = old[0], old[1], old[2] })
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
