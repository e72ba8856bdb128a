#!/usr/bin/python3
"""math_more_gen.py writes math_more.json, the NumPy fixtures of dist's
math_more.go (dist/math_more_test.go), in math.json's format: for each
function and element type, the inputs and NumPy's results, every float as
the integer of its IEEE bits and every integer as its two's-complement bits.
Run from dist/testdata with numpy 1.24:

    /usr/bin/python3 math_more_gen.py > math_more.json

The inputs are the special values, then seeded random values over each
function's useful range. Functions of two arguments pair every special value
with every other.
"""
import json

import numpy as np

rng = np.random.default_rng(32)

FLOATS = {"float32": (np.float32, np.uint32), "float64": (np.float64, np.uint64)}
INTS = {"int32": (np.int32, np.uint32), "int64": (np.int64, np.uint64),
        "uint32": (np.uint32, np.uint32), "uint64": (np.uint64, np.uint64),
        "int8": (np.int8, np.uint8), "uint16": (np.uint16, np.uint16)}

inf, nan = np.inf, np.nan
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.99999, -0.99999, 1.00001, 1.5, -1.5, 2.0, 3.0, -2.5, 10.0, 100.0,
           1000.0, 1e-3, 1e-30, 1e-45, 5e-324, 1e-310, 1e10, 1e22, 1e300, -1e22, 88.0, 89.5, 709.0, 710.0, 711.0,
           -710.0, 21.5, -21.5, 0.3, 3.141592653589793, -1.5707963267948966, 1.7976931348623157e308,
           3.4028235e38, 0.001, 2.0 ** -20, inf, -inf, nan]
UNARY = ["log10", "log2", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "sign"]
BINARY = {"maximum": np.maximum, "minimum": np.minimum, "mod": np.remainder, "floordiv": np.floor_divide,
          "arctan2": np.arctan2}


def bits(a, ut):
    return [int(v) for v in np.asarray(a).view(ut)]


def rand_inputs(name, n=200):
    if name in ("arcsin", "arccos", "arctanh"):
        return np.concatenate([rng.uniform(-1, 1, n // 2), 1 - 10.0 ** rng.uniform(-12, -1, n // 4),
                               -1 + 10.0 ** rng.uniform(-12, -1, n // 4)])
    if name in ("log10", "log2", "arccosh"):
        return np.concatenate([10.0 ** rng.uniform(-30, 30, n // 2), 1 + 10.0 ** rng.uniform(-12, 0, n // 2)])
    if name in ("sinh", "cosh"):
        return np.concatenate([rng.uniform(-25, 25, n // 2), rng.uniform(-700, 700, n // 4), rng.uniform(-1, 1, n // 4)])
    if name == "tan":
        return np.concatenate([rng.uniform(-10, 10, n // 2), rng.uniform(-1e4, 1e4, n // 2)])
    return np.concatenate([rng.normal(0, 10, n // 2), 10.0 ** rng.uniform(-20, 20, n // 2) * rng.choice([-1, 1], n // 2)])


cases = []
with np.errstate(all="ignore"):
    for name in UNARY:
        f = getattr(np, name)
        x = np.concatenate([np.array(SPECIAL), rand_inputs(name)])
        for dt, (ft, ut) in FLOATS.items():
            xs = x.astype(ft)
            cases.append({"func": name, "dtype": dt, "x": bits(xs, ut), "want": bits(f(xs), ut)})
    bx = [0.0, -0.0, 1.0, -1.0, 5.0, -5.0, 3.0, -3.0, 7.5, -7.5, 1e-300, 1e300, 6.0, -6.0, 0.1, inf, -inf, nan]
    xs, ys = [], []
    for a in bx:
        for b in bx:
            xs.append(a)
            ys.append(b)
    xs += list(rng.normal(0, 100, 200)) + list(rng.integers(-20, 21, 100).astype(float))
    ys += list(rng.normal(0, 10, 200)) + list(rng.integers(-6, 7, 100).astype(float))
    for name, f in BINARY.items():
        for dt, (ft, ut) in FLOATS.items():
            a, b = np.array(xs).astype(ft), np.array(ys).astype(ft)
            cases.append({"func": name, "dtype": dt, "x": bits(a, ut), "y": bits(b, ut), "want": bits(f(a, b), ut)})
    # Integers: every pair of small values and the extremes, 0 and -1 among them.
    for dt, (it, ut) in INTS.items():
        info = np.iinfo(it)
        vals = sorted({0, 1, 2, 3, 5, 7, info.max, info.max - 1, info.min, info.min + 1} |
                      ({-1, -2, -3, -5, -7} if info.min < 0 else set()))
        a = np.array([p for p in vals for q in vals], dtype=it)
        b = np.array([q for p in vals for q in vals], dtype=it)
        a = np.concatenate([a, rng.integers(info.min, info.max, 100, dtype=it, endpoint=True)])
        b = np.concatenate([b, rng.integers(max(info.min, -50), min(info.max, 50), 100, dtype=it, endpoint=True)])
        for name in ["maximum", "minimum", "mod", "floordiv"]:
            cases.append({"func": name, "dtype": dt, "x": bits(a, ut), "y": bits(b, ut), "want": bits(BINARY[name](a, b), ut)})
        cases.append({"func": "sign", "dtype": dt, "x": bits(a, ut), "want": bits(np.sign(a), ut)})

print(json.dumps({"numpy": np.__version__, "cases": cases}, separators=(",", ":")))
