package fft

import (
	"fmt"
	"slices"

	"github.com/xpmpi/xpmpi/dist"
)

// stage is one step of a distributed transform: redistribute to layout
// (unless it is the layout the array already has), then transform along
// axes, each of them local to every rank's block in that layout.
type stage struct {
	layout dist.Layout
	axes   []int
}

// dimsOf returns how many parts each axis of l is cut into: all 1 for a
// replicated layout, the ranks along the split axis of a 1-D layout, the
// grid's extents on a process grid.
func dimsOf(l dist.Layout) []int {
	nd := l.Dims()
	d := make([]int, nd)
	for k := range d {
		d[k] = 1
	}
	switch ax := l.Axis(); ax {
	case dist.Replicated:
	case dist.Grid:
		copy(d, l.GridDims())
	default:
		d[ax] = l.Ranks()
	}
	return d
}

// layoutOf makes the layout of shape cut into dims parts per axis over p
// ranks: a 1-D layout where at most one axis is cut (axis 0 if none is,
// which holds only for p = 1), a process grid otherwise.
func layoutOf(shape, dims []int, p int) dist.Layout {
	axis, cut := 0, 0
	for k, d := range dims {
		if d > 1 {
			axis = k
			cut++
		}
	}
	if cut <= 1 {
		return dist.NewLayout(shape, axis, p)
	}
	return dist.NewGridLayout(shape, dims)
}

// isLocal reports whether every rank's block spans the whole of axis.
func isLocal(dims []int, axis int) bool { return dims[axis] == 1 }

// planStages returns the stages that transform l's array along axes (each
// once): the axes local in l first, then, one split axis at a time, a
// redistribution that moves that axis's cut to an axis already local
// (transformed, or not transformed at all) and the transform along it.
// Where no axis is local to start from, the array goes to slabs first: a
// 1-D layout on an axis outside axes if there is one, else axis 0, with
// the cut then moved as above; a 1-D array split over several ranks is
// transformed replicated. The last layout is where the result is left:
// the caller redistributes back to l unless asked not to.
func planStages(l dist.Layout, axes []int) []stage {
	shape, p := l.Shape(), l.Ranks()
	dims := dimsOf(l)
	cur := l
	done := make([]bool, len(shape))
	var stages []stage
	transformLocal := func() {
		var local []int
		for _, a := range axes {
			if !done[a] && isLocal(dims, a) {
				local = append(local, a)
				done[a] = true
			}
		}
		if len(local) > 0 {
			stages = append(stages, stage{layout: cur, axes: local})
		}
	}
	transformLocal()
	for {
		a := -1
		for i := len(axes) - 1; i >= 0; i-- { // the last axis first, as pencils go
			if !done[axes[i]] {
				a = axes[i]
				break
			}
		}
		if a < 0 {
			return stages
		}
		// Where to move a's cut: a local axis, the longest (the even
		// spread of the work), the first of equals.
		t := -1
		for k := range shape {
			if k != a && isLocal(dims, k) && (t < 0 || shape[k] > shape[t]) {
				t = k
			}
		}
		switch {
		case t >= 0:
			dims[t], dims[a] = dims[a], 1
		case len(shape) == 1:
			// A 1-D array split over ranks: transform it replicated.
			dims[a] = 1
			cur = dist.NewLayout(shape, dist.Replicated, p)
			stages = append(stages, stage{layout: cur, axes: []int{a}})
			done[a] = true
			continue
		default:
			// Every axis cut: to slabs on an axis not transformed, or 0.
			s := 0
			for k := range shape {
				if !slices.Contains(axes, k) {
					s = k
					break
				}
			}
			for k := range dims {
				dims[k] = 1
			}
			dims[s] = p
			cur = layoutOf(shape, dims, p)
			transformLocal()
			continue
		}
		cur = layoutOf(shape, dims, p)
		stages = append(stages, stage{layout: cur, axes: []int{a}})
		done[a] = true
	}
}

// checkAxes panics unless axes are distinct axes of an nd-dimensional
// array, a negative one counted from the end as in NumPy (-1 the last),
// and returns them from the start (all axes for nil), in a new slice.
func checkAxes(name string, nd int, axes []int) []int {
	if axes == nil {
		axes = make([]int, nd)
		for k := range axes {
			axes[k] = k
		}
		return axes
	}
	seen := make([]bool, nd)
	out := slices.Clone(axes)
	for k, a := range axes {
		a = normAxis(name, a, nd)
		if seen[a] {
			panic(fmt.Sprintf("fft: %s: axis %d given twice in %v", name, a, axes))
		}
		seen[a], out[k] = true, a
	}
	return out
}
