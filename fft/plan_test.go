package fft

import (
	"fmt"
	"slices"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
)

// TestPlanStages checks the layouts and axes of the slab and pencil
// methods, written out by hand: which axis is cut at each stage (dims) and
// which axes each stage transforms.
func TestPlanStages(t *testing.T) {
	type want struct {
		dims []int
		axes []int
	}
	for _, tc := range []struct {
		name string
		l    dist.Layout
		axes []int
		want []want
	}{
		{"2-D slab", dist.NewLayout([]int{8, 6}, 0, 2), []int{0, 1},
			[]want{{[]int{2, 1}, []int{1}}, {[]int{1, 2}, []int{0}}}},
		{"2-D split on 1", dist.NewLayout([]int{8, 6}, 1, 3), []int{0, 1},
			[]want{{[]int{1, 3}, []int{0}}, {[]int{3, 1}, []int{1}}}},
		{"2-D one rank", dist.NewLayout([]int{8, 6}, 0, 1), []int{0, 1},
			[]want{{[]int{1, 1}, []int{0, 1}}}},
		{"replicated", dist.NewLayout([]int{5, 3}, dist.Replicated, 4), []int{0, 1},
			[]want{{[]int{1, 1}, []int{0, 1}}}},
		{"split axis not transformed", dist.NewLayout([]int{4, 5, 6}, 0, 3), []int{1, 2},
			[]want{{[]int{3, 1, 1}, []int{1, 2}}}},
		{"3-D slab", dist.NewLayout([]int{4, 5, 6}, 0, 2), []int{0, 1, 2},
			[]want{{[]int{2, 1, 1}, []int{1, 2}}, {[]int{1, 1, 2}, []int{0}}}},
		{"3-D pencils", dist.NewGridLayout([]int{4, 5, 6}, []int{2, 2, 1}), []int{0, 1, 2},
			[]want{{[]int{2, 2, 1}, []int{2}}, {[]int{2, 1, 2}, []int{1}}, {[]int{1, 2, 2}, []int{0}}}},
		{"2-D grid, no local axis", dist.NewGridLayout([]int{6, 7}, []int{2, 2}), []int{0, 1},
			[]want{{[]int{4, 1}, []int{1}}, {[]int{1, 4}, []int{0}}}},
		{"1-D split", dist.NewLayout([]int{7}, 0, 3), []int{0},
			[]want{{[]int{1}, []int{0}}}},
		{"one split axis only", dist.NewLayout([]int{4, 9}, 0, 2), []int{0},
			[]want{{[]int{1, 2}, []int{0}}}},
	} {
		got := planStages(tc.l, tc.axes)
		var gs, ws string
		for _, s := range got {
			gs += fmt.Sprintf("%v%v ", dimsOf(s.layout), s.axes)
		}
		for _, w := range tc.want {
			ws += fmt.Sprintf("%v%v ", w.dims, w.axes)
		}
		if gs != ws {
			t.Errorf("%s: stages %s, want %s", tc.name, gs, ws)
		}
		// Every stage has the input's shape and rank count, and
		// transforms only axes whole on every rank.
		for _, s := range got {
			if !slices.Equal(s.layout.Shape(), tc.l.Shape()) || s.layout.Ranks() != tc.l.Ranks() {
				t.Errorf("%s: stage layout %v for input %v", tc.name, s.layout, tc.l)
			}
			for _, a := range s.axes {
				if !isLocal(dimsOf(s.layout), a) {
					t.Errorf("%s: stage %v transforms cut axis %d", tc.name, s.layout, a)
				}
			}
		}
	}
}

func TestCheckAxesPanics(t *testing.T) {
	for _, tc := range []struct {
		axes []int
		msg  string
	}{
		{[]int{2}, "fft: FFTN: axis 2 out of range for a 2-D array"},
		{[]int{-3}, "fft: FFTN: axis -3 out of range for a 2-D array"},
		{[]int{0, -2}, "fft: FFTN: axis 0 given twice in [0 -2]"},
		{[]int{1, 1}, "fft: FFTN: axis 1 given twice in [1 1]"},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.msg {
					t.Errorf("axes %v: panic %v, want %q", tc.axes, r, tc.msg)
				}
			}()
			checkAxes("FFTN", 2, tc.axes)
		}()
	}
	if got := checkAxes("FFTN", 3, nil); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("nil axes: %v", got)
	}
}
