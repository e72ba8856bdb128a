package algkern

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// compactTile is the number of mask elements per tile of the compaction
// kernels: one thread per tile counts, and later copies, its selected
// elements.
const compactTile = 512

// maskSource is the CUDA source of the compaction passes over a mask
// (nonzero bytes select), in tiles of tile elements:
//
//	mask_count  counts[t] = the selected elements of tile t (a thread
//	            each, reading its tile in order)
//	mask_scan   the exclusive scan of counts[0..ntiles), in place, and
//	            counts[ntiles] = the total: one block, a chunk of tiles
//	            per thread, the chunks' sums scanned by thread 0
//	mask_index  idx[offsets[t] + r] = the index of the r-th selected
//	            element of tile t (a thread each)
//
// Every result is an exact integer: they are deterministic by
// construction, the host implementations' values.
const maskSource = `
extern "C" __global__ void mask_count(long long n, long long tile, const unsigned char *mask, long long *counts)
{
	long long ntiles = (n + tile - 1) / tile;
	for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < ntiles; t += (long long)gridDim.x * blockDim.x) {
		long long c = 0, hi = (t + 1) * tile < n ? (t + 1) * tile : n;
		for (long long i = t * tile; i < hi; i++) {
			c += mask[i] != 0;
		}
		counts[t] = c;
	}
}

// mask_scan runs as one block of at most 1024 threads: thread t sums the
// counts of its chunk of ntiles/blockDim.x tiles, thread 0 scans the
// chunks' sums, and each thread rewrites its chunk from its offset.
extern "C" __global__ void mask_scan(long long ntiles, long long *counts)
{
	__shared__ long long sums[1024];
	unsigned int t = threadIdx.x, nt = blockDim.x;
	long long chunk = (ntiles + nt - 1) / nt;
	long long lo = t * chunk < ntiles ? t * chunk : ntiles;
	long long hi = lo + chunk < ntiles ? lo + chunk : ntiles;
	long long s = 0;
	for (long long i = lo; i < hi; i++) {
		s += counts[i];
	}
	sums[t] = s;
	__syncthreads();
	if (t == 0) {
		long long run = 0;
		for (unsigned int k = 0; k < nt; k++) {
			long long c = sums[k];
			sums[k] = run;
			run += c;
		}
	}
	__syncthreads();
	long long run = sums[t];
	for (long long i = lo; i < hi; i++) {
		long long c = counts[i];
		counts[i] = run;
		run += c;
	}
	if (t == nt - 1) {
		counts[ntiles] = run;
	}
}

extern "C" __global__ void mask_index(long long n, long long tile, const unsigned char *mask, const long long *offsets,
	long long *__restrict__ idx)
{
	long long ntiles = (n + tile - 1) / tile;
	for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < ntiles; t += (long long)gridDim.x * blockDim.x) {
		long long at = offsets[t], hi = (t + 1) * tile < n ? (t + 1) * tile : n;
		for (long long i = t * tile; i < hi; i++) {
			if (mask[i] != 0) {
				idx[at++] = i;
			}
		}
	}
}
`

// compactSource is the CUDA source of mask_compact, mask_index's
// scatter of values: dst[offsets[t] + r] = the r-th selected element of
// tile t.
const compactSource = `
extern "C" __global__ void mask_compact(long long n, long long tile, const unsigned char *mask, const long long *offsets,
	const T *x, T *__restrict__ dst)
{
	long long ntiles = (n + tile - 1) / tile;
	for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < ntiles; t += (long long)gridDim.x * blockDim.x) {
		long long at = offsets[t], hi = (t + 1) * tile < n ? (t + 1) * tile : n;
		for (long long i = t * tile; i < hi; i++) {
			if (mask[i] != 0) {
				dst[at++] = x[i];
			}
		}
	}
}
`

// The compaction kernels, registered in kernels.Default.
var (
	maskCountKernel = kernels.MustNew(kernels.Spec{
		Name:   "mask_count",
		Doc:    "selected elements per tile of a mask (algkern.MaskIndex, algkern.Compact)",
		CUDA:   maskSource,
		Host:   maskCountHost,
		Parity: maskCases("count"),
	})
	maskScanKernel = kernels.MustNew(kernels.Spec{
		Name:   "mask_scan",
		Doc:    "exclusive scan of the tiles' counts and their total (algkern.MaskIndex, algkern.Compact)",
		CUDA:   maskSource,
		Host:   maskScanHost,
		Parity: maskCases("scan"),
	})
	maskIndexKernel = kernels.MustNew(kernels.Spec{
		Name:   "mask_index",
		Doc:    "indices of a mask's selected elements, in order (algkern.MaskIndex, algorithms.MaskIndex)",
		CUDA:   maskSource,
		Host:   maskIndexHost,
		Parity: maskCases("index"),
	})
	compactKernel = kernels.MustNew(kernels.Spec{
		Name:   "mask_compact",
		Doc:    "a mask's selected elements, in order (algkern.Compact, algorithms.Compact)",
		CUDA:   compactSource,
		Host:   compactHost,
		Types:  numberTypes,
		Parity: maskCases("compact"),
	})
)

// scanConfig is mask_scan's launch: one block of 1024 threads.
var scanConfig = kernels.Config{N: 1024, Grid: kernels.Dim3{X: 1}, Block: kernels.Dim3{X: 1024}}

// tileRange returns the elements [lo, hi) of tile t of n.
func tileRange(t, tile, n int) (lo, hi int) { return t * tile, min((t+1)*tile, n) }

func maskCountHost(c *kernels.HostCall) error {
	n, tile := kernels.IntAt(c, 0), kernels.IntAt(c, 1)
	mask, counts := kernels.In[uint8](c, 2), kernels.Out[int64](c, 3)
	for t := range (n + tile - 1) / tile {
		lo, hi := tileRange(t, tile, n)
		cnt := int64(0)
		for _, m := range mask[lo:hi] {
			if m != 0 {
				cnt++
			}
		}
		counts[t] = cnt
	}
	return nil
}

func maskScanHost(c *kernels.HostCall) error {
	ntiles, counts := kernels.IntAt(c, 0), kernels.Out[int64](c, 1)
	run := int64(0)
	for t := range ntiles {
		cnt := counts[t]
		counts[t] = run
		run += cnt
	}
	counts[ntiles] = run
	return nil
}

func maskIndexHost(c *kernels.HostCall) error {
	n, tile := kernels.IntAt(c, 0), kernels.IntAt(c, 1)
	mask, offsets, idx := kernels.In[uint8](c, 2), kernels.In[int64](c, 3), kernels.Out[int64](c, 4)
	for t := range (n + tile - 1) / tile {
		lo, hi := tileRange(t, tile, n)
		at := offsets[t]
		for i := lo; i < hi; i++ {
			if mask[i] != 0 {
				idx[at] = int64(i)
				at++
			}
		}
	}
	return nil
}

func compactValues[T Number](c *kernels.HostCall) {
	n, tile := kernels.IntAt(c, 0), kernels.IntAt(c, 1)
	mask, offsets := kernels.In[uint8](c, 2), kernels.In[int64](c, 3)
	x, dst := kernels.In[T](c, 4), kernels.Out[T](c, 5)
	for t := range (n + tile - 1) / tile {
		lo, hi := tileRange(t, tile, n)
		at := offsets[t]
		for i := lo; i < hi; i++ {
			if mask[i] != 0 {
				dst[at] = x[i]
				at++
			}
		}
	}
}

func compactHost(c *kernels.HostCall) error {
	switch c.DType() {
	case backend.Float32:
		compactValues[float32](c)
	case backend.Float64:
		compactValues[float64](c)
	case backend.Int32:
		compactValues[int32](c)
	case backend.Int64:
		compactValues[int64](c)
	case backend.Uint32:
		compactValues[uint32](c)
	case backend.Uint64:
		compactValues[uint64](c)
	default:
		return fmt.Errorf("no host implementation for %v", c.DType())
	}
	return nil
}

// maskOffsets runs the count and scan passes over mask on its device and
// returns the tiles' offsets (ntiles+1 of them, on the mask's backend; the
// caller frees them) and the number of selected elements, which it copies
// to the host (8 bytes, a recorded transfer for a device array).
func maskOffsets(mask *backend.Array[uint8]) (*backend.Array[int64], int, error) {
	n := mask.Len()
	ntiles := (n + compactTile - 1) / compactTile
	offsets, err := backend.NewOn[int64](mask.Backend(), ntiles+1)
	if err != nil {
		return nil, 0, err
	}
	err = maskCountKernel.Launch(kernels.Config{N: ntiles}, kernels.Int(n), kernels.Int(compactTile), kernels.Array(mask), kernels.Array(offsets))
	if err == nil {
		err = maskScanKernel.Launch(scanConfig, kernels.Int(ntiles), kernels.Array(offsets))
	}
	total := make([]int64, 1)
	if err == nil {
		err = backend.CopyToHostSlice(total, offsets.Slice(ntiles, ntiles+1))
	}
	if err != nil {
		offsets.Free()
		return nil, 0, err
	}
	return offsets, int(total[0]), nil
}

// MaskIndex sets idx[:m] to the indices i with mask[i] nonzero, in
// increasing order, and returns m: algorithms.MaskIndex of the mask read
// as booleans (nonzero is true, as package dist's masks), as int64. idx
// must have at least m elements; idx[m:] is unchanged.
//
// It runs where its arrays are (see MortonKeys2), in three passes over
// tiles of the mask (kernels mask_count, mask_scan and
// mask_index: a count per tile, an exclusive scan of the counts, a
// scatter per tile), with one copy to the host of the count, 8 bytes,
// between the second and the third (recorded as a transfer for a device
// array). Every value is an exact integer: the result is the same on the
// host and every device. It is not collective. It panics if idx has fewer
// than m elements; arrays on different devices, or a failed launch, are an
// error.
func MaskIndex(idx *backend.Array[int64], mask *backend.Array[uint8]) (int, error) {
	offsets, m, err := maskOffsets(mask)
	if err != nil {
		return 0, err
	}
	defer offsets.Free()
	if m > idx.Len() {
		panic(fmt.Sprintf("algkern: MaskIndex of %d selected elements into %d", m, idx.Len()))
	}
	if m == 0 {
		return 0, nil
	}
	n := mask.Len()
	err = maskIndexKernel.Launch(kernels.Config{N: (n + compactTile - 1) / compactTile}, kernels.Int(n), kernels.Int(compactTile),
		kernels.Array(mask), kernels.Array(offsets), kernels.Array(idx))
	return m, err
}

// Compact sets dst[:m] to the elements x[i] with mask[i] nonzero, in
// order, and returns m: algorithms.Compact of x by the mask read as
// booleans (nonzero is true), into another array. dst must have at least
// m elements; dst[m:] is unchanged.
//
// It runs as MaskIndex does (kernels mask_count, mask_scan, and
// mask_compact for the scatter), with the same copy of the count to the
// host. It is not collective. It panics if x and mask differ in length,
// if dst and x share memory, or if dst has fewer than m elements; arrays
// on different devices, or a failed launch, are an error.
func Compact[T Number](dst, x *backend.Array[T], mask *backend.Array[uint8]) (int, error) {
	if x.Len() != mask.Len() {
		panic(fmt.Sprintf("algkern: Compact mask length %d != array length %d", mask.Len(), x.Len()))
	}
	if overlaps(dst.Buffer(), x.Buffer()) {
		panic("algkern: Compact dst and x share memory")
	}
	offsets, m, err := maskOffsets(mask)
	if err != nil {
		return 0, err
	}
	defer offsets.Free()
	if m > dst.Len() {
		panic(fmt.Sprintf("algkern: Compact of %d selected elements into %d", m, dst.Len()))
	}
	if m == 0 {
		return 0, nil
	}
	n := mask.Len()
	err = compactKernel.Launch(kernels.Config{N: (n + compactTile - 1) / compactTile}, kernels.Int(n), kernels.Int(compactTile),
		kernels.Array(mask), kernels.Array(offsets), kernels.Array(x), kernels.Array(dst))
	return m, err
}

// maskCases are the parity cases of one compaction pass: masks all
// selected, none selected, random with nonzero bytes other than 1, over
// sizes at and around the tile and a small tile, one element and none.
func maskCases(pass string) []kernels.ParityCase {
	mk := func(name string, n, tile int, pick func(i int) uint8) kernels.ParityCase {
		return kernels.ParityCase{Name: name, Make: func(b backend.Backend, dt backend.DType) ([]kernels.Arg, kernels.Config, error) {
			mask := make([]float64, n)
			for i := range mask {
				mask[i] = float64(pick(i))
			}
			ntiles := (n + tile - 1) / tile
			offs := make([]float64, ntiles+1)
			counts := make([]float64, ntiles+1)
			for t := range ntiles {
				lo, hi := tileRange(t, tile, n)
				for _, m := range mask[lo:hi] {
					if m != 0 {
						counts[t]++
					}
				}
				offs[t+1] = offs[t] + counts[t]
			}
			a := &args{b: b}
			switch pass {
			case "scan":
				counts[ntiles] = 77 // overwritten with the total
				a.add(kernels.Int(ntiles))
				a.array(backend.Int64, counts)
				cfg := scanConfig
				if ntiles%2 == 1 {
					cfg.Block.X = 5 // chunks of other sizes, and threads without tiles
				}
				return a.out, cfg, a.err
			case "count":
				a.add(kernels.Int(n))
				a.add(kernels.Int(tile))
				a.array(backend.Uint8, mask)
				a.array(backend.Int64, make([]float64, ntiles))
				return a.out, kernels.Config{N: ntiles}, a.err
			}
			a.add(kernels.Int(n))
			a.add(kernels.Int(tile))
			a.array(backend.Uint8, mask)
			a.array(backend.Int64, offs)
			dst := make([]float64, n)
			for i := range dst {
				dst[i] = -1 // left where nothing is selected
			}
			if pass == "index" {
				a.array(backend.Int64, dst)
			} else {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = float64(i%1000) + 0.25
				}
				a.array(dt, xs)
				if dt == backend.Uint32 || dt == backend.Uint64 {
					for i := range dst {
						dst[i] = 12345
					}
				}
				a.array(dt, dst)
			}
			return a.out, kernels.Config{N: ntiles}, a.err
		}}
	}
	random := func(i int) uint8 {
		h := uint32(i)*2654435761 ^ 0x5bd1e995
		if h>>29 < 3 {
			return uint8(h>>8) | 1 // nonzero bytes other than 1 select too
		}
		return 0
	}
	all := func(int) uint8 { return 1 }
	none := func(int) uint8 { return 0 }
	return []kernels.ParityCase{
		mk("random mask, 3 tiles and 1", 3*compactTile+1, compactTile, random),
		mk("random mask, 1000 in tiles of 7", 1000, 7, random),
		mk("all selected, one tile", compactTile, compactTile, all),
		mk("none selected, one tile less one", compactTile-1, compactTile, none),
		mk("all selected, tiles of 1", 37, 1, all),
		mk("one element", 1, compactTile, all),
		mk("empty", 0, compactTile, random),
	}
}
