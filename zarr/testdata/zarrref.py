"""The values of the test arrays of package zarr, as its Go tests compute
them (ref in zarr_test.go): element i (flat, C order) of an array of dtype."""
import numpy as np


def ref(dtype, shape):
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.int64)
    k, s = dt.kind, dt.itemsize
    if k == "f":
        v = i * 0.25 - 3.5
    elif k == "c":
        v = (i * 0.5 - 1) + 1j * (i * 0.25 + 0.5)
    elif k == "i":
        v = {1: (i * 7 + 3) % 251 - 125,
             2: (i * 37 + 3) % 30011 - 15000,
             4: (i * 100003 + 3) % 2000000011 - 1000000000,
             8: i * 1000000007 - 2**40}[s]
    elif k == "u":
        if s == 8:
            v = i.astype(np.uint64) * np.uint64(1000000007) + np.uint64(2**63)
        else:
            v = {1: (i * 7 + 3) % 251,
                 2: (i * 37 + 3) % 60013,
                 4: (i * 100003 + 3) % 4000000007}[s]
    else:
        raise ValueError("no reference values for %s" % dt)
    return v.astype(dt).reshape(shape)
