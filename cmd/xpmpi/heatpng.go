package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/xpmpi/xpmpi/internal/pngfile"
)

// viridis holds control points of the viridis colour map, from 0 to 1.
var viridis = []color.RGBA{
	{68, 1, 84, 255}, {72, 40, 120, 255}, {62, 73, 137, 255}, {49, 104, 142, 255},
	{38, 130, 142, 255}, {31, 158, 137, 255}, {53, 183, 121, 255}, {109, 205, 89, 255},
	{180, 222, 44, 255}, {253, 231, 37, 255},
}

// colorAt maps t in [0, 1] (clamped) to the colour map.
func colorAt(t float64) color.RGBA {
	if math.IsNaN(t) {
		return color.RGBA{255, 0, 255, 255}
	}
	t = math.Max(0, math.Min(1, t))
	x := t * float64(len(viridis)-1)
	i := int(x)
	if i >= len(viridis)-1 {
		return viridis[len(viridis)-1]
	}
	f := x - float64(i)
	a, b := viridis[i], viridis[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + f*(float64(q)-float64(p)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// writeHeatPNG draws the field (rows x cols, row-major, values in [0, 1])
// with the top boundary row above it, scaled to a few hundred pixels, with a
// colour bar and its labels on the right.
func writeHeatPNG(path string, field []float64, shape []int) error {
	rows, cols := shape[0]+1, shape[1] // with the top edge
	at := func(i, j int) float64 {
		if i == 0 {
			if j == 0 || j == cols-1 {
				return 0
			}
			return 1
		}
		return field[(i-1)*cols+j]
	}
	// Pixels per grid point (up) or grid points per pixel (down).
	const target = 512
	side := max(rows, cols)
	px := max(1, target/side)
	w, h := cols*px, rows*px
	if side > target {
		w, h = cols*target/side, rows*target/side
	}
	const margin, bar, legend = 16, 20, 70
	img := image.NewRGBA(image.Rect(0, 0, margin+w+margin+bar+legend, margin+h+margin+16))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// Average the grid points that fall in this pixel.
			i0, i1 := y*rows/h, max((y+1)*rows/h, y*rows/h+1)
			j0, j1 := x*cols/w, max((x+1)*cols/w, x*cols/w+1)
			s, k := 0.0, 0
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					s += at(i, j)
					k++
				}
			}
			img.SetRGBA(margin+x, margin+y, colorAt(s/float64(k)))
		}
	}
	// Colour bar, 1 at the top.
	bx := margin + w + margin
	for y := 0; y < h; y++ {
		c := colorAt(1 - float64(y)/float64(max(h-1, 1)))
		for x := 0; x < bar; x++ {
			img.SetRGBA(bx+x, margin+y, c)
		}
	}
	face := basicfont.Face7x13
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := margin + int(math.Round((1-v)*float64(h-1)))
		for x := bar; x < bar+4; x++ {
			img.SetRGBA(bx+x, y, color.RGBA{0, 0, 0, 255})
		}
		d.Dot = fixed.P(bx+bar+6, y+4)
		d.DrawString(fmt.Sprintf("%.2f", v))
	}
	d.Dot = fixed.P(margin, margin+h+margin+8)
	d.DrawString(fmt.Sprintf("heat2d: u on a %d x %d interior (top edge u = 1)", shape[0], shape[1]-2))
	return pngfile.Write(path, img)
}
