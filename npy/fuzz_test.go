package npy

// A fuzz target for the header parser: whatever it accepts is within the
// limits and reads back the same once written again. Seed corpus:
// testdata/fuzz/FuzzHeader.

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
)

func FuzzHeader(f *testing.F) {
	for dt := backend.DType(0); int(dt) < backend.NumDTypes; dt++ {
		for _, shape := range [][]int{{}, {0}, {5}, {3, 4}, {2, 0, 7}, {1 << 40, 3}} {
			f.Add(HeaderBytes(dt, shape))
		}
	}
	if files, _ := filepath.Glob("../dist/testdata/*.npy"); len(files) > 0 { // written by NumPy
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		h, err := ReadHeader(r)
		if err != nil {
			return
		}
		if !h.DType.Valid() {
			t.Fatalf("DType %v", h.DType)
		}
		if len(h.Shape) > MaxDims {
			t.Fatalf("%d dimensions", len(h.Shape))
		}
		for _, d := range h.Shape {
			if d < 0 {
				t.Fatalf("shape %v", h.Shape)
			}
		}
		if h.DataSize() < 0 || h.DataSize() > MaxBytes {
			t.Fatalf("data size %d for %v", h.DataSize(), h.Shape)
		}
		if got := int64(len(data) - r.Len()); got != h.DataOffset {
			t.Fatalf("read %d bytes, data offset %d", got, h.DataOffset)
		}
		// What the header says, written again, says the same.
		var b bytes.Buffer
		if err := WriteHeader(&b, h.DType, h.Shape); err != nil {
			t.Fatal(err)
		}
		if b.Len()%Align != 0 {
			t.Fatalf("header of %d bytes", b.Len())
		}
		h2, err := ReadHeader(&b)
		if err != nil || h2.DType != h.DType || !slices.Equal(h2.Shape, h.Shape) || b.Len() != 0 {
			t.Fatalf("rewritten header: %v, %v (%d bytes left), want %v", h2, err, b.Len(), h)
		}
	})
}
