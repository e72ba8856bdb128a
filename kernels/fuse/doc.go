// Package fuse evaluates fused elementwise expressions: an expression over
// arrays and scalars with one or more outputs and reductions runs as one
// pass over memory, on the CPU and (through a launcher) as one generated
// CUDA kernel. It is the Go form of the seed's cunumpy.kernels.fuse.
//
//	x, y, a := fuse.Var[float64]("x"), fuse.Var[float64]("y"), fuse.Param[float64]("a")
//	yNew := fuse.Out("y", fuse.Add(fuse.Mul(a, x), y)) // y = a*x + y
//	k := fuse.MustCompile(yNew, fuse.Dot("yy", yNew, yNew))
//	res, err := k.Run(fuse.Args{"x": xArr, "y": yArr, "a": 2.0})
//	yy := res.Float64("yy") // the squared norm of the new y
//
// # Expressions
//
// Var[T] is an array argument, Param[T] a scalar argument, Const a
// constant; T is any element type of package backend (float32, float64,
// int32, int64, uint32, uint64). Operations: Add, Sub, Mul, Div (floats),
// Min, Max, Pow (floats), Neg, Abs, Sqrt, Exp, Log (floats), the
// comparisons Lt, Le, Gt, Ge, Eq, Ne (giving bools), And, Or, Not, Where,
// and Cast[T]. Shift(v, k) reads a Var at element i+k (0 outside the
// array), which makes stencils on flattened grids expressible: CG's
// Ap = A p and p.Ap are one pass (the tests' cgStencilKernels). Operands have one type: there is no implicit promotion, a
// Cast converts. Each operation is the Go operator or function on the
// element type, rounded once (no fused multiply-add); float32 Sqrt, Exp,
// Log and Pow are computed in float64 and rounded to float32. Integers
// wrap. An Expr used twice is computed once.
//
// Out(name, e) writes e into the array argument name, and is e's value:
// an expression that uses the Out, a reduction of it say, sees the new
// values. Sum, Dot, ReduceMax and ReduceMin are reductions, each with a
// name under which Result returns it. Compile takes the outputs and
// reductions; a Kernel is reusable and safe for concurrent use.
//
// # Aliasing
//
// An output may be one of the kernel's Vars (y = a*x + y): every Var reads
// the values from before the call, whatever the order of the outputs, and
// an Out's value is the new one. An output may not be the array of a
// shifted Var (the chunks that follow would read its new values). An output that overlaps another argument
// without being exactly the same memory, or two outputs that overlap, are
// errors.
//
// # Arguments and errors
//
// Run takes Args, a map from names to *backend.Array[T] (Vars and Outs)
// and to values T or pointers *T (Params; a pointer is read at each Run,
// so a loop can change the value without touching the map). All arrays
// have one length and live on one device. A missing argument, an argument
// of the wrong type, lengths that differ and arrays on two devices are
// errors that name the argument. Mistakes in the expressions (operands of
// different types, a reduction used as an operand, two outputs of one
// name) are returned by Compile; MustCompile panics on them.
//
// # The CPU evaluator
//
// Compile turns the expression into a sequence of chunk steps: each step
// is one tight Go loop over one chunk of ChunkLen (512) elements, reading
// arrays in place and writing its result into a chunk buffer of its own
// (which stays in the L1 cache), or straight into an output array where
// that changes nothing (an output whose array no later step reads as a
// Var); temporaries share buffers once their last reader has run. Nothing
// is interpreted per element, and nothing is allocated per Run in steady
// state below the parallel threshold. Uniform subexpressions (of Params
// and Consts only) are computed once per Run.
//
// The compiler fuses a*x + y, x*a + y and y - a*x (a uniform) into one
// loop, and Sum(x*y) of float64 into a dot product; two such updates next
// to each other, the second not reading the first, share one loop, and
// the dot of an update's result with itself is accumulated in that loop
// (so the CG update x += alpha p; r -= alpha Ap; r.r is one loop over the
// four arrays). Chains of up to 4 additions and subtractions,
// ((s*x ± y1) ± y2) ± ..., are one loop (the 5-point Laplacian is one).
// On amd64 with AVX2 (checked once with CPUID), the float64 loops that
// dominate a fused CG iteration run as AVX2 assembly generated with avo
// (internal/asmgen, a module of its own, writes package
// internal/fvec): the dot product, y + a*x, y + a*x with the dot of its
// result with itself, the pair of updates with that dot, and the chain of
// 4 (the 5-point Laplacian). XPMPI_CPU_VECTOR=off (the switch of package
// backend/cpu) or a build with -tags purego runs the Go loops instead.
// Both paths add in the same order without fused multiply-add, and the
// tests compare them bit for bit. None of this changes a bit of any
// result.
// Kernel.String shows the operations after these rewrites. A kernel
// whose only loop reads and writes the arrays of the call (the CG update,
// the direction update, a dot of two Vars) runs that loop over a run of
// chunks in one call, without rebinding every operand per chunk: the
// same loop per chunk, the same bits. Arrays of
// ParallelMin elements or more are evaluated by up to backend.Threads()
// goroutines, each taking groups of chunks.
//
// Arrays of the fake device (package backend/fakedev) are host memory: Run
// waits for the work queued on the device and evaluates in place, with no
// transfer.
//
// # Summation order
//
// Reductions are deterministic: the same bits for every thread count. Sum
// and Dot of floats accumulate in float64 (float32 values are exact in
// float64, and Dot multiplies in float64). The n elements are cut into
// chunks of ChunkLen elements, [0, 512), [512, 1024), ...; within a chunk
// of m elements, element j (counted from the chunk's start) is added to
// lane j%16 for j < 16*(m/16), each lane starting at +0 (products rounded
// to float64 before they are added); the lanes are combined as
// c[i] = (l[i]+l[8+i]) + (l[4+i]+l[12+i]) for i = 0..3, then
// (c[0]+c[2]) + (c[1]+c[3]); and the last m%16 elements are added to that
// in order, which gives the chunk's partial sum. This is the order of the
// AVX2 kernels, which keep lane 4k+i in lane i of the YMM accumulator k
// (16 lanes: enough independent additions to keep the adder busy), and of
// the Go loops that stand in for them. The partial sums of chunks
// [lo, hi) are added pairwise: up to 4 of them in order to +0, more split
// at lo+(hi-lo)/2 and the two halves' sums added. The rounding error is at
// most about (51 + log2(n/512)) * 2^-53 times the sum of the absolute
// values (32 additions per lane, 4 to combine the lanes, 15 for the tail,
// the pairwise tree), and usually far less. Integer Sum and Dot
// wrap in 64 bits (exact, any order). ReduceMax and ReduceMin are exact:
// any NaN makes the result NaN; of zero elements they are -Inf/+Inf or the
// type's extreme integer.
//
// A fused kernel equals the operators applied one at a time bit for bit
// where the operations and their order are the same (the tests check
// this, on the host and the fake device, for every operation); a fused
// reduction differs from package backend's Sum and Dot only in the order
// of additions (chunks of 4096 there, and a float64 Sum whose order
// depends on the address's alignment).
//
// # CUDA
//
// Kernel.CUDA generates one CUDA C program per kernel: an elementwise
// kernel in which each thread reads every array element before it writes
// (so the aliasing rules hold), computes the uniform values once, and
// accumulates its reductions; a fixed-tree block reduction writes one
// partial result per block; a second kernel (Final, one block) combines
// the blocks' partials in a fixed order. The grid depends on the length
// only (CUDAProgram.Grid), so CUDA reductions are deterministic, but they
// add in another order than the CPU evaluator (results agree to rounding,
// not bit for bit). Elementwise results equal the CPU's bit for bit for
// +, -, *, /, Sqrt, comparisons, Where, Min, Max, Abs and casts within
// range (compiled with --fmad=false, as CUDAProgram.Options says); Exp,
// Log and Pow use CUDA's double-precision functions, whose results differ
// from Go's math package by up to 1-2 ulp (CUDA's documented maximum
// errors), before rounding to float32 for float32.
//
// The package does not launch CUDA kernels itself: package backend/cuda
// is cgo, this package is pure Go. Run on CUDA arrays calls the
// CUDALauncher set with SetCUDALauncher (an error without one), which
// compiles the program with NVRTC and launches it as CUDAProgram
// documents. The tests compile the generated source of a set of kernels
// with NVRTC (XPMPI_NVRTC; skipped without it), check Run's CUDA path with
// a stand-in device and a host launcher, and hold a launcher over
// backend/cuda (gpu_test.go) whose test, TestGPU, compares launched
// kernels with the CPU evaluator; it is skipped without a GPU. Package
// kernels/fuse/fusecuda's TestEmulated launches generated programs on the
// fake CUDA driver (internal/fakecudatest): elementwise results are the
// CPU's bits, reductions the bits of the order CUDAProgram documents,
// float sums within rounding of the CPU's. No generated kernel has run on
// a GPU yet. The package itself ships no launcher.
package fuse
