// Package pngfile writes an image to a PNG file: the one place the
// command's heat map and the bench's bar chart are saved.
package pngfile

import (
	"image"
	"image/png"
	"os"
)

// Write encodes img as PNG into the file at path, created or truncated.
// It returns the error of the create, the encoding or the close, as the
// os and image/png packages give it; a file an encoding error stopped is
// left as far as it was written.
func Write(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
