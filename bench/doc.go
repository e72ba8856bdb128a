// Package bench is the benchmark harness of `xpmpi bench`: it runs the
// workloads of docs/BENCH.md (W1 triad, W2 distributed dot, W3 Jacobi, W4
// conjugate gradients, W5 sample sort, W6 MPI latency and bandwidth, W7
// checkpoint write and read; W9 the matrix product of dist.MatMul against
// OpenBLAS's cblas_dgemm; W10 batched Newton on Kepler's equation and
// batched RK45 on small ODE systems; W11 percentiles and distinct values,
// whose reference is a gather to rank 0 and a serial computation there, in
// Go) on xpmpi and, in the same MPI job and alternating repetitions, on a
// plain C + MPI reference of the same computation, and reports each side's median, their ratio, the target and
// whether the checksums agree. A fast wrong answer is not a result: a
// checksum that disagrees is an error.
//
// The reference is bench/ref/xpref.c, built into a shared library
// (RefBuildCommand, or scripts/bench.sh) and loaded with dlopen into the
// process (OpenReference), so that both sides share one MPI library and
// MPI_COMM_WORLD. That needs the mpi build (go build -tags mpi); in the
// default build Run and OpenReference return ErrNeedsMPI.
//
// `xpmpi bench --peers FILE` adds the figures of programs run separately at
// the same rank count and sizes (ReadPeers, Report.AddPeers): W6 as a
// standalone C program at MPI_THREAD_SINGLE (bench/ref/w6.c) and W2-W6 in
// NumPy + mpi4py (bench/peers/mpi4py_w2_w5.py), as columns beside the
// reference, their checksums compared with xpmpi's like the reference's.
//
// Calibrate and Model are the scaling model of docs/SCALING.md: link costs
// fitted to a ping-pong and compute costs per point measured here predict
// W3 and W4 at up to 1,024 ranks on a stated machine (`xpmpi model`).
//
// A program runs the bench on every rank and prints the report on one:
//
//	rep, err := bench.Run(world, bench.Options{Reps: 5, Only: "W3,W4"})
//	if rep != nil && world.Rank() == 0 {
//		rep.WriteText(os.Stdout, false)
//		rep.WriteJSON("build/bench.json")
//	}
//	if err != nil { ... }
//
// Run is collective; the Report's methods are not.
package bench
