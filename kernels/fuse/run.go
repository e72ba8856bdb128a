package fuse

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend"
)

// Parallel evaluation: arrays of at least ParallelMin elements are
// evaluated by up to backend.Threads() goroutines, each taking groups of
// chunkGroup chunks in turn. Which goroutine evaluates a chunk changes
// nothing: every chunk has its own partial results.
const (
	// ParallelMin is the least number of elements evaluated in parallel.
	ParallelMin = 1 << 17
	chunkGroup  = 32
)

// MaxReductions is the most reductions one kernel may have.
const MaxReductions = 16

// Args are the arguments of a Run, by name: arrays (*backend.Array[T]) for
// Vars and Outs, values of type T or pointers *T for Params. Entries that
// the kernel does not use are ignored, so one Args can serve several
// kernels.
type Args map[string]any

// Result holds the results of a Run's reductions.
type Result struct {
	k    *Kernel
	vals [MaxReductions]backend.Scalar
}

// Scalar returns the result of the reduction called name: a Float64 for
// float sums and dots, Int64 or Uint64 for integer ones, the operand's type
// for ReduceMax and ReduceMin. It panics if the kernel has no such
// reduction.
func (r Result) Scalar(name string) backend.Scalar {
	if r.k != nil {
		if i, ok := r.k.redIdx[name]; ok {
			return r.vals[i]
		}
	}
	panic(fmt.Sprintf("fuse: no reduction called %q", name))
}

// Float64 returns the result of the reduction called name converted to
// float64. It panics if the kernel has no such reduction.
func (r Result) Float64(name string) float64 { return r.Scalar(name).Float64() }

// array is what Run needs of a *backend.Array[T] of any T.
type array interface {
	Len() int
	Device() backend.Device
	Backend() backend.Backend
	DType() backend.DType
	Ptr() unsafe.Pointer
	Buffer() backend.Buffer
	Freed() bool
}

// runState is what the workers of one Run share.
type runState struct {
	n       int
	sc      []uint64 // per node: the scalar values of uniform nodes
	part    []uint64 // chunk c's partial result of reduction r at c*nred+r
	outBase []unsafe.Pointer
	direct  []bool // per output: computed in place
	bind    []binding
	shifted []shifted
	base    []unsafe.Pointer // per node: its array's first element, or nil (not an array of the call)
	span    bool             // run the kernel's span (span.go)
}

// binding is a node whose chunks are in an array.
type binding struct {
	id   int32
	base unsafe.Pointer
	size int
}

// shifted is a Shift node's array: chunk [lo, hi) reads elements
// [lo+k, hi+k) in place, or, at the ends of the array, a copy padded with
// zeros in the node's chunk buffer (arena offset off).
type shifted struct {
	binding
	k, off int
}

// workspace is the memory of one Run, reused by later ones.
type workspace struct {
	rs      runState
	uni     worker
	workers []*worker
	varArr  []array
	outArr  []array
	next    atomic.Int64
}

func (k *Kernel) workspace() *workspace {
	if ws, ok := k.pool.Get().(*workspace); ok {
		return ws
	}
	ws := &workspace{}
	ws.rs.sc = make([]uint64, len(k.nodes))
	ws.rs.outBase = make([]unsafe.Pointer, len(k.outs))
	ws.rs.direct = make([]bool, len(k.outs))
	ws.rs.base = make([]unsafe.Pointer, len(k.nodes))
	ws.varArr = make([]array, len(k.vars))
	ws.outArr = make([]array, len(k.outs))
	ws.uni.ptr = make([]unsafe.Pointer, len(k.nodes))
	ws.uni.rs = &ws.rs
	return ws
}

// release drops the workspace's references to the arguments and keeps it
// for the next Run.
func (k *Kernel) release(ws *workspace) {
	clear(ws.varArr)
	clear(ws.outArr)
	clear(ws.rs.outBase)
	for i := range ws.rs.bind {
		ws.rs.bind[i].base = nil
	}
	for _, w := range ws.workers {
		clear(w.ptr)
	}
	clear(ws.uni.ptr)
	k.pool.Put(ws)
}

// Run evaluates the kernel over the arrays and parameters of args and
// returns the reductions' results. All arrays have the same length and are
// on one device: host arrays and arrays of the fake device are evaluated
// by the CPU evaluator (on the fake device's memory, after waiting for the
// work queued on it, without host transfers); CUDA arrays need a launcher
// (SetCUDALauncher). A missing or mistyped argument, lengths that differ,
// arrays on two devices and outputs that overlap other arrays without
// being the same memory are errors that name the argument.
func (k *Kernel) Run(args Args) (Result, error) {
	res := Result{k: k}
	ws := k.workspace()
	defer k.release(ws)
	n, dev, be, err := k.bind(ws, args)
	if err != nil {
		return res, err
	}
	if err := k.aliases(ws); err != nil {
		return res, err
	}
	switch dev.Kind {
	case backend.CPU:
	case backend.Fake:
		// The fake device's memory is host memory: wait for the work
		// queued on it, then evaluate in place.
		if err := be.Synchronize(); err != nil {
			return res, err
		}
	default:
		return k.runCUDA(ws, n, dev, args)
	}
	ws.rs.n = n
	k.evaluate(ws)
	for i := range k.reds {
		r := &k.reds[i]
		res.vals[i] = scalarOf(r.res, combine(r, ws.rs.part, chunks(n), i, len(k.reds)))
	}
	return res, nil
}

func chunks(n int) int { return (n + ChunkLen - 1) / ChunkLen }

// bind looks the arguments up and checks them.
func (k *Kernel) bind(ws *workspace, args Args) (n int, dev backend.Device, be backend.Backend, err error) {
	n = -1
	var first string
	check := func(name string, dt dtype) (array, error) {
		v, ok := args[name]
		if !ok {
			return nil, fmt.Errorf("fuse: missing argument %q (an array of %v)", name, dt)
		}
		a, ok := v.(array)
		if !ok || isNil(v) {
			return nil, fmt.Errorf("fuse: argument %q is a %T, want an array of %v (*backend.Array[%v])", name, v, dt, dt)
		}
		if a.DType() != backend.DType(dt) {
			return nil, fmt.Errorf("fuse: argument %q is an array of %v, want %v", name, a.DType(), dt)
		}
		if a.Freed() {
			return nil, fmt.Errorf("fuse: argument %q: %w", name, backend.FreedError("fuse", "Kernel.Run"))
		}
		if n < 0 {
			n, dev, be, first = a.Len(), a.Device(), a.Backend(), name
		} else if a.Len() != n {
			return nil, fmt.Errorf("fuse: argument %q has %d elements, %q has %d", name, a.Len(), first, n)
		} else if a.Device() != dev {
			return nil, fmt.Errorf("fuse: argument %q is on %v, %q on %v: move one with backend.ToHost or backend.ToDevice", name, a.Device(), first, dev)
		}
		return a, nil
	}
	for i, id := range k.vars {
		a, err := check(k.nodes[id].name, k.nodes[id].dt)
		if err != nil {
			return 0, dev, nil, err
		}
		ws.varArr[i] = a
	}
	for i, o := range k.outs {
		a, err := check(o.name, o.dt)
		if err != nil {
			return 0, dev, nil, err
		}
		ws.outArr[i] = a
		ws.rs.outBase[i] = a.Ptr()
	}
	copy(ws.rs.sc, k.sc0)
	for _, id := range k.params {
		p := &k.nodes[id]
		v, ok := args[p.name]
		if !ok {
			return 0, dev, nil, fmt.Errorf("fuse: missing argument %q (a %v)", p.name, p.dt)
		}
		bits, ok := paramBits(v, p.dt)
		if !ok {
			return 0, dev, nil, fmt.Errorf("fuse: argument %q is a %T, want a %v or a *%v", p.name, v, p.dt, p.dt)
		}
		ws.rs.sc[id] = bits
	}
	if n < 0 {
		n = 0 // no arrays: cannot happen, every kernel has an output or a reduction of arrays
	}
	return n, dev, be, nil
}

// isNil reports whether v is a nil *backend.Array.
func isNil(v any) bool {
	switch a := v.(type) {
	case *backend.Array[float32]:
		return a == nil
	case *backend.Array[float64]:
		return a == nil
	case *backend.Array[int32]:
		return a == nil
	case *backend.Array[int64]:
		return a == nil
	case *backend.Array[uint32]:
		return a == nil
	case *backend.Array[uint64]:
		return a == nil
	}
	return v == nil
}

// paramBits returns the bits of a parameter's value v, of type dt or a
// pointer to dt.
func paramBits(v any, dt dtype) (uint64, bool) {
	var s backend.Scalar
	switch x := v.(type) {
	case float32:
		s = backend.ScalarOf(x)
	case float64:
		s = backend.ScalarOf(x)
	case int32:
		s = backend.ScalarOf(x)
	case int64:
		s = backend.ScalarOf(x)
	case uint32:
		s = backend.ScalarOf(x)
	case uint64:
		s = backend.ScalarOf(x)
	case *float32:
		if x == nil {
			return 0, false
		}
		s = backend.ScalarOf(*x)
	case *float64:
		if x == nil {
			return 0, false
		}
		s = backend.ScalarOf(*x)
	case *int32:
		if x == nil {
			return 0, false
		}
		s = backend.ScalarOf(*x)
	case *int64:
		if x == nil {
			return 0, false
		}
		s = backend.ScalarOf(*x)
	case *uint32:
		if x == nil {
			return 0, false
		}
		s = backend.ScalarOf(*x)
	case *uint64:
		if x == nil {
			return 0, false
		}
		s = backend.ScalarOf(*x)
	default:
		return 0, false
	}
	return s.Bits(), s.DType() == backend.DType(dt)
}

// aliases checks how the outputs overlap the other arrays and decides
// which outputs are computed in place: an output is, where the step that
// computes its values comes after every read of a Var that is the same
// array (an update in place such as y = a*x + y is).
func (k *Kernel) aliases(ws *workspace) error {
	span := func(a array) (uintptr, uintptr) {
		p := uintptr(a.Ptr())
		return p, p + uintptr(a.Len()*a.DType().Size())
	}
	ws.rs.bind = ws.rs.bind[:0]
	for i, id := range k.vars {
		ws.rs.bind = append(ws.rs.bind, binding{id: id, base: ws.varArr[i].Ptr(), size: k.nodes[id].dt.size()})
	}
	ws.rs.shifted = ws.rs.shifted[:0]
	for _, id := range k.shifts {
		n := &k.nodes[id]
		ws.rs.shifted = append(ws.rs.shifted, shifted{
			binding: binding{id: id, base: ws.varArr[k.varIdx[n.args[0]]].Ptr(), size: n.dt.size()},
			k:       n.shift, off: n.off})
	}
	for i, o := range k.outs {
		a := ws.outArr[i]
		lo, hi := span(a)
		direct := o.prod >= 0
		for j, id := range k.vars {
			v := ws.varArr[j]
			vlo, vhi := span(v)
			if lo >= vhi || vlo >= hi {
				continue
			}
			if vlo != lo || vhi != hi {
				return fmt.Errorf("fuse: output %q overlaps argument %q without being the same memory", o.name, k.nodes[id].name)
			}
			if k.last[id] > o.prod {
				direct = false
			}
		}
		for j := range i {
			b := ws.outArr[j]
			blo, bhi := span(b)
			if lo < bhi && blo < hi {
				return fmt.Errorf("fuse: outputs %q and %q overlap", k.outs[j].name, o.name)
			}
		}
		for _, id := range k.shifts {
			vi := k.varIdx[k.nodes[id].args[0]]
			vlo, vhi := span(ws.varArr[vi])
			if lo < vhi && vlo < hi {
				return fmt.Errorf("fuse: output %q is the memory of %q, which the kernel reads shifted: write the output to another array", o.name, k.nodes[k.vars[vi]].name)
			}
		}
		ws.rs.direct[i] = direct
		if direct {
			ws.rs.bind = append(ws.rs.bind, binding{id: o.val, base: a.Ptr(), size: o.dt.size()})
		}
	}
	clear(ws.rs.base)
	for _, b := range ws.rs.bind {
		ws.rs.base[b.id] = b.base
	}
	ws.rs.span = k.spanFits(ws)
	return nil
}

// spanFits reports whether the kernel's span runs on the arrays that ws
// is bound to: it has one, every output is computed in place (no store
// has work), no node is shifted, and every node the span reads or writes
// is in an array.
func (k *Kernel) spanFits(ws *workspace) bool {
	if k.span == nil || noSpans || len(k.shifts) > 0 {
		return false
	}
	for _, d := range ws.rs.direct {
		if !d {
			return false
		}
	}
	for _, id := range k.span.ids {
		if ws.rs.base[id] == nil {
			return false
		}
	}
	return true
}

// evaluate runs the kernel over the n elements that ws is bound to.
func (k *Kernel) evaluate(ws *workspace) {
	rs := &ws.rs
	n := rs.n
	if n == 0 {
		return
	}
	// Scalars.
	for i := range k.nodes {
		ws.uni.ptr[i] = unsafe.Pointer(&rs.sc[i])
	}
	for _, s := range k.usteps {
		s(&ws.uni, 1)
	}
	nc := chunks(n)
	if need := nc * len(k.reds); cap(rs.part) < need {
		rs.part = make([]uint64, need)
	} else {
		rs.part = rs.part[:need]
	}
	t := 1
	if n >= ParallelMin {
		t = min(backend.Threads(), (nc+chunkGroup-1)/chunkGroup)
	}
	for len(ws.workers) < t {
		ws.workers = append(ws.workers, &worker{})
	}
	if t <= 1 {
		w := k.setup(ws, ws.workers[0])
		k.chunks(w, 0, nc)
		return
	}
	ng := (nc + chunkGroup - 1) / chunkGroup
	ws.next.Store(0)
	var wg sync.WaitGroup
	var pv atomic.Value
	work := func(w *worker) {
		defer func() {
			if r := recover(); r != nil {
				pv.CompareAndSwap(nil, fmt.Sprint(r))
			}
		}()
		for {
			g := int(ws.next.Add(1) - 1)
			if g >= ng {
				return
			}
			k.chunks(w, g*chunkGroup, min((g+1)*chunkGroup, nc))
		}
	}
	wg.Add(t - 1)
	for i := 1; i < t; i++ {
		w := k.setup(ws, ws.workers[i])
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(k.setup(ws, ws.workers[0]))
	wg.Wait()
	if p := pv.Load(); p != nil {
		panic(p)
	}
}

// setup prepares a worker for a Run: its arena, its temporaries' pointers
// and the materialized scalars.
func (k *Kernel) setup(ws *workspace, w *worker) *worker {
	if len(w.ptr) != len(k.nodes) {
		w.ptr = make([]unsafe.Pointer, len(k.nodes))
	}
	if len(w.arena) < k.arena {
		w.arena = make([]uint64, k.arena)
	}
	w.rs = &ws.rs
	m := min(ws.rs.n, ChunkLen)
	for i := range k.nodes {
		nd := &k.nodes[i]
		if nd.off < 0 {
			continue
		}
		w.ptr[i] = unsafe.Pointer(&w.arena[nd.off])
		if nd.mat {
			fillBits(w.ptr[i], nd.dt.size(), m, ws.rs.sc[i])
		}
	}
	return w
}

// chunks evaluates chunks [c0, c1) on w.
func (k *Kernel) chunks(w *worker, c0, c1 int) {
	rs := w.rs
	if rs.span {
		k.span.run(w, c0, c1)
		return
	}
	for c := c0; c < c1; c++ {
		lo := c * ChunkLen
		m := min(ChunkLen, rs.n-lo)
		w.lo, w.chunk = lo, c
		for _, b := range rs.bind {
			w.ptr[b.id] = unsafe.Add(b.base, lo*b.size)
		}
		for i := range rs.shifted {
			w.bindShifted(&rs.shifted[i], lo, m)
		}
		for _, s := range k.vsteps {
			s(w, m)
		}
	}
}

// bindShifted points a Shift node at elements [lo+k, lo+k+m) of its
// array, copied with zeros outside the array into the node's chunk buffer
// where they are not all inside.
func (w *worker) bindShifted(b *shifted, lo, m int) {
	s, n := lo+b.k, w.rs.n
	if s >= 0 && s+m <= n {
		w.ptr[b.id] = unsafe.Add(b.base, s*b.size)
		return
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&w.arena[b.off])), m*b.size)
	clear(buf)
	if from, to := max(s, 0), min(s+m, n); from < to {
		copy(buf[(from-s)*b.size:], unsafe.Slice((*byte)(unsafe.Add(b.base, from*b.size)), (to-from)*b.size))
	}
	w.ptr[b.id] = unsafe.Pointer(&w.arena[b.off])
}
