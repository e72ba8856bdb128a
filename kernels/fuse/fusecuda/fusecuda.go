//go:build cgo

package fusecuda

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cuda"
	"github.com/xpmpi/xpmpi/kernels/fuse"
)

func init() {
	if fuse.SetCUDALauncher(Launcher{}) != nil {
		panic("fusecuda: a CUDA launcher was set before fusecuda's registration")
	}
}

// Launcher is the fuse.CUDALauncher of package backend/cuda: it runs a
// program on the device of its arrays (the CUDA backend cuda.Open gives
// for that device; device 0's default backend for a kernel without
// arrays). The zero value is ready to use; its compiled modules are
// shared by every Launcher.
type Launcher struct{}

var _ fuse.CUDALauncher = Launcher{}

// modules holds the compiled programs, by device ordinal and entry name.
var modules struct {
	mu sync.Mutex
	m  map[moduleKey]*cuda.Module
}

type moduleKey struct {
	dev  int
	main string
}

// module returns p compiled for b's device, compiling it on first use.
func module(b *cuda.Backend, p *fuse.CUDAProgram) (*cuda.Module, error) {
	key := moduleKey{b.Device().ID, p.Main}
	modules.mu.Lock()
	defer modules.mu.Unlock()
	if m, ok := modules.m[key]; ok {
		return m, nil
	}
	m, err := b.CompileModule(p.Source, p.Name, p.Options...)
	if err != nil {
		return nil, err
	}
	if modules.m == nil {
		modules.m = map[moduleKey]*cuda.Module{}
	}
	modules.m[key] = m
	return m, nil
}

// deviceOf returns the CUDA backend of the arrays' device, checking that
// they all live on it.
func deviceOf(arrays []backend.Buffer) (*cuda.Backend, error) {
	if len(arrays) == 0 {
		return cuda.Default()
	}
	dev := arrays[0].Device()
	for _, a := range arrays[1:] {
		if a.Device() != dev {
			return nil, fmt.Errorf("fusecuda: arrays on %v and %v", dev, a.Device())
		}
	}
	if dev.Kind != backend.CUDA {
		return nil, fmt.Errorf("fusecuda: arrays on %v, not a CUDA device", dev)
	}
	return cuda.Open(dev.ID)
}

// scratch is the device memory of a launch's reductions: the per-block
// partial results (part, room for cap words) and the results (out, one
// word per reduction), with a host slice that the results are copied to.
// A scratch serves one launch at a time; scratches are kept per device and
// program for the next launch (scratches), and part grows to the largest
// grid launched.
type scratch struct {
	part  backend.Buffer
	cap   int
	out   backend.Buffer
	words []uint64
}

// scratches holds the scratches not in use, by device and program. Their
// memory is kept for the life of the process (at most CUDAMaxGrid+1 words
// per reduction for each program and concurrent launch), as the modules
// are.
var scratches struct {
	mu   sync.Mutex
	free map[moduleKey][]*scratch
}

// scratchAllocs counts the device allocations made for scratches (tests).
var scratchAllocs atomic.Int64

// takeScratch returns a scratch of key's program, with room for nres
// results and words partial results, for the caller's use alone until it
// gives it back with giveScratch.
func takeScratch(b *cuda.Backend, key moduleKey, words, nres int) (*scratch, error) {
	scratches.mu.Lock()
	var s *scratch
	if free := scratches.free[key]; len(free) > 0 {
		s = free[len(free)-1]
		scratches.free[key] = free[:len(free)-1]
	}
	scratches.mu.Unlock()
	if s == nil {
		out, err := b.Alloc(backend.Uint64, nres)
		if err != nil {
			return nil, err
		}
		scratchAllocs.Add(1)
		s = &scratch{out: out, words: make([]uint64, nres)}
	}
	if s.cap < words {
		if s.part != nil {
			b.Free(s.part)
			s.part, s.cap = nil, 0
		}
		part, err := b.Alloc(backend.Uint64, words)
		if err != nil {
			b.Free(s.out)
			return nil, err
		}
		scratchAllocs.Add(1)
		s.part, s.cap = part, words
	}
	return s, nil
}

// giveScratch makes s available to the next launch of key's program.
func giveScratch(key moduleKey, s *scratch) {
	scratches.mu.Lock()
	defer scratches.mu.Unlock()
	if scratches.free == nil {
		scratches.free = map[moduleKey][]*scratch{}
	}
	scratches.free[key] = append(scratches.free[key], s)
}

// LaunchFused runs p over n elements of arrays with params on the arrays'
// CUDA device, and returns one result per reduction of p. It is not
// collective: it runs on the calling process's device only. Launches may
// run concurrently: each takes memory for its reductions' partial results
// of its own, kept for later launches of the program on the device.
func (Launcher) LaunchFused(p *fuse.CUDAProgram, n int, arrays []backend.Buffer, params []backend.Scalar) ([]backend.Scalar, error) {
	b, err := deviceOf(arrays)
	if err != nil {
		return nil, err
	}
	m, err := module(b, p)
	if err != nil {
		return nil, err
	}
	main, err := m.Function(p.Main)
	if err != nil {
		return nil, err
	}
	args := (&cuda.Args{}).Int64(int64(n))
	for _, a := range arrays {
		args.Buffer(a)
	}
	for _, s := range params {
		args.Scalar(s)
	}
	grid := p.Grid(n)
	nres := len(p.Results)
	if nres == 0 {
		return nil, main.Launch(cuda.Dim3{X: grid}, cuda.Dim3{X: fuse.CUDABlock}, 0, nil, args)
	}
	final, err := m.Function(p.Final)
	if err != nil {
		return nil, err
	}
	key := moduleKey{b.Device().ID, p.Main}
	s, err := takeScratch(b, key, grid*nres, nres)
	if err != nil {
		return nil, err
	}
	args.Buffer(s.part)
	if err := main.Launch(cuda.Dim3{X: grid}, cuda.Dim3{X: fuse.CUDABlock}, 0, nil, args); err != nil {
		giveScratch(key, s)
		return nil, err
	}
	fargs := (&cuda.Args{}).Int32(int32(grid)).Buffer(s.part).Buffer(s.out)
	if err := final.Launch(cuda.Dim3{X: 1}, cuda.Dim3{X: fuse.CUDABlock}, 0, nil, fargs); err != nil {
		giveScratch(key, s)
		return nil, err
	}
	// CopyToHost waits for the launches: s is free again after it.
	err = b.CopyToHost(unsafe.Pointer(&s.words[0]), s.out)
	res := make([]backend.Scalar, nres)
	for i, w := range s.words {
		res[i] = fuse.ScalarOfBits(p.ResultTypes[i], w)
	}
	giveScratch(key, s)
	if err != nil {
		return nil, err
	}
	return res, nil
}
