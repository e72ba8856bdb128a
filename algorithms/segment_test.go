package algorithms

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// segmentSumRef is the plain loop SegmentSum must match.
func segmentSumRef[T Number, K SegmentKey](n int, keys []K, values []T, width int) []T {
	out := make([]T, n*width)
	for i, k := range keys {
		if k < 0 {
			continue
		}
		for j := 0; j < width; j++ {
			out[int(k)*width+j] += values[i*width+j]
		}
	}
	return out
}

func checkSegmentSum[T Number, K SegmentKey](t *testing.T, name string, val func(r *rand.Rand) T) {
	t.Run(name, func(t *testing.T) {
		r := rand.New(rand.NewPCG(4, uint64(len(name))))
		for _, tc := range []struct{ rows, n, width int }{
			{0, 0, 1}, {0, 3, 2}, {1, 1, 1}, {10, 3, 1}, {1000, 17, 1}, {1000, 17, 3}, {500, 1, 4}, {100, 200, 2},
		} {
			keys := make([]K, tc.rows)
			values := make([]T, tc.rows*tc.width)
			for i := range keys {
				keys[i] = K(r.IntN(tc.n+3) - 3) // about 3/(n+3) of the rows dropped
				if tc.n == 0 {
					keys[i] = -1
				}
			}
			for i := range values {
				values[i] = val(r)
			}
			out := make([]T, tc.n*tc.width)
			for i := range out {
				out[i] = 99 // overwritten
			}
			SegmentSum(out, keys, values, tc.width)
			if want := segmentSumRef(tc.n, keys, values, tc.width); !slices.Equal(out, want) {
				t.Errorf("rows %d n %d width %d: SegmentSum = %v, want %v", tc.rows, tc.n, tc.width, out[:min(len(out), 8)], want[:min(len(want), 8)])
			}
		}
	})
}

func TestSegmentSum(t *testing.T) {
	checkSegmentSum[float64, int64](t, "float64/int64", func(r *rand.Rand) float64 { return r.NormFloat64() })
	checkSegmentSum[float32, int32](t, "float32/int32", func(r *rand.Rand) float32 { return float32(r.NormFloat64()) })
	checkSegmentSum[int64, int](t, "int64/int", func(r *rand.Rand) int64 { return int64(r.IntN(2000)) - 1000 })
	checkSegmentSum[int32, int64](t, "int32/int64", func(r *rand.Rand) int32 { return int32(r.IntN(2000)) - 1000 })
	checkSegmentSum[uint32, int64](t, "uint32/int64", func(r *rand.Rand) uint32 { return r.Uint32() })
	checkSegmentSum[uint64, int32](t, "uint64/int32", func(r *rand.Rand) uint64 { return r.Uint64() })

	vals := []float64{1, 2, 3, 4, 5, 6}
	mustPanic(t, "algorithms: SegmentSum key 2 of row 1 >= number of segments 2", func() {
		SegmentSum(make([]float64, 2), []int64{0, 2, 1, 0, 0, 0}, vals, 1)
	})
	mustPanic(t, "algorithms: SegmentSum out and values share memory", func() {
		SegmentSum(vals[3:5], []int64{0, 1, 0, 1}, vals[:4], 1)
	})
	mustPanic(t, "algorithms: SegmentSum values length", func() { SegmentSum(make([]float64, 2), []int64{0, 1}, vals, 2) })
	mustPanic(t, "algorithms: SegmentSum out length", func() { SegmentSum(make([]float64, 3), []int64{0, 1, 0}, vals, 2) })
	mustPanic(t, "algorithms: SegmentSum width", func() { SegmentSum(make([]float64, 3), []int64{}, nil, 0) })
	// A panic on a bad key leaves out untouched.
	out := []float64{7, 7}
	func() {
		defer func() { _ = recover() }()
		SegmentSum(out, []int64{0, 1, 5, 0, 0, 0}, vals, 1)
	}()
	if out[0] != 7 || out[1] != 7 {
		t.Errorf("SegmentSum wrote %v before panicking", out)
	}
}

func TestSegmentSumDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	keys := make([]int64, 100000)
	values := make([]float64, len(keys))
	for i := range keys {
		keys[i] = int64(r.IntN(10))
		values[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	one := make([]float64, 10)
	SegmentSum(one, keys, values, 1)
	runtime.GOMAXPROCS(max(2, prev))
	two := make([]float64, 10)
	SegmentSum(two, keys, values, 1)
	for i := range one {
		if math.Float64bits(one[i]) != math.Float64bits(two[i]) {
			t.Errorf("segment %d: %v with GOMAXPROCS 1, %v with more", i, one[i], two[i])
		}
	}
}

func TestSegmentBounds(t *testing.T) {
	negZero := math.Copysign(0, -1)
	nan := math.NaN()
	cases := []struct {
		name          string
		sorted        []float64
		unique        []float64
		starts, stops []int
	}{
		{"empty", nil, nil, nil, nil},
		{"one", []float64{5}, []float64{5}, []int{0}, []int{1}},
		{"runs", []float64{1, 1, 2, 3, 3, 3}, []float64{1, 2, 3}, []int{0, 2, 3}, []int{2, 3, 6}},
		{"distinct", []float64{-2, -1, 4}, []float64{-2, -1, 4}, []int{0, 1, 2}, []int{1, 2, 3}},
		{"equal", []float64{7, 7, 7}, []float64{7}, []int{0}, []int{3}},
		{"zeros and NaNs", []float64{nan, nan, negZero, 0, negZero, math.Inf(1)}, []float64{nan, negZero, math.Inf(1)}, []int{0, 2, 5}, []int{2, 5, 6}},
	}
	for _, tc := range cases {
		unique, starts, stops := SegmentBounds(tc.sorted)
		same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b) }
		if !slices.EqualFunc(unique, tc.unique, same) || !slices.Equal(starts, tc.starts) || !slices.Equal(stops, tc.stops) {
			t.Errorf("%s: SegmentBounds = %v %v %v, want %v %v %v", tc.name, unique, starts, stops, tc.unique, tc.starts, tc.stops)
		}
	}
	// Agrees with the output of SortByKey on random keys.
	r := rand.New(rand.NewPCG(6, 6))
	keys := make([]int64, 3000)
	for i := range keys {
		keys[i] = int64(r.IntN(100)) - 50
	}
	SortByKey(keys)
	unique, starts, stops := SegmentBounds(keys)
	for s := range unique {
		for i := starts[s]; i < stops[s]; i++ {
			if keys[i] != unique[s] {
				t.Fatalf("run %d [%d, %d) holds %d, want %d", s, starts[s], stops[s], keys[i], unique[s])
			}
		}
		if s > 0 && (stops[s-1] != starts[s] || unique[s-1] >= unique[s]) {
			t.Fatalf("runs %d and %d are not adjacent and increasing", s-1, s)
		}
	}
	mustPanic(t, "algorithms: SegmentBounds keys not sorted", func() { SegmentBounds([]int{1, 3, 2}) })
}

func TestCellOffsets(t *testing.T) {
	cases := []struct {
		name   string
		cells  []int
		nCells int
		want   []int
	}{
		{"empty", nil, 3, []int{0, 0, 0, 0}},
		{"no cells", nil, 0, []int{0}},
		{"all cells", []int{0, 1, 2}, 3, []int{0, 1, 2, 3}},
		{"gaps", []int{1, 1, 4}, 6, []int{0, 0, 2, 2, 2, 3, 3}},
		{"one cell", []int{2, 2, 2}, 3, []int{0, 0, 0, 3}},
	}
	for _, tc := range cases {
		if got := CellOffsets(tc.cells, tc.nCells); !slices.Equal(got, tc.want) {
			t.Errorf("%s: CellOffsets(%v, %d) = %v, want %v", tc.name, tc.cells, tc.nCells, got, tc.want)
		}
	}
	// Random sorted cells of an unsigned type, against counting.
	r := rand.New(rand.NewPCG(7, 7))
	cells := make([]uint32, 5000)
	const nCells = 300
	for i := range cells {
		cells[i] = uint32(r.IntN(nCells))
	}
	slices.Sort(cells)
	off := CellOffsets(cells, nCells)
	for c := range nCells {
		lo, _ := slices.BinarySearch(cells, uint32(c))
		hi, _ := slices.BinarySearch(cells, uint32(c+1))
		if off[c] != lo || off[c+1] != hi {
			t.Fatalf("cell %d: offsets [%d, %d), want [%d, %d)", c, off[c], off[c+1], lo, hi)
		}
	}
	mustPanic(t, "algorithms: CellOffsets cell 3 at 1 outside [0, 3)", func() { CellOffsets([]int{0, 3}, 3) })
	mustPanic(t, "algorithms: CellOffsets cell -1", func() { CellOffsets([]int64{-1, 0}, 3) })
	mustPanic(t, "algorithms: CellOffsets cells not sorted", func() { CellOffsets([]int{1, 0}, 3) })
	mustPanic(t, "algorithms: CellOffsets nCells", func() { CellOffsets([]int{}, -1) })
}
