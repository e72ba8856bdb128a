package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/xpmpi/xpmpi/internal/pngfile"
)

// Colours of the bench chart.
var (
	barMet    = color.RGBA{49, 104, 142, 255} // viridis blue: meets its target, or has none
	barMissed = color.RGBA{214, 96, 77, 255}  // misses its target
	barBad    = color.RGBA{128, 128, 128, 255}
	lineOne   = color.RGBA{0, 0, 0, 255}
	lineGrid  = color.RGBA{220, 220, 220, 255}
	tickColor = color.RGBA{200, 30, 30, 255}
)

// writeBenchPNG draws the ratios of the speed rows (times and bandwidths)
// as a bar chart: one bar per row, labelled with the workload and metric
// under it and the ratio above it, a black line at 1 (as fast as the
// reference), and a red tick at the row's target where it has one. Bars
// that miss their target are red, bars whose checksums disagree grey.
func writeBenchPNG(path string, rows []Row, title string) error {
	var bars []Row
	for _, r := range rows {
		if r.Kind != KindInfo {
			bars = append(bars, r)
		}
	}
	face := basicfont.Face7x13
	const (
		margin  = 20
		left    = 60 // room for the axis labels
		barW    = 44
		gap     = 30
		plotH   = 320
		labelsH = 5 * 13
	)
	top := margin + 2*13 + 10
	ymax := 1.25
	for _, r := range bars {
		if v := finite(r.Ratio); v > 0 {
			ymax = math.Max(ymax, math.Min(v, 10)*1.1) // taller bars are cut
		}
		ymax = math.Max(ymax, r.Target*1.1)
	}
	plotW := max(len(bars), 1)*(barW+gap) + gap
	subtitle := "ratio = xpmpi time / reference time; for GB/s, reference GB/s / xpmpi GB/s; red tick: target"
	titleW := max(len(title), len(subtitle))*7 + 2*margin
	w := max(left+plotW+margin, titleW)
	h := top + plotH + 12 + labelsH + margin
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	text := func(x, y int, s string) {
		d.Dot = fixed.P(x, y)
		d.DrawString(s)
	}
	centred := func(cx, y int, s string) { text(cx-len(s)*7/2, y, s) }
	yOf := func(v float64) int { return top + plotH - int(math.Round(v/ymax*float64(plotH))) }
	hline := func(y, x0, x1 int, c color.RGBA) {
		for x := x0; x < x1; x++ {
			img.SetRGBA(x, y, c)
		}
	}
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		draw.Draw(img, image.Rect(x0, y0, x1, y1), &image.Uniform{c}, image.Point{}, draw.Src)
	}

	text(margin, margin+10, title)
	text(margin, margin+23, subtitle)
	// Grid and axis labels every 0.25 (every 1 above 3).
	step := 0.25
	if ymax > 3 {
		step = 1
	}
	for v := 0.0; v <= ymax+1e-9; v += step {
		y := yOf(v)
		hline(y, left, left+plotW, lineGrid)
		text(left-40, y+4, fmt.Sprintf("%.2f", v))
	}
	for y := top; y <= top+plotH; y++ {
		img.SetRGBA(left, y, lineOne)
	}
	for i, r := range bars {
		x0 := left + gap + i*(barW+gap)
		c := barMet
		switch {
		case !r.ChecksumOK:
			c = barBad
		case r.Target > 0 && !(r.Ratio <= r.Target):
			c = barMissed
		}
		v := math.Max(0, math.Min(finite(r.Ratio), ymax))
		fill(x0, yOf(v), x0+barW, yOf(0), c)
		label := fmt.Sprintf("%.2f", r.Ratio)
		switch {
		case !r.ChecksumOK:
			label = "BAD"
		case finite(r.Ratio) != r.Ratio:
			label = "n/a"
		}
		centred(x0+barW/2, yOf(v)-4, label)
		if r.Target > 0 {
			ty := yOf(r.Target)
			hline(ty, x0-4, x0+barW+4, tickColor)
			hline(ty+1, x0-4, x0+barW+4, tickColor)
		}
		// Labels under the bar: the workload, then the metric in pieces.
		ly := top + plotH + 14
		centred(x0+barW/2, ly, r.Workload)
		for j, part := range wrapWords(r.Metric, (barW+gap)/7) {
			if j >= 4 {
				break
			}
			centred(x0+barW/2, ly+13*(j+1), part)
		}
	}
	// The line at 1: as fast as the reference.
	y1 := yOf(1)
	hline(y1, left, left+plotW, lineOne)
	hline(y1+1, left, left+plotW, lineOne)
	return pngfile.Write(path, img)
}

// wrapWords splits s at spaces into lines of at most width characters
// (longer words are cut).
func wrapWords(s string, width int) []string {
	width = max(width, 1)
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for len(word) > width {
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			lines = append(lines, word[:width])
			word = word[width:]
		}
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
