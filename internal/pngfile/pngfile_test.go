package pngfile

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: the file decodes to the same pixels, and a missing directory
// is the os error.
func TestWrite(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.SetRGBA(1, 0, color.RGBA{10, 20, 30, 255})
	img.SetRGBA(2, 1, color.RGBA{200, 100, 0, 255})
	path := filepath.Join(t.TempDir(), "x.png")
	if err := Write(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != img.Bounds() {
		t.Fatalf("bounds %v, want %v", got.Bounds(), img.Bounds())
	}
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			r0, g0, b0, a0 := img.At(x, y).RGBA()
			r1, g1, b1, a1 := got.At(x, y).RGBA()
			if r0 != r1 || g0 != g1 || b0 != b1 || a0 != a1 {
				t.Errorf("pixel (%d, %d) is %v, want %v", x, y, got.At(x, y), img.At(x, y))
			}
		}
	}
	err = Write(filepath.Join(t.TempDir(), "no", "x.png"), img)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("into a missing directory: %v, want a not-exist error", err)
	}
}

// TestWriteEncodeError: an image PNG cannot hold is png.Encode's error.
func TestWriteEncodeError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.png")
	if err := Write(path, image.NewRGBA(image.Rect(0, 0, 0, 0))); err == nil {
		t.Error("an empty image was written without an error")
	}
}
