"""Writes the HDF5 files that package h5's tests read, with h5py (Debian's
python3-h5py 3.7 over HDF5 1.10.8):

    /usr/bin/python3 h5/testdata/make_files.py h5/testdata/py.h5
    H5PY_ALWAYS_USE_MPI=1 /usr/bin/python3 make_files.py --mpi out.h5

testdata/py.h5 was made so, once (serially); TestPythonWrites runs this
script again into a temporary directory where h5py is installed, serially
and with the MPI-IO driver (one process). What the file holds is listed
in pythonDatasets in python_test.go."""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h5ref import ref  # noqa: E402


def main(path, use_mpi):
    if use_mpi:
        from mpi4py import MPI
        f = h5py.File(path, "w", driver="mpio", comm=MPI.COMM_WORLD)
    else:
        f = h5py.File(path, "w")
    with f:
        f.attrs["title"] = "made by h5py"
        f.attrs["n"] = 3
        f.attrs["scale"] = 0.5
        f.create_dataset("contiguous", data=ref("<f8", (7, 10)))
        f.create_dataset("chunked", data=ref("<f4", (5, 3, 4)), chunks=(2, 2, 3))
        d = f.create_dataset("gzip", shape=(13,), dtype="<i2", chunks=(5,), compression="gzip", compression_opts=4)
        if use_mpi:
            # HDF5 writes filtered datasets in parallel only collectively.
            with d.collective:
                d[...] = ref("<i2", (13,))
        else:
            d[...] = ref("<i2", (13,))
        f.create_dataset("bigendian", data=ref(">f8", (5, 4)), dtype=">f8")
        f.create_dataset("empty", shape=(0, 3), dtype="<f8")
        g = f.create_group("fields")
        for dt, shape in [("<i1", (4, 4)), ("<i4", (5,)), ("<i8", (4, 3)), ("<u1", (6,)), ("<u2", (3, 5)),
                          ("<u4", (5, 2)), ("<u8", (3,)), ("<c8", (3, 3)), ("<c16", (6, 5))]:
            name = np.dtype(dt).name
            d = g.create_dataset(name, data=ref(dt, shape), chunks=True)
            d.attrs["dtype"] = np.dtype(dt).str
        g["int64"].attrs["units"] = "K"
        g["int64"].attrs["step"] = 12
        g["int64"].attrs["w"] = np.array([0.5, 2.0])
        # What package h5 refuses: h5py's bool (an enum), strings, a scalar.
        f.create_dataset("refused/bool", data=np.array([True, False]))
        f.create_dataset("refused/string", data=np.array([b"ab", b"cd"]))
        f.create_dataset("refused/scalar", data=1.5)


if __name__ == "__main__":
    args = sys.argv[1:]
    mpi = "--mpi" in args
    args = [a for a in args if a != "--mpi"]
    main(args[0], mpi)
