#!/usr/bin/env python3
"""Writes types.json: NumPy's results for dist's comparisons, Compact,
Astype and Load with Convert (mask_test.go and npy_test.go read it), and
types_<type>.npy: .npy files of the 8- and 16-bit integer types.

Run in this directory with NumPy 1.24 on x86-64:
/usr/bin/python3 gen_types.py > types.json

Every number is written as a string (Python's repr for floats: "nan",
"inf", "-0.0"; decimal for integers), so that NaN, infinities, -0 and
64-bit integers survive JSON.

Astype: NumPy's own result is the fixture, except for float-to-integer
conversions that C leaves undefined (NaN, +-Inf, out of range) to uint32
and uint64, where NumPy's vectorized loops give CPU-dependent values:
there the fixture is the documented rule (x86-64's scalar conversion, as
backend.ConvertValue says), and the script checks that the rule is
NumPy's result for every other target.
"""
import json
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")

TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]


def s(v):
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(int(v))


def strs(a):
    return [s(v) for v in np.asarray(a).tolist()]


# ---- comparisons ----
nan, inf = float("nan"), float("inf")
fx = np.array([1.0, nan, -inf, inf, -0.0, 0.0, 2.5, nan, -3.0, 7.0, 1e300, -1e-300, 5.0])
fy = np.array([1.0, 1.0, -inf, 2.0, 0.0, -0.0, nan, nan, -3.5, 7.0, inf, 0.0, 4.0])
ops = {
    "less": np.less, "less_equal": np.less_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "equal": np.equal, "not_equal": np.not_equal,
}
compare = []
for dt, x, y, scalars in [
    ("float64", fx, fy, [0.0, nan, 1.0, -inf]),
    ("float32", fx.astype(np.float32), fy.astype(np.float32), [0.0, nan, 2.5]),
    ("int16", np.array([3, -7, 0, 32767, -32768, 5, 5]), np.array([3, 7, -1, -32768, 32767, 4, 6]), [0, 5, -32768]),
    ("uint8", np.array([0, 255, 7, 128, 1]), np.array([1, 255, 6, 127, 1]), [0, 128, 255]),
    ("uint64", np.array([0, 2**64 - 1, 2**63, 5], dtype=np.uint64), np.array([2**64 - 1, 2**64 - 1, 2**63 - 1, 6], dtype=np.uint64), [2**63]),
]:
    x, y = x.astype(dt), y.astype(dt)
    case = {"dtype": dt, "x": strs(x), "y": strs(y), "array": {}, "scalar": []}
    for name, f in ops.items():
        case["array"][name] = f(x, y).astype(np.uint8).tolist()
    for sv in scalars:
        sc = np.array([sv]).astype(dt)[0]
        case["scalar"].append({"s": s(sc), "ops": {name: f(x, sc).astype(np.uint8).tolist() for name, f in ops.items()}})
    compare.append(case)

# ---- Compact: x[mask] of 1-D and 2-D arrays, uneven masks, empty results ----
compact = []
rng = np.random.default_rng(12)
for shape in [(0,), (1,), (2,), (5,), (13,), (3, 5), (7, 2), (2, 0)]:
    n = int(np.prod(shape))
    x = (np.arange(n, dtype=np.float64) * 1.5 - 4).reshape(shape)
    masks = {
        "none": np.zeros(shape, bool),
        "all": np.ones(shape, bool),
        "first": (np.arange(n) < max(1, n // 3)).reshape(shape),
        "last": (np.arange(n) == n - 1).reshape(shape),
        "random": (rng.random(n) < 0.4).reshape(shape),
    }
    for name, m in masks.items():
        compact.append({"shape": list(shape), "mask_name": name, "x": strs(x.ravel()),
                        "mask": m.astype(np.uint8).ravel().tolist(), "want": strs(x[m])})


# ---- Astype ----
def rule(f, to):
    """backend.ConvertValue's result for a float f (as a float64) to the
    integer type to: x86-64's scalar cvttsd2si."""
    def trunc(f, bits):
        lo, hi = -2.0 ** (bits - 1), 2.0 ** (bits - 1)
        if f != f or not (f > lo - 1 if bits == 32 else f >= lo) or not f < hi:
            return -(2 ** (bits - 1))
        return int(f)  # toward zero
    if to == "uint64" and f == f and 2.0 ** 63 <= f < 2.0 ** 64:
        v = int(f)
    elif to in ("int64", "uint32", "uint64"):
        v = trunc(f, 64)
    else:
        v = trunc(f, 32)
    info = np.iinfo(to)
    return (v - info.min) % (info.max - info.min + 1) + info.min


floats = [nan, inf, -inf, 0.0, -0.0, 0.5, -0.5, 0.9999, -1.5, 1.5, 2.5, 127.9, 128.0, -128.0, -129.0,
          255.5, 256.0, 300.7, -300.7, 32767.5, 32768.0, -32769.0, 65535.9, 65536.0, 70000.5, -70000.5,
          2.0 ** 31 - 0.5, 2.0 ** 31, -2.0 ** 31, -2.0 ** 31 - 1, 3e9, -3e9, 5e9, 2.0 ** 53 + 2,
          2.0 ** 63, -2.0 ** 63, 1e19, -1e19, 2.0 ** 64, 1e30, 3.4028235e38, 1e39, 1e-46, -1e-46]
ints = [0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536, 2 ** 31 - 1, 2 ** 31,
        -2 ** 31, -2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 + 1, 2 ** 62 + 2 ** 40 + 1, 2 ** 63 - 1, -2 ** 63,
        16777217, 16777219, -16777217]
uints = [0, 1, 255, 256, 65535, 2 ** 32 - 1, 2 ** 53 + 1, 2 ** 63, 2 ** 63 + 2 ** 11 + 1, 2 ** 64 - 1, 2 ** 64 - 2 ** 40 - 1]
astype = []
for src, vals in [("float64", floats), ("float32", floats), ("int64", ints), ("uint64", uints),
                  ("int32", [v for v in ints if -2 ** 31 <= v < 2 ** 31]),
                  ("int8", [0, 1, -1, 127, -128, 5]), ("uint16", [0, 1, 65535, 32768, 300]),
                  ("int16", [0, -1, 32767, -32768, 255, 256]), ("uint8", [0, 1, 127, 128, 255]),
                  ("uint32", [0, 1, 2 ** 31, 2 ** 32 - 1, 16777217])]:
    if src.startswith("float"):
        x = np.array(vals, dtype=np.float64).astype(src)  # float32: rounded once
    else:
        x = np.array(vals, dtype=src)
    out = {}
    for to in TYPES:
        got = x.astype(to)
        if src.startswith("float") and not to.startswith("float"):
            want = [rule(float(v), to) for v in x]
            for v, g, w in zip(x.tolist(), got.tolist(), want):
                if int(g) != w:
                    undefined = v != v or v in (inf, -inf) or not (np.iinfo(to).min <= int(v) <= np.iinfo(to).max)
                    if not (undefined and to in ("uint32", "uint64")):
                        sys.exit(f"the rule gives {w} for {src} {v!r} to {to}, NumPy {g}")
            out[to] = [str(w) for w in want]
        else:
            out[to] = strs(got)
    astype.append({"from": src, "x": strs(x), "to": out})

# ---- .npy files of the 8- and 16-bit types, and Load with Convert ----
small = {"int8": [-128, -1, 0, 1, 127, 5], "int16": [-32768, -1, 0, 1, 32767, 300],
         "uint8": [0, 1, 127, 128, 255, 7], "uint16": [0, 1, 32767, 32768, 65535, 300]}
for name, v in small.items():
    np.save(f"types_{name}.npy", np.array(v, dtype=name).reshape(2, 3))
convert = []
for f in ["numpy_f8_3x4.npy", "types_int16.npy", "types_uint8.npy", "types_int8.npy"]:
    a = np.load(f)
    convert.append({"file": f, "shape": list(a.shape), "to": {to: strs(a.astype(to).ravel()) for to in TYPES}})

json.dump({"compare": compare, "compact": compact, "astype": astype, "convert": convert}, sys.stdout, indent=None, separators=(",", ":"))
sys.stdout.write("\n")
