package dist

import (
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/internal/crc32c"
)

// verifierFile writes n random bytes to a new file and returns its path
// and the bytes.
func verifierFile(t *testing.T, n int) (string, []byte) {
	t.Helper()
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "v.bin")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b
}

// openVerifier opens a verifier on path, mapped or, with readAt, reading
// with ReadAt.
func openVerifier(t *testing.T, path string, need int64, readAt bool) *verifier {
	t.Helper()
	v, err := newVerifier(path, need)
	if err != nil {
		t.Fatal(err)
	}
	if readAt {
		if err := unmapFile(v.m); err != nil {
			t.Fatal(err)
		}
		v.m = nil
	} else if v.m == nil {
		t.Skip("the file could not be mapped here")
	}
	t.Cleanup(func() { v.release() })
	return v
}

// TestVerifierPaths: the mapped read-back and the ReadAt one accept the
// same bytes with the same checksum, in runs that cross the ReadAt
// buffer's size, and report a differing byte and a file that ends early
// at the same offsets.
func TestVerifierPaths(t *testing.T) {
	n := verifyBuf + verifyBuf/2 + 4099
	path, data := verifierFile(t, n)
	runs := [][2]int{{0, 7}, {7, verifyBuf + 107}, {verifyBuf + 107, n}}
	for _, readAt := range []bool{false, true} {
		name := map[bool]string{false: "mapped", true: "readat"}[readAt]
		t.Run(name, func(t *testing.T) {
			v := openVerifier(t, path, int64(n), readAt)
			for _, r := range runs {
				if err := v.check(int64(r[0]), int64(r[0]), data[r[0]:r[1]]); err != nil {
					t.Fatalf("run %v: %v", r, err)
				}
			}
			if got, want := crc32c.Finish(v.crc.Part(int64(n)), int64(n)), crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)); got != want {
				t.Errorf("checksum %#x, want %#x", got, want)
			}
			for _, at := range []int{0, 5, verifyBuf - 1, verifyBuf, n - 1} {
				mem := append([]byte(nil), data...)
				mem[at] ^= 0x40
				err := v.check(0, -1, mem)
				if want := "at offset " + strconv.Itoa(at) + " differ"; err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("a byte changed at %d: %v, want %q", at, err, want)
				}
			}
			// What this rank wrote goes 10 bytes past the file's end.
			err := v.check(int64(n-100), -1, append(append([]byte(nil), data[n-100:]...), make([]byte, 10)...))
			if want := "ends at byte " + strconv.Itoa(n) + ","; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("past the end: %v, want %q", err, want)
			}
			if err := v.close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}

// TestVerifierShrunk: a file that another process shortens after it was
// mapped is a read-back error, not a fault that ends the job.
func TestVerifierShrunk(t *testing.T) {
	n := 1<<20 + 13
	path, data := verifierFile(t, n)
	v := openVerifier(t, path, int64(n), false)
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	err := v.check(0, 0, data)
	if want := "became shorter while it was read"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("after the file shrank: %v, want %q", err, want)
	}
}
