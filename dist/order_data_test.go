package dist_test

import (
	"github.com/xpmpi/xpmpi/dist"
)

// The reference values below were computed by NumPy 1.24 (np.unique with
// return_inverse and return_counts, np.argsort(kind="stable"),
// np.searchsorted, np.median, np.quantile and np.percentile with their
// methods).

// nan is math.NaN(), declared in isclose_test.go.

type orderCase struct {
	name                     string
	x, unique                []float64
	counts, inverse, argsort []int64
	median, percentile37     float64
	quantiles                []float64
	methods43, methods45     map[dist.QuantileMethod]float64
}

var orderQs = []float64{0, 0.1, 0.25, 0.5, 0.73, 1}

var orderCases = []orderCase{
	{name: "mixed",
		x:      []float64{3.0, 1.0, nan, 2.0, 2.0, -0.0, 0.0, nan, 5.0, 1.0, -7.0, 2.5, 3.0},
		unique: []float64{-7.0, -0.0, 1.0, 2.0, 2.5, 3.0, 5.0, nan}, counts: []int64{1, 2, 2, 2, 1, 2, 1, 2}, inverse: []int64{5, 2, 7, 3, 3, 1, 1, 7, 6, 2, 0, 4, 5},
		argsort:      []int64{10, 5, 6, 1, 9, 3, 4, 11, 0, 12, 8, 2, 7},
		median:       nan,
		quantiles:    []float64{nan, nan, nan, nan, nan, nan},
		methods43:    map[dist.QuantileMethod]float64{"lower": nan, "higher": nan, "nearest": nan, "midpoint": nan, "linear": nan},
		methods45:    map[dist.QuantileMethod]float64{"lower": nan, "higher": nan, "nearest": nan, "midpoint": nan, "linear": nan},
		percentile37: nan,
	},
	{name: "equal",
		x:      []float64{4.0, 4.0, 4.0, 4.0, 4.0},
		unique: []float64{4.0}, counts: []int64{5}, inverse: []int64{0, 0, 0, 0, 0},
		argsort:      []int64{0, 1, 2, 3, 4},
		median:       4.0,
		quantiles:    []float64{4.0, 4.0, 4.0, 4.0, 4.0, 4.0},
		methods43:    map[dist.QuantileMethod]float64{"lower": 4.0, "higher": 4.0, "nearest": 4.0, "midpoint": 4.0, "linear": 4.0},
		methods45:    map[dist.QuantileMethod]float64{"lower": 4.0, "higher": 4.0, "nearest": 4.0, "midpoint": 4.0, "linear": 4.0},
		percentile37: 4.0,
	},
	{name: "single",
		x:      []float64{5.0},
		unique: []float64{5.0}, counts: []int64{1}, inverse: []int64{0},
		argsort:      []int64{0},
		median:       5.0,
		quantiles:    []float64{5.0, 5.0, 5.0, 5.0, 5.0, 5.0},
		methods43:    map[dist.QuantileMethod]float64{"lower": 5.0, "higher": 5.0, "nearest": 5.0, "midpoint": 5.0, "linear": 5.0},
		methods45:    map[dist.QuantileMethod]float64{"lower": 5.0, "higher": 5.0, "nearest": 5.0, "midpoint": 5.0, "linear": 5.0},
		percentile37: 5.0,
	},
	{name: "twonan",
		x:      []float64{2.0, nan},
		unique: []float64{2.0, nan}, counts: []int64{1, 1}, inverse: []int64{0, 1},
		argsort:      []int64{0, 1},
		median:       nan,
		quantiles:    []float64{nan, nan, nan, nan, nan, nan},
		methods43:    map[dist.QuantileMethod]float64{"lower": nan, "higher": nan, "nearest": nan, "midpoint": nan, "linear": nan},
		methods45:    map[dist.QuantileMethod]float64{"lower": nan, "higher": nan, "nearest": nan, "midpoint": nan, "linear": nan},
		percentile37: nan,
	},
	{name: "ints",
		x:      []float64{5.0, -3.0, 5.0, 0.0, 7.0, 7.0, -3.0, 1.0, 9.0, 0.0, 5.0},
		unique: []float64{-3.0, 0.0, 1.0, 5.0, 7.0, 9.0}, counts: []int64{2, 2, 1, 3, 2, 1}, inverse: []int64{3, 0, 3, 1, 4, 4, 0, 2, 5, 1, 3},
		argsort:      []int64{1, 6, 3, 9, 7, 0, 2, 10, 4, 5, 8},
		median:       5.0,
		quantiles:    []float64{-3.0, -3.0, 0.0, 5.0, 5.6, 9.0},
		methods43:    map[dist.QuantileMethod]float64{"lower": 1.0, "higher": 5.0, "nearest": 1.0, "midpoint": 3.0, "linear": 2.1999999999999993},
		methods45:    map[dist.QuantileMethod]float64{"lower": 1.0, "higher": 5.0, "nearest": 1.0, "midpoint": 3.0, "linear": 3.0},
		percentile37: 0.75,
	},
	{name: "nonan",
		x:      []float64{0.5, -1.5, 3.0, 3.0, 8.0, -2.0, 0.5, 7.0, 1.0, 1.0, 1.0, 6.0},
		unique: []float64{-2.0, -1.5, 0.5, 1.0, 3.0, 6.0, 7.0, 8.0}, counts: []int64{1, 1, 2, 3, 2, 1, 1, 1}, inverse: []int64{2, 1, 4, 4, 7, 0, 2, 6, 3, 3, 3, 5},
		argsort:      []int64{5, 1, 0, 6, 8, 9, 10, 2, 3, 11, 7, 4},
		median:       1.0,
		quantiles:    []float64{-2.0, -1.2999999999999998, 0.5, 1.0, 3.089999999999998, 8.0},
		methods43:    map[dist.QuantileMethod]float64{"lower": 1.0, "higher": 1.0, "nearest": 1.0, "midpoint": 1.0, "linear": 1.0},
		methods45:    map[dist.QuantileMethod]float64{"lower": 1.0, "higher": 1.0, "nearest": 1.0, "midpoint": 1.0, "linear": 1.0},
		percentile37: 1.0,
	},
}
var searchA = []float64{-7.0, -0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 2.5, 3.0, 3.0, 5.0, nan, nan}
var searchV = []float64{-10.0, 1.0, 2.0, 2.5, nan, 100.0, 0.0, -0.0, 3.0, -7.0, 5.0}
var searchLeft = []int64{0, 3, 5, 7, 11, 11, 1, 1, 8, 0, 10}
var searchRight = []int64{0, 5, 7, 8, 13, 11, 3, 3, 10, 1, 11}

// big: x[i] = float64((i*7919)%10007 - 5000), n = 20011
var bigQuantiles = []float64{-5000.0, -4000.0, -2498.5, 3.0, 2305.0, 5006.0}
var bigMedian = 3.0
var bigUniqueLen = 10007
var bigMethods = map[dist.QuantileMethod]float64{"lower": -697.0, "higher": -697.0, "nearest": -697.0, "midpoint": -697.0, "linear": -697.0}

// grid: x[r][c] = float64((r*3+c*5)%7 - 2), shape 5x4, x[1][2] = NaN
var grid2Argsort0 = []int64{0, 3, 4, 2, 3, 1, 2, 0, 1, 4, 0, 3, 4, 2, 3, 1, 2, 0, 1, 4}
var grid2Median0 = []float64{1.0, 1.0, nan, 1.0}
var grid2Pct0 = []float64{0.19999999999999996, -0.6000000000000001, nan, -0.6000000000000001}
var grid2Argsort1 = []int64{0, 3, 2, 1, 1, 0, 3, 2, 3, 2, 1, 0, 1, 0, 3, 2, 2, 1, 0, 3}
var grid2Median1 = []float64{0.0, nan, 1.0, 0.5, 2.0}
var grid2Pct1 = []float64{-1.1, nan, -0.20000000000000018, -0.20000000000000018, 0.7999999999999998}
var grid2Unique = []float64{-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, nan}
var grid2Counts = []int64{3, 3, 2, 4, 2, 3, 2, 1}
var grid2Inverse = []int64{0, 5, 3, 1, 3, 1, 7, 4, 6, 4, 2, 0, 2, 0, 5, 3, 5, 3, 1, 6}

// x3[i] = float64((i*5)%9 - 4), shape 2x3x4
var cube3Argsort0 = []int64{0, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1}
var cube3Quantile0 = []float64{-0.40000000000000036, -0.20000000000000018, 0.5999999999999996, 0.7999999999999998, 1.5999999999999996, 1.7999999999999998, -2.2, 2.8, -1.2000000000000002, -0.40000000000000036, -0.20000000000000018, 0.5999999999999996}
var cube3Argsort1 = []int64{0, 2, 0, 2, 1, 0, 1, 0, 2, 1, 2, 1, 2, 0, 1, 0, 0, 1, 2, 1, 1, 2, 0, 2}
var cube3Quantile1 = []float64{-1.6, 1.4, -0.6000000000000001, 2.4, 2.4, 0.3999999999999999, -1.0000000000000002, 1.4}
var cube3Argsort2 = []int64{0, 2, 1, 3, 0, 2, 1, 3, 1, 3, 0, 2, 1, 3, 0, 2, 2, 1, 3, 0, 0, 2, 1, 3}
var cube3Quantile2 = []float64{0.1999999999999993, 2.1999999999999993, -0.6000000000000005, 1.3999999999999995, 0.7999999999999998, 1.1999999999999993}
