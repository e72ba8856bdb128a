#!/usr/bin/python3
"""BENCH.md's W2-W5 (and W6) the way a NumPy + mpi4py user writes them.

Vectorized NumPy on each rank's block, mpi4py's buffer-based calls
(Allreduce, Sendrecv, Allgatherv, Alltoall, Alltoallv, Send, Recv) on NumPy
arrays, one thread per rank (run it with OPENBLAS_NUM_THREADS=1 and
OMP_NUM_THREADS=1, as scripts/bench.sh does, so that NumPy's BLAS dot uses
the one core the rank has, like the C reference):

  W2  distributed dot: np.dot of the rank's blocks + Allreduce, 200 times
  W3  Jacobi: the 5-point update with array slicing, one-row halos with Sendrecv
  W4  conjugate gradients, matrix-free 5-point Laplacian with slicing
  W5  sample sort: np.sort, regular samples, np.searchsorted, Alltoallv, np.sort
  W6  8-byte Allreduce latency; ping-pong between ranks 0 and 1
  W11 order statistics the NumPy way: Gatherv to rank 0, then np.percentile
      (1st, 50th, 99th) there, and np.unique of the integer keys

The sizes, initial values, timed regions and checksums are those of
bench/workloads.go and bench/ref/xpref.c (--small: sizesFor(true)), so that
`xpmpi bench --peers` can put the figures beside xpmpi's and check the
checksums against xpmpi's. Rank 0 prints one JSON object (bench/peers.go):

  mpirun -np 2 python3 bench/peers/mpi4py_w2_w5.py [--reps N] [--small] [--only W2,W3]
"""
import argparse
import json
import math
import sys

import numpy as np
import mpi4py
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


def sizes(small):
    """bench/workloads.go's sizesFor."""
    s = dict(dot_n=1 << 24, dots=200, jacobi_n=2048, jacobi_iters=200, cg_n=1024, cg_tol=1e-8,
             sort_n=1 << 23, allreduce_calls=20000, ping_bytes=4 << 20, ping_trips=100)
    if small:
        s["dot_n"] //= 64
        s["sort_n"] //= 64
        s["jacobi_n"] //= 8
        s["cg_n"] //= 8
        s["allreduce_calls"] //= 64
        s["ping_bytes"] //= 64
    return s


SEED = 20240917  # bench/workloads.go's benchSeed


def block(n, p, r):
    """The first index and the count of rank r's block of n over p ranks."""
    q, rem = divmod(n, p)
    return r * q + min(r, rem), q + (1 if r < rem else 0)


def neighbours(n):
    """The ranks above and below this rank's row block (xpref.c's neighbours)."""
    _, below = block(n, size, rank + 1 if rank + 1 < size else rank)
    up = rank - 1 if rank > 0 else MPI.PROC_NULL
    down = rank + 1 if rank + 1 < size and below > 0 else MPI.PROC_NULL
    return up, down


_one, _out = np.zeros(1), np.zeros(1)


def allreduce(v, op=MPI.SUM):
    """The sum (or op) of the float v over the ranks, through NumPy buffers."""
    _one[0] = v
    comm.Allreduce(_one, _out, op=op)
    return float(_out[0])


def timed(f):
    """Runs f between a barrier and the slowest rank's end: (seconds, f())."""
    comm.Barrier()
    t0 = MPI.Wtime()
    res = f()
    return allreduce(MPI.Wtime() - t0, MPI.MAX), res


def halo(u, rows, up, down, tag=0x4841):
    """Fills the ghost rows 0 and rows+1 of u from the ranks up and down."""
    comm.Sendrecv(u[1], dest=up, sendtag=tag, recvbuf=u[rows + 1], source=down, recvtag=tag)
    comm.Sendrecv(u[rows], dest=down, sendtag=tag, recvbuf=u[0], source=up, recvtag=tag)


# ---- W2 ----

def w2(s, reps):
    n, dots = s["dot_n"], s["dots"]
    lo, m = block(n, size, rank)
    g = np.arange(lo, lo + m)
    x = (g % 8) / 8.0
    y = (g % 16) / 16.0

    def run():
        d = 0.0
        for _ in range(dots):
            d = allreduce(np.dot(x, y))
        return d

    samples, sums = [], []
    for _ in range(reps):
        secs, d = timed(run)
        samples.append(secs / dots * 1e6)
        sums.append(d)
    return [fig("W2", "us/dot", samples)], [check("W2", "dot", sums)]


# ---- W3 ----

def w3(s, reps):
    n, iters = s["jacobi_n"], s["jacobi_iters"]
    lo, rows = block(n, size, rank)
    up, down = neighbours(n)
    if rows == 0:
        up = down = MPI.PROC_NULL
    samples, sums = [], []
    for _ in range(reps):
        u = np.zeros((rows + 2, n + 2))
        v = np.zeros((rows + 2, n + 2))
        if lo == 0 and rows > 0:
            u[0, :] = 1.0  # the top edge: the ghost row above global row 0
            v[0, :] = 1.0

        def run():
            a, b = u, v
            for _ in range(iters):
                if rows > 0:
                    halo(a, rows, up, down)
                    b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
                a, b = b, a
            return a

        secs, a = timed(run)
        samples.append(secs / iters * 1e3)
        sums.append(allreduce(a[1:-1, 1:-1].sum()))
    return [fig("W3", "ms/iter", samples)], [check("W3", "sum of u", sums)]


# ---- W4 ----

def w4(s, reps):
    n, tol = s["cg_n"], s["cg_tol"]
    lo, rows = block(n, size, rank)
    up, down = neighbours(n)
    if rows == 0:
        up = down = MPI.PROC_NULL
    bnorm = math.sqrt(float(n) * n)
    secs_l, per_iter, iters_l, resid_l, sums, oks = [], [], [], [], [], []
    for _ in range(reps):
        x = np.zeros((rows, n))
        r = np.ones((rows, n))  # r = b - A x0 = b
        d = np.zeros((rows + 2, n + 2))  # the search direction, with ghost rows and zero walls
        dc = d[1:-1, 1:-1]
        dc[...] = r

        def run():
            rr = allreduce(np.vdot(r, r))
            k = 0
            while math.sqrt(rr) / bnorm > tol and k < n * n:
                halo(d, rows, up, down)
                q = 4 * dc - d[:-2, 1:-1] - d[2:, 1:-1] - d[1:-1, :-2] - d[1:-1, 2:]
                alpha = rr / allreduce(np.vdot(dc, q))
                x[...] += alpha * dc
                r[...] -= alpha * q
                rr_new = allreduce(np.vdot(r, r))
                beta = rr_new / rr
                dc[...] = r + beta * dc
                rr = rr_new
                k += 1
            return k, math.sqrt(rr) / bnorm

        secs, (k, relres) = timed(run)
        secs_l.append(secs)
        per_iter.append(secs / k * 1e3 if k > 0 else 0.0)
        iters_l.append(float(k))
        resid_l.append(relres)
        sums.append(allreduce(x.sum()))
        oks.append(relres <= tol)
    figs = [fig("W4", "s", secs_l), fig("W4", "ms/iter", per_iter), fig("W4", "count", iters_l), fig("W4", "1", resid_l)]
    return figs, [check("W4", "iterations", iters_l, oks), check("W4", "sum of x", sums, oks)]


# ---- W5 ----

def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Random123's Philox4x32 with ten rounds, on arrays of uint64 holding 32-bit words."""
    mask = np.uint64(0xFFFFFFFF)
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        p0, p1 = m0 * c0, m1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)), p1 & mask, \
            ((p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)), p0 & mask
        k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
        k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c0, c1, c2, c3


def uniform_keys(seed, lo, m):
    """Keys lo..lo+m-1 of xpref.c's uniform (dist.Uniform's): the top 53 bits
    of the first 64-bit word of the Philox block (seed, stream g, counter 0)."""
    g = np.arange(lo, lo + m, dtype=np.uint64)
    z = np.zeros(m, dtype=np.uint64)
    c0, c1, _, _ = philox4x32_10(z, z, g & np.uint64(0xFFFFFFFF), g >> np.uint64(32),
                                 seed & 0xFFFFFFFF, seed >> 32)
    x0 = (c1 << np.uint64(32)) | c0
    return (x0 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def sample_sort(keys):
    """Sorts the distributed keys: np.sort, 128 regular samples per splitter
    from every rank, the splitters at the quantiles of all samples,
    Alltoallv of the pieces, np.sort of what arrived."""
    keys = np.sort(keys)
    if size == 1:
        return keys
    m = len(keys)
    s = min(128 * (size - 1), m)
    samples = keys[(np.arange(1, s + 1) * m) // (s + 1)]
    counts = np.array(comm.allgather(s))
    allsamples = np.empty(int(counts.sum()))
    comm.Allgatherv(samples, [allsamples, counts])
    allsamples.sort()
    total = len(allsamples)
    if total > 0:
        splitters = allsamples[(np.arange(1, size) * total) // size]
        cuts = np.searchsorted(keys, splitters, side="left")
    else:
        cuts = np.full(size - 1, m)
    cuts = np.maximum.accumulate(np.concatenate(([0], cuts, [m])))
    scount = np.diff(cuts).astype(np.int64)
    rcount = np.empty(size, dtype=np.int64)
    comm.Alltoall(scount, rcount)
    recv = np.empty(int(rcount.sum()))
    comm.Alltoallv([keys, (scount, cuts[:-1])], [recv, (rcount, None)])
    recv.sort()
    return recv


def w5(s, reps):
    n = s["sort_n"]
    lo, m = block(n, size, rank)
    keys = uniform_keys(SEED, lo, m)
    samples, sums, oks = [], [], []
    for _ in range(reps):
        mine = keys.copy()
        secs, out = timed(lambda: sample_sort(mine))
        # Verify (untimed): each block in order, the blocks in order, n keys.
        ok = bool(np.all(out[1:] >= out[:-1]))
        ends = comm.allgather((len(out), out[0] if len(out) else 0.0, out[-1] if len(out) else 0.0))
        start = sum(c for c, _, _ in ends[:rank])
        count, last = 0, -math.inf
        for c, first, end in ends:
            count += c
            if c > 0:
                ok = ok and first >= last
                last = end
        ok = ok and count == n
        weights = (np.arange(start, start + len(out)) % 1024 + 1).astype(np.float64)
        sums.append(allreduce(np.dot(out, weights)))
        oks.append(bool(comm.allreduce(ok, op=MPI.LAND)))
        samples.append(secs)
    return [fig("W5", "s", samples)], [check("W5", "weighted sum of the sorted keys", sums, oks)]


# ---- W6 ----

def w6(s, reps):
    calls = s["allreduce_calls"]
    one, out = np.ones(1), np.zeros(1)

    def run():
        acc = 0.0
        for _ in range(calls):
            comm.Allreduce(one, out, op=MPI.SUM)
            acc += out[0]
        return acc

    samples, sums = [], []
    for _ in range(reps):
        secs, acc = timed(run)
        samples.append(secs / calls * 1e6)
        sums.append(acc)
    figs, checks = [fig("W6", "us/call", samples)], [check("W6", "sum of the allreduce results", sums)]
    if size < 2:
        return figs, checks
    nbytes, trips = s["ping_bytes"], s["ping_trips"]
    gbs, psums = [], []
    for _ in range(reps):
        buf = (np.arange(nbytes // 8) % 1000).astype(np.float64)
        comm.Barrier()
        start = 0.0
        for k in range(-1, trips):  # round trip -1 is the warm-up
            if k == 0:
                start = MPI.Wtime()
            if rank == 0:
                comm.Send(buf, dest=1, tag=7)
                comm.Recv(buf, source=1, tag=7)
            elif rank == 1:
                comm.Recv(buf, source=0, tag=7)
                comm.Send(buf, dest=0, tag=7)
        res = np.array([MPI.Wtime() - start, buf.sum()])
        comm.Bcast(res, root=0)
        gbs.append(nbytes / (res[0] / (2 * trips)) / 1e9)
        psums.append(float(res[1]))
    figs.append(fig("W6", "GB/s", gbs))
    checks.append(check("W6", "ping-pong buffer sum", psums))
    return figs, checks


def fig(workload, unit, samples):
    return {"workload": workload, "unit": unit, "samples": [float(v) for v in samples]}


def check(workload, what, values, oks=None):
    if oks is None:
        oks = [True] * len(values)
    return {"workload": workload, "what": what, "values": [float(v) for v in values], "ok": [bool(v) for v in oks]}


# ---- W11 ----

def w11(s, reps):
    """bench/order.go's W11: W5's keys, their 1st, 50th and 99th percentiles,
    and the distinct values of floor(key * n/8), each by a Gatherv to rank 0
    and NumPy there."""
    n = s["sort_n"]
    lo, m = block(n, size, rank)
    keys = uniform_keys(SEED, lo, m)
    ints = (keys * float(max(n // 8, 1))).astype(np.int64)
    counts = np.array([block(n, size, r)[1] for r in range(size)])
    gf = np.empty(n) if rank == 0 else None
    gi = np.empty(n, dtype=np.int64) if rank == 0 else None
    out = np.zeros(3)

    def pct():
        comm.Gatherv(keys, [gf, counts] if rank == 0 else None, root=0)
        if rank == 0:
            out[:] = np.percentile(gf, [1, 50, 99])
        comm.Bcast(out, root=0)
        return float(out.sum())

    def uniq():
        comm.Gatherv(ints, [gi, counts] if rank == 0 else None, root=0)
        res = 0.0
        if rank == 0:
            u = np.unique(gi)
            res = float(len(u)) + float(u.sum(dtype=np.float64))
        return res

    psamples, psums, usamples, usums = [], [], [], []
    for _ in range(reps):
        secs, v = timed(pct)
        psamples.append(secs * 1e3)
        psums.append(v)
        secs, v = timed(uniq)
        usamples.append(secs * 1e3)
        usums.append(comm.bcast(v, root=0))
    return ([fig("W11", "ms/percentile", psamples), fig("W11", "ms/unique", usamples)],
            [check("W11", "sum of the 1st, 50th and 99th percentiles", psums),
             check("W11", "count plus sum of the distinct values", usums)])


RUNS = {"W2": w2, "W3": w3, "W4": w4, "W5": w5, "W6": w6, "W11": w11}


def main():
    ap = argparse.ArgumentParser(description="W2-W6 and W11 in NumPy + mpi4py, for xpmpi bench --peers")
    ap.add_argument("--reps", type=int, default=5, help="repetitions of each workload")
    ap.add_argument("--small", action="store_true", help="the sizes of xpmpi bench --small")
    ap.add_argument("--only", default="", help="a comma list of workloads (default W2,W3,W4,W5,W6,W11)")
    a = ap.parse_args()
    if a.reps < 1:
        ap.error("--reps must be at least 1")
    ids = [w.strip().upper() for w in a.only.split(",") if w.strip()] or list(RUNS)
    ids = [w for w in RUNS if w in ids]
    s = sizes(a.small)
    figures, checksums = [], []
    for w in ids:
        if rank == 0:
            print(f"mpi4py: {w}", file=sys.stderr, flush=True)
        f, c = RUNS[w](s, a.reps)
        figures += f
        checksums += c
    if rank == 0:
        about = (f"bench/peers/mpi4py_w2_w5.py: NumPy {np.__version__}, mpi4py {mpi4py.__version__}, "
                 f"Python {sys.version.split()[0]}, {MPI.Get_library_version().splitlines()[0].split(',')[0]}")
        json.dump({"peer": "mpi4py", "about": about, "ranks": size, "small": a.small, "reps": a.reps,
                   "figures": figures, "checksums": checksums}, sys.stdout)
        print()


if __name__ == "__main__":
    main()
