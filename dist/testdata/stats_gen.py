#!/usr/bin/env python3
"""Generates stats_fixtures.json, the NumPy values of dist's statistics
tests (dist/stats_test.go). Run from this directory with NumPy 1.24:

    /usr/bin/python3 stats_gen.py > stats_fixtures.json

Every number is written as a string (Python's repr of a float, or a
decimal integer), so that NaN, infinities and 64-bit integers survive.

The arrays are defined by formulas of the row-major flat index i, which
stats_test.go repeats:
  vals(i) = (7*i+3) % 11 - 4     for signed and float types,
            (7*i+3) % 11         for unsigned types;
  facs(i) = (7*i+3) % 5 + 1, negated where i % 4 == 1 for signed and
            float types (the factors of Prod and Cumprod: no zeros).
"""
import json
import warnings

import numpy as np

warnings.simplefilter("ignore")

SHAPES = [[0], [1], [2], [5], [7], [17], [0, 3], [3, 0], [1, 4], [5, 3],
          [2, 9], [3, 4, 5], [2, 5, 3], [4, 0, 2]]
DTYPES = ["float32", "float64", "int32", "int64", "uint32", "uint64"]
BINS, LO, HI = 5, -2.0, 6.0
AUTO_BINS = 4


def vals(shape, dt):
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    v = (7 * i + 3) % 11
    if not dt.startswith("uint"):
        v = v - 4
    return v.astype(dt).reshape(shape)


def facs(shape, dt):
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    v = (7 * i + 3) % 5 + 1
    if not dt.startswith("uint"):
        v = np.where(i % 4 == 1, -v, v)
    return v.astype(dt).reshape(shape)


def s(v):
    """A number as a string."""
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(int(v))


def strs(a):
    return [s(v) for v in np.asarray(a).ravel()]


def case(shape, dt):
    x, f = vals(shape, dt), facs(shape, dt)
    isf = dt.startswith("float")
    c = {"shape": shape, "dtype": dt}
    c["mean"] = s(np.mean(x, dtype=np.float64))
    c["var0"] = s(np.var(x, dtype=np.float64))
    c["var1"] = s(np.var(x, ddof=1, dtype=np.float64))
    c["std1"] = s(np.std(x, ddof=1, dtype=np.float64))
    # Prod: float64 accumulation rounded to the type; integers wrap.
    if isf:
        c["prod"] = s(np.asarray(np.prod(f, dtype=np.float64)).astype(dt)[()])
    else:
        c["prod"] = s(np.prod(f, dtype=dt))
    c["any"] = bool(np.any(x))
    c["all"] = bool(np.all(x))
    h, _ = np.histogram(x, BINS, range=(LO, HI))
    c["hist"] = strs(h)
    h, e = np.histogram(x, AUTO_BINS)
    c["hist_auto"], c["hist_auto_edges"] = strs(h), strs(e)
    c["cumsum"] = [strs(np.cumsum(x, axis=a, dtype=dt)) for a in range(len(shape))]
    c["cumprod"] = [strs(np.cumprod(f, axis=a, dtype=dt)) for a in range(len(shape))]
    c["mean_axis"] = [strs(np.mean(x, axis=a, dtype=np.float64)) for a in range(len(shape))]
    c["var_axis"] = [strs(np.var(x, axis=a, ddof=1, dtype=np.float64)) for a in range(len(shape))]
    c["std_axis"] = [strs(np.std(x, axis=a, ddof=0, dtype=np.float64)) for a in range(len(shape))]
    return c


def big():
    """Var of values near 1e8: a naive one-pass formula loses every digit."""
    i = np.arange(1001, dtype=np.int64)
    x = 1e8 + ((7 * i + 3) % 11 - 5) * 1e-3
    return {"n": 1001, "var0": s(np.var(x)), "var1": s(np.var(x, ddof=1)), "mean": s(np.mean(x))}


def edges():
    """numpy.histogram's edges and counts for a few ranges."""
    out = []
    for bins, lo, hi in [(5, -2.0, 6.0), (3, 0.1, 0.7), (7, -1e-3, 2.5), (1, 3.0, 3.0), (10, 0.0, 1.0)]:
        x = np.linspace(lo - 0.3, hi + 0.3, 97)
        h, e = np.histogram(x, bins, range=(lo, hi))
        out.append({"bins": bins, "lo": s(lo), "hi": s(hi), "counts": strs(h), "edges": strs(e)})
    return out


print(json.dumps({
    "bins": BINS, "lo": s(LO), "hi": s(HI), "auto_bins": AUTO_BINS,
    "cases": [case(sh, dt) for sh in SHAPES for dt in DTYPES],
    "big": big(),
    "edges": edges(),
}, separators=(",", ":")))
