package backendtest_test

import (
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/backendtest"
	"github.com/xpmpi/xpmpi/backend/cpu"
	"github.com/xpmpi/xpmpi/backend/driver"
)

// The capability suites must be able to fail: each mutant is the CPU
// backend with one capability method wrong in a way a real implementation
// could be, and TestMutantsFail runs the suite on it in a child process,
// which must fail naming the capability.

// mathMutant's Exp is 16 ulps high.
type mathMutant struct{ *cpu.Backend }

func (m mathMutant) Unary(op driver.UnaryOp, dst, x driver.Buffer) {
	m.Backend.Unary(op, dst, x)
	if op == driver.Exp && dst.DType() == backend.Float64 && dst.Len() > 0 {
		d := unsafe.Slice((*float64)(dst.Ptr()), dst.Len())
		for i, v := range d {
			if v > 0 && !math.IsInf(v, 0) {
				d[i] = math.Float64frombits(math.Float64bits(v) + 16)
			}
		}
	}
}

// sortMutant's SortByKey is not stable.
type sortMutant struct{ *cpu.Backend }

func (m sortMutant) SortByKey(keys, index driver.Buffer, base int64) {
	if keys.DType() != backend.Int32 || index == nil {
		m.Backend.SortByKey(keys, index, base)
		return
	}
	k := unsafe.Slice((*int32)(keys.Ptr()), keys.Len())
	ix := unsafe.Slice((*int64)(index.Ptr()), index.Len())
	for i := range ix {
		ix[i] = base + int64(i)
	}
	sort.Sort(byKey{k, ix})
}

type byKey struct {
	k  []int32
	ix []int64
}

func (b byKey) Len() int           { return len(b.k) }
func (b byKey) Less(i, j int) bool { return b.k[i] < b.k[j] }
func (b byKey) Swap(i, j int) {
	b.k[i], b.k[j] = b.k[j], b.k[i]
	b.ix[i], b.ix[j] = b.ix[j], b.ix[i]
}

// histMutant's Histogram leaves hi out of the last bin.
type histMutant struct{ *cpu.Backend }

func (m histMutant) Histogram(counts []int64, x driver.Buffer, lo, hi float64) {
	m.Backend.Histogram(counts, x, lo, hi)
	if x.DType() == backend.Float64 {
		for _, v := range unsafe.Slice((*float64)(x.Ptr()), x.Len()) {
			if v == hi {
				counts[len(counts)-1]--
			}
		}
	}
}

var mutants = map[string]struct {
	b   backend.Backend
	cap string
}{
	"math": {mathMutant{cpu.Default}, "Math"},
	"sort": {sortMutant{cpu.Default}, "Sorter"},
	"hist": {histMutant{cpu.Default}, "StatsReducer"},
}

func TestMutantsFail(t *testing.T) {
	if name := os.Getenv("BACKENDTEST_MUTANT"); name != "" {
		m := mutants[name]
		backendtest.TestCapabilities(t, m.b, m.cap)
		return
	}
	if testing.Short() {
		t.Skip("runs the capability suites three times in child processes")
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestMutantsFail$/^"+m.cap+"$")
			cmd.Env = append(os.Environ(), "BACKENDTEST_MUTANT="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the %s suite passed a backend whose %s is wrong:\n%s", m.cap, m.cap, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestMutantsFail/"+m.cap) {
				t.Errorf("the child failed, but not in the %s suite:\n%s", m.cap, out)
			}
		})
	}
}
