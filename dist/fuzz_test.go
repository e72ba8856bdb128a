package dist

// A fuzz target for the checkpoint manifest reader (the .npy header's is in
// package npy), and tests of unexported parts of the file I/O: the CRC-32C
// combination and every I/O path (in place, through a layout split on axis
// 0, chunked calls). Seed corpus: testdata/fuzz/FuzzManifest.

import (
	"bytes"
	"fmt"
	"github.com/xpmpi/xpmpi/internal/crc32c"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/npy"
)

// manifestSeed returns a valid manifest file.
func manifestSeed(t testing.TB, arrays []ArrayInfo, meta map[string]string) []byte {
	b, err := encodeManifest(Manifest{Step: 42, Meta: meta, Created: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC), Ranks: 3, Arrays: arrays})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func FuzzManifest(f *testing.F) {
	f.Add(manifestSeed(f, nil, nil))
	f.Add(manifestSeed(f, []ArrayInfo{
		{Name: "u", DType: backend.Float64, Shape: []int{3, 4}, Checksum: 0xdeadbeef},
		{Name: "count.v2", DType: backend.Int32, Shape: []int{0}, Checksum: 0},
	}, map[string]string{"code": "heat2d", "dt": "0.1"}))
	f.Add([]byte(`{"format":"xpmpi-checkpoint","version":1}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest(data)
		if err != nil {
			return
		}
		for _, a := range m.Arrays {
			if checkName(a.Name) != nil || len(a.Shape) == 0 {
				t.Fatalf("accepted array %+v", a)
			}
			if _, ok := npy.ShapeBytes(a.Shape, a.DType.Size()); !ok {
				t.Fatalf("accepted shape %v", a.Shape)
			}
		}
		// A manifest that parses encodes to one that parses the same.
		b, err := encodeManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := parseManifest(b)
		if err != nil {
			t.Fatalf("re-encoded manifest: %v\n%s", err, b)
		}
		if m2.Step != m.Step || m2.Ranks != m.Ranks || !m2.Created.Equal(m.Created) || len(m2.Arrays) != len(m.Arrays) || len(m2.Meta) != len(m.Meta) {
			t.Fatalf("re-encoded manifest differs: %+v, %+v", m2, m)
		}
	})
}

// TestNPYIOPaths saves and loads through every I/O path: runs in place and
// through a layout split on axis 0, in one call per rank and in many
// chunked calls, and checks the data and the checksums against the file.
func TestNPYIOPaths(t *testing.T) {
	c := mpitest.World(t)
	dir := mpitest.TempDir(t, c)
	defer func(r, k int) { minRunBytes, ioChunkBytes = r, k }(minRunBytes, ioChunkBytes)
	shapes := [][]int{{7}, {5, 3}, {3, 0}, {2, 5, 3}, {1, 6}, {4, 1, 2}}
	for _, tune := range []struct{ run, chunk int }{{0, 1 << 30}, {1 << 40, 1 << 30}, {0, 16}, {1 << 40, 24}} {
		minRunBytes, ioChunkBytes = tune.run, tune.chunk
		for _, shape := range shapes {
			for save := Replicated; save < len(shape); save++ {
				to := (save+2)%(len(shape)+1) - 1
				name := fmt.Sprintf("run%d-chunk%d/%v/save%d-load%d", tune.run, tune.chunk, shape, save, to)
				path := filepath.Join(dir, "paths.npy")
				x, err := FromFunc(c, shape, func(idx []int) float64 { return float64(ravel(idx, shape))*1.5 - 3 }, SplitAxis(save))
				if err != nil {
					t.Fatal(err)
				}
				sum, err := x.save(path, true)
				if err != nil {
					t.Fatalf("%s: save: %v", name, err)
				}
				// The checksum is the CRC-32C of the file's data.
				var fileSum uint32
				if c.Rank() == 0 {
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					h, err := ParseNPYHeader(bytes.NewReader(b))
					if err != nil || int64(len(b)) != h.DataOffset+h.DataSize() {
						t.Fatalf("%s: %d bytes, header %+v, %v", name, len(b), h, err)
					}
					fileSum = crc32c.Checksum(b[h.DataOffset:])
				}
				fs := []uint32{fileSum}
				if err := mpi.Bcast(c, fs, 0); err != nil {
					t.Fatal(err)
				}
				mpitest.Check(t, c, sum == fs[0], "%s: save checksum %08x, the file's %08x", name, sum, fs[0])
				y, lsum, err := load[float64](c, path, &npyExpect{dtype: backend.Float64, shape: shape}, []Option{SplitAxis(to)})
				if err != nil {
					t.Fatalf("%s: load: %v", name, err)
				}
				mpitest.Check(t, c, lsum == fs[0], "%s: load checksum %08x, the file's %08x", name, lsum, fs[0])
				want, _ := Allgather(x)
				got, err := Allgather(y)
				if err != nil {
					t.Fatal(err)
				}
				mpitest.Check(t, c, slices.Equal(got, want) && y.Layout().Axis() == to, "%s: loaded %v, want %v", name, got, want)
				x.Free()
				y.Free()
			}
		}
	}
}
