package fuse

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/xpmpi/xpmpi/backend"
)

// maxChain is the most operands added to the head of a chain in one loop.
const maxChain = 4

// ChunkLen is the number of elements of one chunk: the CPU evaluator runs
// every operation of a kernel over one chunk (its temporaries stay in the
// L1 cache) before it moves to the next, and each chunk has its own
// partial result of every reduction. It fixes the order of floating-point
// additions of Sum and Dot: changing it changes results in the last bits.
const ChunkLen = 512

// inode is a node of a compiled kernel: an Expr with Outs resolved away,
// Vars and Params of one name merged, and fused patterns rewritten.
type inode struct {
	op      op
	dt      dtype
	name    string
	args    []int32
	bits    uint64 // Const
	shift   int    // Shift
	scaled  bool   // opChain: args[0] is the scalar s
	negs    []bool // opChain: operand args[k] is subtracted
	uniform bool   // the same value for every element: Params, Consts and operations of them
	uses    int
	dead    bool // folded into another node by the compiler
	mat     bool // uniform, but read as a chunk of equal values: filled once per Run
	off     int  // the node's chunk buffer in the arena, in words, or -1
}

// output is an Out of a kernel.
type output struct {
	name  string
	dt    dtype
	val   int32 // the node whose values are written
	prod  int   // the step that computes val, if this output may take its values directly; else -1
	store int   // the index of this output's store step
}

// reduce is a reduction of a kernel.
type reduce struct {
	name string
	op   op
	dt   dtype // the operand's type
	res  backend.DType
	args []int32
}

// Kernel is a compiled fused expression: a sequence of chunk-wise
// operations that Run evaluates in one pass over memory. A Kernel is
// reusable and safe for concurrent use; Run allocates nothing in steady
// state on the CPU evaluator below the parallel threshold.
type Kernel struct {
	nodes   []inode
	vars    []int32 // Var nodes, one per name, in order of appearance
	params  []int32 // Param nodes, one per name
	outs    []output
	reds    []reduce
	redIdx  map[string]int
	usteps  []step // uniform operations, in order
	vsteps  []step // chunk operations: computations, then reductions, then stores
	reads   [][]int32
	last    map[int32]int // for each Var node, the last step that reads it
	arena   int           // words of chunk buffers per worker
	bound   []int32       // nodes whose chunk is in an array: the Vars
	shifts  []int32       // Shift nodes
	varIdx  map[int32]int // index in vars of each Var node
	sc0     []uint64      // the scalars with the Consts filled in
	pool    sync.Pool     // *workspace
	span    *spanOf       // the kernel's one computation over a run of chunks, or nil (span.go)
	desc    string
	cudaMu  sync.Mutex
	cudaSrc *CUDAProgram
}

// MustCompile is Compile that panics on an error.
func MustCompile(roots ...*Expr) *Kernel {
	k, err := Compile(roots...)
	if err != nil {
		panic(err)
	}
	return k
}

// Compile compiles outputs (Out) and reductions (Sum, Dot, ReduceMax,
// ReduceMin) into one kernel. It returns the first mistake of the
// expressions: operands of different types, a name used for two things,
// two outputs of one name, a root that is neither an output nor a
// reduction.
func Compile(roots ...*Expr) (*Kernel, error) {
	if len(roots) == 0 {
		return nil, fmt.Errorf("fuse: Compile of nothing: give outputs (Out) and reductions (Sum, Dot, ...)")
	}
	c := &compiler{k: &Kernel{redIdx: map[string]int{}, last: map[int32]int{}},
		memo: map[*Expr]int32{}, byName: map[string]int32{}, outNames: map[string]bool{}}
	for _, r := range roots {
		if err := firstErr([]*Expr{r}); err != nil {
			return nil, err
		}
		switch {
		case r.op == opOut:
			if _, err := c.visit(r); err != nil {
				return nil, err
			}
		case r.op.isReduction():
			if _, ok := c.k.redIdx[r.name]; ok {
				return nil, fmt.Errorf("fuse: two reductions called %q", r.name)
			}
			rd := reduce{name: r.name, op: r.op, dt: r.dt}
			for _, a := range r.args {
				id, err := c.visit(a)
				if err != nil {
					return nil, err
				}
				rd.args = append(rd.args, id)
			}
			rd.res = resultType(r.op, r.dt)
			c.k.redIdx[r.name] = len(c.k.reds)
			c.k.reds = append(c.k.reds, rd)
		default:
			return nil, fmt.Errorf("fuse: Compile of an operation (%v): the roots are outputs (Out) and reductions (Sum, Dot, ReduceMax, ReduceMin)", r.op)
		}
	}
	if len(c.k.vars) == 0 && len(c.k.outs) == 0 {
		return nil, fmt.Errorf("fuse: a kernel of scalars only: it needs an array (a Var or an Out) for its length")
	}
	if len(c.k.reds) > MaxReductions {
		return nil, fmt.Errorf("fuse: %d reductions, at most %d in one kernel", len(c.k.reds), MaxReductions)
	}
	for _, o := range c.k.outs {
		if id, ok := c.byName[o.name]; ok {
			n := c.k.nodes[id]
			if n.op == opParam {
				return nil, fmt.Errorf("fuse: %q is both a Param and an Out", o.name)
			}
			if n.dt != o.dt {
				return nil, fmt.Errorf("fuse: Out %q of %v, but Var %q is %v", o.name, o.dt, o.name, n.dt)
			}
		}
	}
	c.k.plan()
	return c.k, nil
}

// resultType is the type of a reduction's result.
func resultType(o op, dt dtype) backend.DType {
	d := backend.DType(dt)
	switch {
	case o == opRMax || o == opRMin:
		return d
	case d.IsFloat():
		return backend.Float64
	case d.IsSigned():
		return backend.Int64
	}
	return backend.Uint64
}

type compiler struct {
	k        *Kernel
	memo     map[*Expr]int32
	byName   map[string]int32 // Vars and Params
	outNames map[string]bool
}

// visit adds e and its operands to the kernel, in post-order, and returns
// the node that holds e's values.
func (c *compiler) visit(e *Expr) (int32, error) {
	if id, ok := c.memo[e]; ok {
		return id, nil
	}
	k := c.k
	var id int32
	switch e.op {
	case opOut:
		if c.outNames[e.name] {
			return 0, fmt.Errorf("fuse: two outputs called %q", e.name)
		}
		c.outNames[e.name] = true
		v, err := c.visit(e.args[0])
		if err != nil {
			return 0, err
		}
		k.outs = append(k.outs, output{name: e.name, dt: e.dt, val: v, prod: -1})
		id = v
	case opVar, opParam:
		if prev, ok := c.byName[e.name]; ok {
			p := k.nodes[prev]
			if p.op != e.op {
				return 0, fmt.Errorf("fuse: %q is both a Var and a Param", e.name)
			}
			if p.dt != e.dt {
				return 0, fmt.Errorf("fuse: %v %q used as %v and as %v", e.op, e.name, p.dt, e.dt)
			}
			id = prev
			break
		}
		id = int32(len(k.nodes))
		k.nodes = append(k.nodes, inode{op: e.op, dt: e.dt, name: e.name, uniform: e.op == opParam})
		c.byName[e.name] = id
		if e.op == opVar {
			k.vars = append(k.vars, id)
		} else {
			k.params = append(k.params, id)
		}
	default:
		if e.op.isReduction() {
			return 0, fmt.Errorf("fuse: the reduction %q used as an operand", e.name)
		}
		n := inode{op: e.op, dt: e.dt, bits: e.bits, shift: e.shift, uniform: true}
		for _, a := range e.args {
			ai, err := c.visit(a)
			if err != nil {
				return 0, err
			}
			n.args = append(n.args, ai)
			if !k.nodes[ai].uniform {
				n.uniform = false
			}
		}
		id = int32(len(k.nodes))
		k.nodes = append(k.nodes, n)
	}
	c.memo[e] = id
	return id, nil
}

// plan rewrites fused patterns, makes the steps and lays out the arena.
func (k *Kernel) plan() {
	// An output of a Var's values is a copy into a temporary (a Cast to
	// its own type), so that no store reads an array that another store
	// may have written (Out("x", y) with Out("y", x) swaps).
	for i := range k.outs {
		o := &k.outs[i]
		if k.nodes[o.val].op == opVar {
			k.nodes = append(k.nodes, inode{op: opCast, dt: o.dt, args: []int32{o.val}})
			o.val = int32(len(k.nodes) - 1)
		}
	}
	nodes := k.nodes
	for i := range nodes {
		nodes[i].off = -1
		for _, a := range nodes[i].args {
			nodes[a].uses++
		}
	}
	for _, o := range k.outs {
		nodes[o.val].uses++
	}
	for _, r := range k.reds {
		for _, a := range r.args {
			nodes[a].uses++
		}
	}
	varying := func(id int32) bool { return !nodes[id].uniform }
	// y + s*x, s*x + y and y - s*x, where s*x is used once: one pass (axpy).
	scaled := func(id int32) (s, x int32, ok bool) {
		m := &nodes[id]
		if m.op != opMul || m.uniform || m.uses != 1 {
			return 0, 0, false
		}
		a, b := m.args[0], m.args[1]
		switch {
		case nodes[a].uniform && varying(b):
			return a, b, true
		case nodes[b].uniform && varying(a):
			return b, a, true
		}
		return 0, 0, false
	}
	for i := range nodes {
		n := &nodes[i]
		if n.uniform || (n.op != opAdd && n.op != opSub) {
			continue
		}
		a, b := n.args[0], n.args[1]
		if s, x, ok := scaled(b); ok && varying(a) {
			nodes[b].dead = true
			n.op = map[op]op{opAdd: opAxpy, opSub: opAxmy}[n.op]
			n.args = []int32{s, x, a}
		} else if s, x, ok := scaled(a); ok && varying(b) && n.op == opAdd {
			nodes[a].dead = true
			n.op = opAxpy
			n.args = []int32{s, x, b}
		}
	}
	// Chains of additions and subtractions, ((h ± y1) ± y2) ± ... with up to
	// maxChain operands, the inner sums used once: one loop, with h = s*x
	// where it is a product by a uniform s used once (the 5-point
	// Laplacian 4p - up - down - left - right is one). Outermost first, so
	// that chains are as long as can be.
	for i := len(nodes) - 1; i >= 0; i-- {
		n := &nodes[i]
		if n.uniform || n.dead || (n.op != opAdd && n.op != opSub) {
			continue
		}
		var ops []int32
		var negs []bool
		var inner []int32
		cur := int32(i)
		for len(ops) < maxChain {
			c := &nodes[cur]
			if (c.op != opAdd && c.op != opSub) || c.uniform || nodes[c.args[1]].uniform {
				break
			}
			if cur != int32(i) {
				if c.uses != 1 || c.dead {
					break
				}
				inner = append(inner, cur)
			}
			ops = append(ops, c.args[1])
			negs = append(negs, c.op == opSub)
			cur = c.args[0]
		}
		if len(ops) < 2 || nodes[cur].uniform {
			continue
		}
		for _, in := range inner {
			nodes[in].dead = true
		}
		var args []int32
		if s, x, ok := scaled(cur); ok {
			nodes[cur].dead = true
			args, n.scaled = []int32{s, x}, true
		} else {
			args = []int32{cur}
		}
		for j := len(ops) - 1; j >= 0; j-- {
			args = append(args, ops[j])
			n.negs = append(n.negs, negs[j])
		}
		n.op, n.args = opChain, args
	}
	// Sum(a*b) of float64, the product used once: a dot product, which
	// rounds the same products.
	for i := range k.reds {
		r := &k.reds[i]
		m := &nodes[r.args[0]]
		if r.op == opSum && m.op == opMul && !m.uniform && m.uses == 1 && m.dt == dtype(backend.Float64) {
			m.dead = true
			r.op = opDot
			r.args = append([]int32(nil), m.args...)
		}
	}

	// Scalars: Consts now, Params at each Run, the uniform operations
	// computed from them at each Run.
	k.sc0 = make([]uint64, len(nodes))
	for i, n := range nodes {
		if n.op == opConst {
			k.sc0[i] = n.bits
		}
	}
	for i := range nodes {
		n := &nodes[i]
		if n.uniform && n.op != opParam && n.op != opConst && !n.dead {
			k.usteps = append(k.usteps, buildStep(nodes, int32(i), true))
		}
	}
	// Chunk steps. A uniform operand that an operation reads as a chunk is
	// materialized.
	addStep := func(s step, reads ...int32) int {
		k.vsteps = append(k.vsteps, s)
		k.reads = append(k.reads, reads)
		for _, r := range reads {
			if nodes[r].op == opVar {
				k.last[r] = len(k.vsteps) - 1
			}
		}
		return len(k.vsteps) - 1
	}
	// The dot of an axpy's values with themselves is added in the axpy's
	// loop; two axpys next to each other, the second not reading the
	// first, share one loop (as x += a*p and r -= a*Ap do in CG).
	isAx := func(id int32) bool {
		n := &nodes[id]
		return (n.op == opAxpy || n.op == opAxmy) && !n.uniform && !n.dead
	}
	dotOf := map[int32]int{}
	absorbed := make([]bool, len(k.reds))
	for ri, r := range k.reds {
		if r.op == opDot && r.args[0] == r.args[1] && isAx(r.args[0]) && r.dt.isFloat() {
			if _, ok := dotOf[r.args[0]]; !ok {
				dotOf[r.args[0]] = ri
				absorbed[ri] = true
			}
		}
	}
	var chunkNodes []int32
	for i := range nodes {
		n := &nodes[i]
		if !n.uniform && !n.dead && n.op != opVar && n.op != opShift {
			chunkNodes = append(chunkNodes, int32(i))
		}
	}
	prodStep := map[int32]int{}
	spans := map[int]*spanOf{} // the steps that have a span
	for j := 0; j < len(chunkNodes); j++ {
		a := chunkNodes[j]
		if j+1 < len(chunkNodes) && isAx(a) && isAx(chunkNodes[j+1]) {
			b := chunkNodes[j+1]
			_, dotA := dotOf[a]
			_, dotB := dotOf[b]
			nb := &nodes[b]
			if nodes[a].dt == nb.dt && nb.args[1] != a && nb.args[2] != a && !(dotA && dotB) {
				first, second := a, b
				if dotA {
					first, second = b, a
				}
				ri := -1
				if r, ok := dotOf[second]; ok {
					ri = r
				}
				reads := append(k.vectorReads(a), k.vectorReads(b)...)
				p := addStep(axpyPairStep(nodes, first, second, ri, len(k.reds)), reads...)
				spans[p] = axpyPairSpan(nodes, first, second, ri, len(k.reds))
				prodStep[a], prodStep[b] = p, p
				j++
				continue
			}
		}
		reads := k.vectorReads(a)
		if ri, ok := dotOf[a]; ok {
			prodStep[a] = addStep(axpyDotStep(nodes, a, ri, len(k.reds)), reads...)
			spans[prodStep[a]] = axpyDotSpan(nodes, a, ri, len(k.reds))
			continue
		}
		prodStep[a] = addStep(buildStep(nodes, a, false), reads...)
		spans[prodStep[a]] = nodeSpan(nodes, a)
	}
	for ri := range k.reds {
		if absorbed[ri] {
			continue
		}
		r := &k.reds[ri]
		for _, a := range r.args {
			if nodes[a].uniform {
				nodes[a].mat = true
			}
		}
		spans[addStep(reduceStep(r, ri, len(k.reds)), r.args...)] = reduceSpan(r, ri, len(k.reds))
	}
	claimed := map[int32]bool{}
	for oi := range k.outs {
		o := &k.outs[oi]
		if p, ok := prodStep[o.val]; ok && !claimed[o.val] {
			claimed[o.val] = true
			o.prod = p
		}
		var reads []int32
		if !nodes[o.val].uniform {
			reads = []int32{o.val}
		}
		o.store = addStep(storeStep(oi, o.val, nodes[o.val].uniform, o.dt.size()), reads...)
	}
	// A kernel whose steps are one computation and the stores of its
	// outputs runs as a span where Run finds its nodes in arrays.
	if len(k.vsteps) == len(k.outs)+1 {
		for si := range k.vsteps {
			if sp := spans[si]; sp != nil && !slices.ContainsFunc(k.outs, func(o output) bool { return o.store == si }) {
				k.span = sp
			}
		}
	}
	k.layout(prodStep)
	k.bound = k.vars
	k.varIdx = map[int32]int{}
	for i, id := range k.vars {
		k.varIdx[id] = i
	}
	for i := range nodes {
		if nodes[i].op == opShift && !nodes[i].dead {
			k.shifts = append(k.shifts, int32(i))
		}
	}
	k.desc = k.describe()
}

// layout gives chunk buffers in the arena (ChunkLen words each) to the
// computed nodes and the materialized scalars. Materialized scalars (filled
// once per Run) and the values of outputs (read by the stores at the end)
// keep theirs; a temporary's buffer is given to a node computed after the
// last step that reads it, so that the buffers of a long expression stay
// few and in cache.
func (k *Kernel) layout(prodStep map[int32]int) {
	nodes := k.nodes
	reserved := map[int32]bool{}
	for _, o := range k.outs {
		reserved[o.val] = true
	}
	block := func() int {
		off := k.arena
		k.arena += ChunkLen
		return off
	}
	for i := range nodes {
		if nodes[i].mat || nodes[i].op == opShift || (reserved[int32(i)] && !nodes[i].uniform) {
			nodes[i].off = block()
		}
	}
	lastUse := map[int32]int{}
	for si, reads := range k.reads {
		for _, r := range reads {
			lastUse[r] = si
		}
	}
	produced := make([][]int32, len(k.vsteps))
	for id, si := range prodStep {
		produced[si] = append(produced[si], id)
	}
	release := make([][]int, len(k.vsteps))
	var free []int
	for si := range k.vsteps {
		slices.Sort(produced[si]) // map order is random: keep layouts reproducible
		for _, id := range produced[si] {
			if reserved[id] {
				continue
			}
			if len(free) > 0 {
				nodes[id].off = free[len(free)-1]
				free = free[:len(free)-1]
			} else {
				nodes[id].off = block()
			}
			last, ok := lastUse[id]
			if !ok || last < si {
				last = si
			}
			release[last] = append(release[last], nodes[id].off)
		}
		// Freed after step si: a node of step si never shares a buffer
		// with one of its own operands (a Cast from float32 to float64
		// would overwrite what it has yet to read).
		free = append(free, release[si]...)
	}
}

// vectorReads returns the operands that the chunk step of node id reads as
// chunks, marking uniform ones for materialization; operands that the step
// reads as scalars are left out.
func (k *Kernel) vectorReads(id int32) []int32 {
	n := &k.nodes[id]
	var out []int32
	for j, a := range n.args {
		if k.nodes[a].uniform && scalarOperand(n, j, k.nodes) {
			continue
		}
		if k.nodes[a].uniform {
			k.nodes[a].mat = true
		}
		out = append(out, a)
	}
	return out
}

// scalarOperand reports whether operand j of n is read as a scalar by n's
// chunk step.
func scalarOperand(n *inode, j int, nodes []inode) bool {
	switch n.op {
	case opAxpy, opAxmy:
		return j == 0
	case opChain:
		return n.scaled && j == 0
	case opAdd, opSub, opMul, opDiv:
		return !nodes[n.args[1-j]].uniform
	}
	return false
}

// describe lists the steps, for String.
func (k *Kernel) describe() string {
	var b strings.Builder
	name := func(id int32) string {
		n := k.nodes[id]
		switch n.op {
		case opVar, opParam:
			return n.name
		case opConst:
			return scalarOf(backend.DType(n.dt), n.bits).String()
		}
		return fmt.Sprintf("t%d", id)
	}
	args := func(ids []int32) string {
		s := make([]string, len(ids))
		for i, a := range ids {
			s[i] = name(a)
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, "fuse.Kernel(")
	var parts []string
	for i, n := range k.nodes {
		if n.op == opVar || n.op == opParam || n.op == opConst || n.dead {
			continue
		}
		if n.op == opShift {
			parts = append(parts, fmt.Sprintf("t%d = Shift(%s, %d)", i, args(n.args), n.shift))
			continue
		}
		kind := "chunk"
		if n.uniform {
			kind = "scalar"
		}
		parts = append(parts, fmt.Sprintf("t%d = %v(%s) %v %s", i, n.op, args(n.args), n.dt, kind))
	}
	for _, r := range k.reds {
		parts = append(parts, fmt.Sprintf("%s = %v(%s)", r.name, r.op, args(r.args)))
	}
	for _, o := range k.outs {
		parts = append(parts, fmt.Sprintf("%s <- %s", o.name, name(o.val)))
	}
	b.WriteString(strings.Join(parts, "; "))
	b.WriteString(")")
	return b.String()
}

// String lists the kernel's operations after the rewrites of fused
// patterns: t<N> are temporaries, "chunk" operations run per element and
// "scalar" ones once per Run, axpy(s, x, y) is y + s*x and axmy(s, x, y)
// is y - s*x. Which operations share a loop is not shown.
func (k *Kernel) String() string { return k.desc }

// Vars returns the names of the array arguments: the Vars and the
// outputs, each once.
func (k *Kernel) Vars() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range k.vars {
		out = append(out, k.nodes[v].name)
		seen[k.nodes[v].name] = true
	}
	for _, o := range k.outs {
		if !seen[o.name] {
			out = append(out, o.name)
		}
	}
	return out
}

// Params returns the names of the scalar arguments.
func (k *Kernel) Params() []string {
	var out []string
	for _, p := range k.params {
		out = append(out, k.nodes[p].name)
	}
	return out
}

// Reductions returns the names of the reductions, in the order of their
// results.
func (k *Kernel) Reductions() []string {
	var out []string
	for _, r := range k.reds {
		out = append(out, r.name)
	}
	return out
}
