package kernels

import (
	"embed"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/xpmpi/xpmpi/rng"
)

// The shipped CUDA headers, offered to kernels as #include "xpmpi/NAME".
//
//go:embed include/xpmpi/*.cuh
var headerFS embed.FS

// headers maps each shipped header's include name to its text.
var headers = func() map[string]string {
	m := map[string]string{"xpmpi/philox.cuh": rng.CUDAHeader}
	entries, err := headerFS.ReadDir("include/xpmpi")
	if err != nil {
		panic("kernels: the embedded headers: " + err.Error())
	}
	for _, e := range entries {
		b, err := headerFS.ReadFile(path.Join("include/xpmpi", e.Name()))
		if err != nil {
			panic("kernels: the embedded headers: " + err.Error())
		}
		m["xpmpi/"+e.Name()] = string(b)
	}
	return m
}()

// Headers returns the include names of the CUDA headers shipped for
// hand-written kernels, sorted:
//
//	xpmpi/atomic.cuh  atomic min and max of float and double (NaN wins), as MinNaN and MaxNaN
//	xpmpi/cell.cuh    the cell of a coordinate, as algorithms.CellIndex
//	xpmpi/morton.cuh  2-D and 3-D Morton keys, as algorithms.Morton2 and Morton3
//	xpmpi/philox.cuh  Philox4x32-10 and the draws of package rng (rng.CUDAHeader)
//	xpmpi/reduce.cuh  a deterministic block sum, as BlockSum
//	xpmpi/view.cuh    2-D and 3-D row-major views, index-checked with XPMPI_CUDA_DEBUG=1
//
// A kernel's source includes them as #include "xpmpi/reduce.cuh" (or
// <xpmpi/reduce.cuh>): each variant's source has the header's text in
// place of the line (backend/cuda's NVRTC binding takes no include
// files), with #line markers so that NVRTC's messages name the header or
// the source and their own line numbers. Their functions give the same
// bits as the Go functions named above; the tests of this package compile
// them with g++ on the host and compare.
func Headers() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for n := range headers {
			if !yield(n) {
				return
			}
		}
	})
}

// Header returns the text of a shipped header by its include name
// ("xpmpi/morton.cuh").
func Header(name string) (string, bool) {
	h, ok := headers[name]
	return h, ok
}

// includeRE matches an #include of a header under xpmpi/.
var includeRE = regexp.MustCompile(`^\s*#\s*include\s*[<"](xpmpi/[^>"]+)[>"]`)

// anyIncludeRE matches any #include line.
var anyIncludeRE = regexp.MustCompile(`^\s*#\s*include\b\s*(.*)$`)

// checkIncludes returns an error for an #include of anything but a
// shipped header: an xpmpi/ header that is not shipped, or any other file
// (<stdio.h>, "mine.h"), which NVRTC is never given.
func checkIncludes(kernel, src string) error {
	for i, line := range strings.Split(src, "\n") {
		if m := includeRE.FindStringSubmatch(line); m != nil {
			if _, ok := headers[m[1]]; !ok {
				return fmt.Errorf("kernels: %s (line %d): no shipped header %s (shipped: %s)", kernel, i+1, m[1], strings.Join(Headers(), ", "))
			}
			continue
		}
		if m := anyIncludeRE.FindStringSubmatch(line); m != nil {
			return fmt.Errorf("kernels: %s (line %d): #include %s: a kernel may include only the shipped headers (%s), as #include \"xpmpi/NAME\"; NVRTC is given no other file, and its built-ins need none", kernel, i+1, strings.TrimSpace(m[1]), strings.Join(Headers(), ", "))
		}
	}
	return nil
}

// expandIncludes returns src, named file, with each #include of a shipped
// header replaced by the header's text between #line markers.
func expandIncludes(src, file string) string {
	if !strings.Contains(src, "xpmpi/") {
		return src
	}
	lines := strings.Split(src, "\n")
	var sb strings.Builder
	for i, line := range lines {
		m := includeRE.FindStringSubmatch(line)
		if m == nil {
			sb.WriteString(line)
			if i < len(lines)-1 {
				sb.WriteByte('\n')
			}
			continue
		}
		h, ok := headers[m[1]]
		if !ok {
			sb.WriteString(line + "\n") // NVRTC reports it
			continue
		}
		fmt.Fprintf(&sb, "#line 1 %q\n%s\n#line %d %q\n", m[1], h, i+2, file)
	}
	return sb.String()
}

// BlockSum returns the sum of vals added in the pairwise tree of
// xpmpi/reduce.cuh's xpmpi_block_sum over a block of len(vals) threads:
// p is the smallest power of two >= n; for stride p/2, p/4, ..., 1, value
// i becomes vals[i] + vals[i+stride] for i < stride and i+stride < n. The
// result is the device's bit for bit. vals is not changed; 0 for no
// values.
func BlockSum[T float32 | float64](vals []T) T {
	s := slices.Clone(vals)
	n := len(s)
	if n == 0 {
		return 0
	}
	p := 1
	for p < n {
		p <<= 1
	}
	for stride := p / 2; stride > 0; stride >>= 1 {
		for i := 0; i < stride && i+stride < n; i++ {
			s[i] = s[i] + s[i+stride]
		}
	}
	return s[0]
}

// MinNaN returns the smaller of a and b by the rule of xpmpi/atomic.cuh: a
// NaN wins (a if both are), -0 is smaller than +0. Applied to values in
// any order it gives the same bits (but the payload of the NaN first
// stored).
func MinNaN[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case less(b, a):
		return b
	}
	return a
}

// MaxNaN returns the larger of a and b by the rule of xpmpi/atomic.cuh: a
// NaN wins (a if both are), +0 is larger than -0.
func MaxNaN[T float32 | float64](a, b T) T {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case less(a, b):
		return b
	}
	return a
}

func less[T float32 | float64](a, b T) bool {
	if a == b {
		return a == 0 && math.Signbit(float64(a)) && !math.Signbit(float64(b))
	}
	return a < b
}
