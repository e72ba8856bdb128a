"""Reads with h5py the datasets that package h5's TestPythonReads wrote, and
compares them with the reference values (h5ref.py):

    /usr/bin/python3 check_files.py manifest.json

The manifest lists {"file", "name", "dtype", "shape", "chunks",
"compression", "attrs"} per dataset. It prints one line per dataset and
exits 1 on the first difference."""
import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from h5ref import ref  # noqa: E402


def main(manifest):
    with open(manifest) as f:
        entries = json.load(f)
    for e in entries:
        with h5py.File(e["file"], "r") as f:
            d = f[e["name"]]
            where = "%s:%s" % (e["file"], e["name"])
            want = ref(e["dtype"], tuple(e["shape"]))
            assert d.dtype == np.dtype(e["dtype"]), "%s: dtype %s, want %s" % (where, d.dtype, e["dtype"])
            assert d.shape == tuple(e["shape"]), "%s: shape %s, want %s" % (where, d.shape, e["shape"])
            if "chunks" in e:
                want_chunks = tuple(e["chunks"]) if e["chunks"] else None
                assert d.chunks == want_chunks, "%s: chunks %s, want %s" % (where, d.chunks, want_chunks)
            assert d.compression == e.get("compression"), "%s: compression %s, want %s" % (where, d.compression, e.get("compression"))
            got = d[...]
            if not np.array_equal(got, want):
                bad = np.argwhere(got != want)[0]
                raise AssertionError("%s: element %s is %r, want %r" % (where, tuple(bad), got[tuple(bad)], want[tuple(bad)]))
            for k, v in (e.get("attrs") or {}).items():
                a = d.attrs[k]
                ok = np.array_equal(a, v) if isinstance(v, list) else a == v
                assert ok, "%s: attribute %s is %r, want %r" % (where, k, a, v)
            print("ok", where, d.dtype.str, d.shape, d.chunks, d.compression)


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except AssertionError as err:
        print("MISMATCH:", err)
        sys.exit(1)
