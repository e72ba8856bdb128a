package dist

import (
	"fmt"
	"slices"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/mpi"
)

// Pad returns x padded along each axis, as NumPy's pad(x, width, mode):
// width[a] = {before, after} elements are added before and after axis a
// (one pair applies to every axis), none negative. The modes are NumPy's:
//
//   - "constant": the border is zero (PadConstant pads with another value);
//   - "edge": the edge element repeated;
//   - "reflect": the mirror image without the edge ([1 2 3] padded by 2
//     is [3 2 1 2 3 2 1]);
//   - "symmetric": the mirror image with the edge ([2 1 1 2 3 3 2]);
//   - "wrap": the other end's elements ([2 3 1 2 3 1 2]).
//
// Widths larger than the axis repeat the reflection or the wrap, as
// NumPy's do. NumPy's other modes ("linear_ramp", "maximum", "mean",
// "median", "minimum", "empty", or a function) are refused with an error
// that names them; so is padding an empty axis other than by "constant",
// as NumPy refuses it.
//
// It takes every element type and layout. The result is laid out as x is
// (replicated, split along the same axis, or on the same process grid),
// with x's blocks along axes that are not padded and even blocks along
// the others; it has no ghost layers and lives on x's backend. It is
// collective: one all-to-all in which each rank sends its block, and the
// parts of it that the border copies (reflected where the mode says), to
// the ranks that hold them; the constant border is filled in place.
func Pad[T backend.Numeric](x *Array[T], width [][2]int, mode string) (*Array[T], error) {
	var zero T
	return pad(x, width, mode, zero)
}

// PadConstant returns x padded with v, as NumPy's pad(x, width,
// "constant", constant_values=v): Pad's constant mode, with Pad's layout
// and cost.
func PadConstant[T backend.Numeric](x *Array[T], width [][2]int, v T) (*Array[T], error) {
	return pad(x, width, "constant", v)
}

// padModes are the modes Pad takes; numpyModes NumPy's others.
var (
	padModes   = []string{"constant", "edge", "reflect", "symmetric", "wrap"}
	numpyModes = []string{"linear_ramp", "maximum", "mean", "median", "minimum", "empty"}
)

func pad[T backend.Numeric](x *Array[T], width [][2]int, mode string, v T) (*Array[T], error) {
	const op = "Pad"
	if err := checkLive(op, x.comm, x); err != nil {
		return nil, err
	}
	if !slices.Contains(padModes, mode) {
		if slices.Contains(numpyModes, mode) {
			return nil, fmt.Errorf("dist: %s: mode %q is not supported: use one of %s (or Map and slicing for NumPy's %q)", op, mode, strings.Join(padModes, ", "), mode)
		}
		return nil, fmt.Errorf("dist: %s: mode %q is not supported: use one of %s", op, mode, strings.Join(padModes, ", "))
	}
	shape := x.layout.shape
	d := len(shape)
	if len(width) != 1 && len(width) != d {
		return nil, fmt.Errorf("dist: %s: %d pad widths for a %d-dimensional array: give one {before, after} pair, or one per axis", op, len(width), d)
	}
	w := make([][2]int, d)
	out := make([]int, d)
	for a := range w {
		w[a] = width[0]
		if len(width) > 1 {
			w[a] = width[a]
		}
		if w[a][0] < 0 || w[a][1] < 0 {
			return nil, fmt.Errorf("dist: %s: negative pad width %v (NumPy: index can't contain negative values)", op, w[a])
		}
		if shape[a] == 0 && mode != "constant" && w[a] != [2]int{} {
			return nil, fmt.Errorf("dist: %s: can't extend empty axis %d using modes other than \"constant\"", op, a)
		}
		if w[a][0] > maxInt/4 || w[a][1] > maxInt/4 {
			return nil, fmt.Errorf("dist: %s: pad width %v: %w", op, w[a], ErrTooLarge)
		}
		out[a] = shape[a] + w[a][0] + w[a][1]
	}
	if _, err := ShapeLen(out); err != nil {
		return nil, fmt.Errorf("dist: %s: %w", op, err)
	}
	args := []mpi.Arg{{Name: "mode", Value: int64(slices.Index(padModes, mode)), Text: mode}}
	var ws []int
	for a := range w {
		ws = append(ws, w[a][0], w[a][1])
	}
	args = append(args, mpi.Arg{Name: "widths", Value: hashInts(ws...)})
	if err := check(op, x, args...); err != nil {
		return nil, err
	}
	maps := make([][]int, d)
	for a, n := range shape {
		maps[a] = padMap(n, w[a][0], out[a], mode)
	}
	var fill *T
	if mode == "constant" {
		fill = &v
	}
	l := reshaped(x.layout, out, sameAxes)
	return gatherMaps(x, l, maps, fill, "dist.Pad")
}

// padMap returns the source index of each of the m indices of an axis of
// n padded by before in mode (-1 for the constant border).
func padMap(n, before, m int, mode string) []int {
	mp := make([]int, m)
	for j := range mp {
		k := j - before
		switch {
		case k >= 0 && k < n:
			mp[j] = k
		case mode == "constant":
			mp[j] = -1
		case mode == "edge":
			mp[j] = min(max(k, 0), n-1)
		case mode == "wrap":
			mp[j] = ((k % n) + n) % n
		case mode == "reflect":
			if n == 1 {
				mp[j] = 0
				break
			}
			p := 2 * (n - 1)
			k = ((k % p) + p) % p
			if k >= n {
				k = p - k
			}
			mp[j] = k
		default: // symmetric
			p := 2 * n
			k = ((k % p) + p) % p
			if k >= n {
				k = p - 1 - k
			}
			mp[j] = k
		}
	}
	return mp
}
