package algkern

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/algorithms"
	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/internal/fakecudatest"
	"github.com/xpmpi/xpmpi/kernels"
	"github.com/xpmpi/xpmpi/kernels/kerneltest"
	"github.com/xpmpi/xpmpi/profiling"
)

// The CUDA source of the kernels run without a GPU: backend/cuda's fake
// CUDA driver (backend/cuda/testdata/fakecuda, a libcuda.so.1 that runs
// kernels compiled as C++ on the host, with -ffp-contract=off) is built
// with the kernels' CUDA source compiled in (the float64 variant of each
// generic kernel under its name, and the other element types' variants
// as renamed copies, each in a namespace of its own: the driver finds an
// entry by name; internal/fakecudatest builds it), and TestEmulatedChild
// runs in a child process that loads it as its driver. There the API functions take the CUDA path (launches of the
// CUDA kernels, compiled from the same text as for a GPU, on the
// backend's device arrays, strict: no host fallback) and must give the
// algorithms package's bits, and every parity case's CUDA run must give
// the host implementation's. What this cannot check is the GPU's own
// arithmetic (the kernels use only +, *, / and comparisons, correctly
// rounded on both). The API functions run the float64 variants only.

// syncs lists the kernels that call __syncthreads (the fake driver runs
// their threads as fibers).
var syncs = map[string]int{"mask_scan": 1}

// hosts are the host implementations of the kernels.
var hosts = map[*kernels.Kernel]kernels.HostFunc{
	mortonKeys2Kernel: mortonKeys2Host, mortonKeys3Kernel: mortonKeys3Host,
	segmentSum32Kernel: segmentSumHost, segmentSum64Kernel: segmentSumHost,
	maskCountKernel: maskCountHost, maskScanKernel: maskScanHost, maskIndexKernel: maskIndexHost, compactKernel: compactHost,
}

// renamedSet is one source's entries for one element type other than
// float64, renamed NAME_TYPE so that the fake driver, which finds an entry
// by name, can hold them next to the float64 variants: the source text
// with the entries renamed (the kernel's code unchanged), and the kernels
// made from it, with the original kernels' host implementations and
// parity cases.
type renamedSet struct {
	dt      backend.DType
	source  string // the variant's translation unit
	kernels []*kernels.Kernel
}

// renamedSets returns every element type's renamed kernels, by source.
func renamedSets() []renamedSet {
	var sets []renamedSet
	var sources []string
	bySource := map[string][]*kernels.Kernel{}
	for _, k := range allKernels {
		if len(k.Types()) == 0 {
			continue
		}
		if _, ok := bySource[k.Source()]; !ok {
			sources = append(sources, k.Source())
		}
		bySource[k.Source()] = append(bySource[k.Source()], k)
	}
	for _, src := range sources {
		ks := bySource[src]
		for _, dt := range ks[0].Types() {
			if dt == backend.Float64 {
				continue
			}
			renamed := src
			for _, k := range ks {
				renamed = strings.ReplaceAll(renamed, "void "+k.Name()+"(", "void "+k.Name()+"_"+dt.String()+"(")
			}
			set := renamedSet{dt: dt}
			for _, k := range ks {
				rk := kernels.MustNew(kernels.Spec{Name: k.Name() + "_" + dt.String(), CUDA: renamed, Host: hosts[k],
					Types: []backend.DType{dt}, Parity: k.ParityCases()})
				set.kernels = append(set.kernels, rk)
			}
			set.source = set.kernels[0].VariantSource(set.kernels[0].Variants()[0])
			sets = append(sets, set)
		}
	}
	return sets
}

// variantFor returns the variant compiled into the fake driver.
func variantFor(k *kernels.Kernel) kernels.Variant {
	for _, v := range k.Variants() {
		if !v.Generic || v.DType == backend.Float64 {
			return v
		}
	}
	panic("no float64 variant of " + k.Name())
}

func TestEmulated(t *testing.T) {
	// The headers at global scope, so that the copies of the namespaces
	// below (guarded out) use these.
	var headers strings.Builder
	for _, h := range []string{"xpmpi/cell.cuh", "xpmpi/morton.cuh"} {
		text, _ := kernels.Header(h)
		headers.WriteString(text + "\n")
	}
	srcs := []fakecudatest.Source{{Code: headers.String()}}
	index := map[string]int{} // by kernel source
	for _, k := range allKernels {
		i, ok := index[k.Source()]
		if !ok {
			i = len(srcs)
			index[k.Source()] = i
			srcs = append(srcs, fakecudatest.Source{Code: k.VariantSource(variantFor(k)) + "\n#undef T\n"})
		}
		srcs[i].Entries = append(srcs[i].Entries, fakecudatest.Entry{Name: k.Name(), Syncs: syncs[k.Name()] != 0})
	}
	for i, set := range renamedSets() {
		src := fakecudatest.Source{Code: set.source + "\n#undef T\n", Scope: fmt.Sprintf("xpmpi_renamed_%d", i)}
		for _, k := range set.kernels {
			src.Entries = append(src.Entries, fakecudatest.Entry{Name: k.Name(), Syncs: syncs[k.Name()] != 0})
		}
		srcs = append(srcs, src)
	}
	fakecudatest.Build(t, srcs...).Run(t, "TestEmulatedChild", "XPMPI_CUDA_DEBUG=1")
}

// TestEmulatedChild runs in the child process of TestEmulated, on the
// CUDA backend of the fake driver, strict (no host fallback).
func TestEmulatedChild(t *testing.T) {
	fakecudatest.SkipUnlessChild(t)
	dev, err := backend.Lookup("cuda")
	if err != nil {
		t.Fatal(err)
	}
	// Every parity case: the CUDA kernel against the host implementation.
	cases := 0
	for _, k := range allKernels {
		for _, c := range k.ParityCases() {
			if err := kerneltest.CheckCase(k, c, dev, backend.Float64); err != nil {
				t.Errorf("%s: %s: %v", k.Name(), c.Name, err)
			}
			cases++
		}
	}
	t.Logf("%d parity cases: the CUDA source's results are the host implementations' bits", cases)
	cases = 0
	for _, set := range renamedSets() {
		for _, k := range set.kernels {
			for _, c := range k.ParityCases() {
				if err := kerneltest.CheckCase(k, c, dev, set.dt); err != nil {
					t.Errorf("%s: %s: %v", k.Name(), c.Name, err)
				}
				cases++
			}
		}
	}
	t.Logf("%d parity cases of the other element types' variants (renamed copies): the host implementations' bits", cases)

	// The API against package algorithms, on the device.
	count := profiling.Counting(func() {
		for _, n := range []int{0, 1, 7, chunk + 1} {
			for _, levels := range []int{0, 5, 21, 32} {
				lower, upper := [3]float64{-1, 2, 0}, [3]float64{3, -2, 0.125}
				var c [3][]float64
				for a := range c {
					c[a] = coords(n, lower[a], upper[a], levels, 3*a)
				}
				want := make([]uint64, n)
				algorithms.MortonKeys2(want, c[0], c[1], [2]float64(lower[:2]), [2]float64(upper[:2]), levels)
				dst := put(t, dev, make([]uint64, n))
				if err := MortonKeys2(dst, put(t, dev, c[0]), put(t, dev, c[1]), [2]float64(lower[:2]), [2]float64(upper[:2]), levels); err != nil {
					t.Fatal(err)
				}
				if got := get(t, dst); !slices.Equal(got, want) {
					t.Errorf("n=%d levels=%d: MortonKeys2 on %v differs from algorithms.MortonKeys2", n, levels, dev.Device())
				}
				if levels > algorithms.MaxLevels3 {
					continue
				}
				algorithms.MortonKeys3(want, c[0], c[1], c[2], lower, upper, levels)
				if err := MortonKeys3(dst, put(t, dev, c[0]), put(t, dev, c[1]), put(t, dev, c[2]), lower, upper, levels); err != nil {
					t.Fatal(err)
				}
				if got := get(t, dst); !slices.Equal(got, want) {
					t.Errorf("n=%d levels=%d: MortonKeys3 on %v differs from algorithms.MortonKeys3", n, levels, dev.Device())
				}
			}
		}
		testSegmentSum[float64, int64](t, dev)
		testSegmentSum[float64, int32](t, dev)
		for _, n := range []int{0, 1, compactTile, 3*compactTile + 7} {
			mask := make([]uint8, n)
			bools := make([]bool, n)
			xs := make([]float64, n)
			for i := range mask {
				if h := uint32(i) * 2654435761; h>>30 != 1 {
					mask[i] = uint8(h>>20) | 1
				}
				bools[i] = mask[i] != 0
				xs[i] = float64(i) + 0.5
			}
			want := algorithms.MaskIndex(bools)
			idx := put(t, dev, make([]int64, n))
			m, err := MaskIndex(idx, put(t, dev, mask))
			if err != nil {
				t.Fatal(err)
			}
			got := get(t, idx)
			if m != len(want) {
				t.Errorf("n=%d: MaskIndex %d, want %d", n, m, len(want))
				continue
			}
			for k, i := range want {
				if got[k] != int64(i) {
					t.Errorf("n=%d: idx[%d] = %d, want %d", n, k, got[k], i)
					break
				}
			}
			wantX := slices.Clone(xs)
			wm := algorithms.Compact(bools, wantX)
			dst := put(t, dev, make([]float64, n))
			m, err = Compact(dst, put(t, dev, xs), put(t, dev, mask))
			if err != nil {
				t.Fatal(err)
			}
			if gx := get(t, dst); m != wm || !slices.Equal(gx[:m], wantX[:wm]) {
				t.Errorf("n=%d: Compact %d elements, want %d", n, m, wm)
			}
		}
	})
	if f, c := count.Count(profiling.Fallback), count.Count(profiling.KernelConversion); f != 0 || c != 0 {
		t.Errorf("%d host fallbacks and %d kernel conversions on %v", f, c, dev.Device())
	}
}
