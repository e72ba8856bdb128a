"""Writes the Zarr v2 stores that package zarr's tests read, with
zarr-python 2 (Debian's python3-zarr 2.13):

    /usr/bin/python3 zarr/testdata/make_stores.py zarr/testdata/py

The stores in testdata/py were made so, once; TestPythonWrites runs this
script again into a temporary directory where zarr-python is installed.
What each store holds is listed in pythonStores in interop_test.go."""
import os
import shutil
import sys

import numcodecs
import numpy as np
import zarr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zarrref import ref  # noqa: E402


def array(path, shape, chunks, dtype, **kw):
    a = zarr.open_array(path, mode="w", shape=shape, chunks=chunks, dtype=dtype, **kw)
    a[...] = ref(dtype, shape)
    return a


def main(out):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    j = lambda name: os.path.join(out, name)
    array(j("f8_zlib.zarr"), (7, 10), (3, 4), "<f8", compressor=numcodecs.Zlib(level=5))
    array(j("i2_gzip_nested.zarr"), (5, 3, 4), (2, 2, 3), "<i2",
          compressor=numcodecs.GZip(level=1), dimension_separator="/")
    array(j("c16_fortran.zarr"), (6, 5), (4, 2), "<c16", compressor=None, order="F")
    array(j("u1.zarr"), (13,), (5,), "|u1", compressor=None)
    array(j("f8_bigendian.zarr"), (5, 4), (2, 3), ">f8", compressor=numcodecs.Zlib(level=1))
    array(j("empty.zarr"), (0, 3), (1, 3), "<f8", compressor=None)
    array(j("blosc.zarr"), (4,), (2,), "<f8")  # zarr-python's default compressor: blosc

    # Chunk 1 is never written: it reads as the fill value, NaN.
    a = zarr.open_array(j("f4_missing.zarr"), mode="w", shape=(9,), chunks=(4,), dtype="<f4",
                        fill_value=np.nan, compressor=None)
    v = ref("<f4", (9,))
    a[0:4] = v[0:4]
    a[8:9] = v[8:9]

    # A group of every other element type, with attributes.
    g = zarr.open_group(j("group.zarr"), mode="w")
    g.attrs.update({"title": "made by zarr-python", "n": 3, "scale": 0.5})
    f = g.create_group("fields")
    types = [("<f4", (4, 3), (3, 2)), ("<i1", (4, 4), (3, 3)), ("<i4", (5,), (2,)),
             ("<i8", (4, 3), (3, 2)), ("<u2", (3, 5), (2, 2)), ("<u4", (5, 2), (2, 2)),
             ("<u8", (3,), (2,)), ("<c8", (3, 3), (2, 2))]
    for dt, shape, chunks in types:
        name = np.dtype(dt).name
        a = f.create_dataset(name, shape=shape, chunks=chunks, dtype=dt,
                             compressor=numcodecs.Zlib(level=1))
        a[...] = ref(dt, shape)
        a.attrs["dtype"] = np.dtype(dt).str
    f["int64"].attrs.update({"units": "K", "step": 12})


if __name__ == "__main__":
    main(sys.argv[1])
