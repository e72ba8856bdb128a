"""h5py's MPI build writing and reading W7's array (bench/w7formats): every
rank its row block of one contiguous float64 dataset, collective
transfers, as h5.Save and h5.LoadInto do; no read-back after the write.

    mpirun -np 2 -x H5PY_ALWAYS_USE_MPI=1 python3 h5py_w7.py N REPS DIR
"""
import os, sys, time
from mpi4py import MPI
import numpy as np
import h5py

comm = MPI.COMM_WORLD
n, reps, base = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
p, r = comm.Get_size(), comm.Get_rank()
lo, hi = n * r // p, n * (r + 1) // p
a = (np.arange(lo, hi) % 1024 / 1024).astype(np.float64)
want = comm.allreduce(float(a.sum()))
path = os.path.join(base, "w7-h5py-%d.h5" % os.getppid()) if r == 0 else None
path = comm.bcast(path)


def timed(f):
    comm.Barrier()
    t = time.perf_counter()
    f()
    return comm.allreduce(time.perf_counter() - t, op=MPI.MAX)


def write():
    with h5py.File(path, "w", driver="mpio", comm=comm) as f:
        d = f.create_dataset("x", (n,), dtype="f8")
        with d.collective:
            d[lo:hi] = a


b = np.empty(hi - lo)


def read():
    with h5py.File(path, "r", driver="mpio", comm=comm) as f:
        d = f["x"]
        with d.collective:
            d.read_direct(b, np.s_[lo:hi])


ws, rs = [], []
for _ in range(reps):
    ws.append(n * 8 / timed(write) / 1e9)
    b[:] = -1
    rs.append(n * 8 / timed(read) / 1e9)
    got = comm.allreduce(float(b.sum()))
    assert got == want, (got, want)
if r == 0:
    os.remove(path)
    print("h5py  write %7.3f  read %7.3f" % (sorted(ws)[len(ws) // 2], sorted(rs)[len(rs) // 2]))
