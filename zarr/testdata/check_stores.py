"""Reads with zarr-python the stores that package zarr's TestPythonReads
wrote, and compares them with the reference values (zarrref.py):

    /usr/bin/python3 check_stores.py manifest.json

The manifest lists {"store", "name", "dtype", "shape", "chunks",
"compressor", "attrs"} per array. It prints one line per array and exits 1
on the first difference."""
import json
import os
import sys

import numpy as np
import zarr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zarrref import ref  # noqa: E402


def main(manifest):
    with open(manifest) as f:
        entries = json.load(f)
    for e in entries:
        root = zarr.open(e["store"], mode="r")
        a = root[e["name"]] if e["name"] else root
        where = "%s:%s" % (e["store"], e["name"])
        want = ref(e["dtype"], tuple(e["shape"]))
        assert isinstance(a, zarr.Array), "%s is not an array" % where
        assert a.dtype == np.dtype(e["dtype"]), "%s: dtype %s, want %s" % (where, a.dtype.str, e["dtype"])
        assert a.shape == tuple(e["shape"]), "%s: shape %s, want %s" % (where, a.shape, e["shape"])
        if e.get("chunks"):
            assert a.chunks == tuple(e["chunks"]), "%s: chunks %s, want %s" % (where, a.chunks, e["chunks"])
        comp = a.compressor.codec_id if a.compressor is not None else ""
        assert comp == e.get("compressor", ""), "%s: compressor %s, want %s" % (where, comp, e.get("compressor"))
        got = a[...]
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)[0]
            raise AssertionError("%s: element %s is %r, want %r" % (where, tuple(bad), got[tuple(bad)], want[tuple(bad)]))
        for k, v in (e.get("attrs") or {}).items():
            assert a.attrs[k] == v, "%s: attribute %s is %r, want %r" % (where, k, a.attrs.get(k), v)
        print("ok", where, a.dtype.str, a.shape, a.chunks, comp)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except AssertionError as err:
        print("MISMATCH:", err)
        sys.exit(1)
