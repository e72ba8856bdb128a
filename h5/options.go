package h5

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/xpmpi/xpmpi/mpi"
)

// ErrUnavailable is (wrapped in) the error of every function of a build
// without HDF5 (see Available).
var ErrUnavailable = errors.New("this binary is built without HDF5: install libhdf5-openmpi-dev and build with -tags mpi,hdf5 (Open MPI)")

// Option sets how Save writes a dataset.
type Option func(*options)

type options struct {
	chunks   []int
	gzip     int // -1: none
	attrs    map[string]any
	truncate bool
}

func saveOptions(opts []Option) options {
	o := options{gzip: -1}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Chunks stores the dataset in chunks of this shape (HDF5's chunked
// layout), one entry per dimension; a chunk longer than its axis is cut to
// the axis. Without Chunks and Gzip the dataset is contiguous.
func Chunks(shape ...int) Option {
	for _, k := range shape {
		if k < 1 {
			panic(fmt.Sprintf("h5: Chunks(%v): every length must be at least 1", shape))
		}
	}
	s := append([]int(nil), shape...)
	return func(o *options) { o.chunks = s }
}

// Gzip compresses the dataset with HDF5's deflate filter at level (0 to 9),
// which h5py writes as compression="gzip". It needs chunks: without Chunks,
// Save chooses them from the layout (see the package documentation).
func Gzip(level int) Option {
	if level < 0 || level > 9 {
		panic(fmt.Sprintf("h5: Gzip(%d): the level is 0 to 9", level))
	}
	return func(o *options) { o.gzip = level }
}

// Attributes writes attrs as attributes of the dataset: strings (UTF-8,
// variable length, as h5py writes str), integers (int64), floats (float64),
// and slices of integers or floats (1-D).
func Attributes(attrs map[string]any) Option {
	checkAttrs("Attributes", attrs)
	return func(o *options) { o.attrs = attrs }
}

// Truncate makes Save create the file anew, removing what it held, instead
// of adding the dataset to an existing file.
func Truncate() Option { return func(o *options) { o.truncate = true } }

func checkAttrs(op string, attrs map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(attrs)) { // the same key named every time
		if err := checkAttr(attrs[k]); err != nil {
			panic(fmt.Sprintf("h5: %s: attribute %q: %v", op, k, err))
		}
	}
}

func checkAttr(v any) error {
	switch x := v.(type) {
	case string:
		if strings.IndexByte(x, 0) >= 0 {
			return fmt.Errorf("a string with a NUL byte")
		}
		return nil
	case int, int8, int16, int32, int64, uint8, uint16, uint32, float32, float64, []int, []int64, []float64:
		return nil
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Errorf("%d does not fit an int64", x)
		}
		return nil
	case uint:
		if uint64(x) > math.MaxInt64 {
			return fmt.Errorf("%d does not fit an int64", x)
		}
		return nil
	}
	return fmt.Errorf("a %T: attributes are strings, integers, floats or slices of integers or floats", v)
}

// checkName panics unless name is a path of HDF5 links ("u", "fields/u",
// "/fields/u").
func checkName(op, name string) string {
	n := strings.TrimPrefix(name, "/")
	if n == "" && op != "ReadAttrs" && op != "SetAttrs" && op != "CreateGroup" {
		panic(fmt.Sprintf("h5: %s: empty dataset name", op))
	}
	for _, p := range strings.Split(n, "/") {
		if n != "" && (p == "" || p == "." || p == "..") {
			panic(fmt.Sprintf("h5: %s: name %q: want a path of links separated by /, such as \"fields/u\"", op, name))
		}
	}
	return "/" + n
}

func where(path, name string) string { return path + ":" + name }

func pathArg(path, name string) mpi.Arg {
	h := fnv.New64a()
	h.Write([]byte(path + "\x00" + name))
	return mpi.Arg{Name: "path", Value: int64(h.Sum64()), Text: where(path, name)}
}
