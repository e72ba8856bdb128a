#!/usr/bin/python3
"""math_gen.py writes math.json, the NumPy fixtures of dist's elementwise
math functions (dist/math_test.go): for each function and element type, the
inputs and NumPy's results, every float as the integer of its IEEE bits (so
that NaN, infinities and -0 survive JSON) and every integer as its
two's-complement bits. Run from dist/testdata with numpy 1.24:

    /usr/bin/python3 math_gen.py > math.json

The inputs are the special values of each function, then random values
(seeded, so the file is reproducible) over the function's useful range.
"""
import json
import sys

import numpy as np

rng = np.random.default_rng(12)

FLOATS = {"float32": (np.float32, np.uint32), "float64": (np.float64, np.uint64)}
INTS = {"int32": (np.int32, np.uint32), "int64": (np.int64, np.uint64),
        "uint32": (np.uint32, np.uint32), "uint64": (np.uint64, np.uint64)}

inf, nan = np.inf, np.nan
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.0, 3.0, -2.5, 10.0, 100.0, 700.0, 1000.0,
           -700.0, -1000.0, 88.7, 89.0, -103.9, 709.7, 710.0, -745.2, 3.141592653589793, -1.5707963267948966,
           1e-3, 1e-30, 1e-45, 5e-324, 1e-310, 1.17549435e-38, 3.4028235e38, 1.7976931348623157e308,
           1e10, 1e22, 1e300, -1e22, 0.99999, 1.00001, 4.5, 2.0**52 + 0.5, 2.0**23 + 0.5, -(2.0**23) - 0.5,
           20.0, -20.0, 0.1, -0.1, inf, -inf, nan]


def bits(a, ut):
    return [int(v) for v in np.asarray(a).view(ut)]


def rand_inputs(name, ft, n=160):
    if name == "exp":
        hi = 88.0 if ft == np.float32 else 709.0
        r = np.concatenate([rng.uniform(-hi, hi, n // 2), rng.uniform(-5, 5, n // 2)])
    elif name in ("log", "sqrt"):
        r = 10.0 ** rng.uniform(-30, 30, n)
    elif name in ("sin", "cos"):
        r = np.concatenate([rng.uniform(-10, 10, n // 2), rng.uniform(-1e4, 1e4, n // 4), rng.uniform(-1e6, 1e6, n // 4)])
    elif name == "tanh":
        r = np.concatenate([rng.uniform(-10, 10, n // 2), rng.uniform(-0.01, 0.01, n // 2)])
    elif name == "floor":
        r = np.concatenate([rng.uniform(-10, 10, n // 2), rng.uniform(-1e7, 1e7, n // 2)])
    else:  # abs
        r = rng.normal(0, 1e3, n)
    return r.astype(ft)


def pow_inputs(ft, n=160):
    """Pairs (x, y): the special cases of C99's pow, then random ones."""
    xs, ys = [], []
    sx = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -8.0, 10.0, inf, -inf, nan, 3.0, -3.0, 1e-40, 1e30]
    sy = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, -3.0, 0.5, -0.5, 1.0 / 3.0, 100.0, -100.0, 1000.0, inf, -inf, nan]
    for x in sx:
        for y in sy:
            xs.append(x)
            ys.append(y)
    xs += list(10.0 ** rng.uniform(-3, 3, n // 2)) + list(rng.uniform(-10, 10, n // 2))
    ys += list(rng.uniform(-12, 12, n // 2)) + list(rng.integers(-12, 13, n // 2).astype(float))
    # Results near and beyond overflow and underflow: |y*log(x)| up to 1.2
    # times the float type's largest exponent, for tiny, huge and subnormal x.
    emax = 88.7 if ft == np.float32 else 709.8
    big = 10.0 ** rng.uniform(-320 if ft == np.float64 else -44, 300 if ft == np.float64 else 38, n // 2)
    xs += list(big)
    ys += list(rng.uniform(-1.2, 1.2, n // 2) * emax / np.abs(np.log(big)))
    with np.errstate(all="ignore"):
        return np.array(xs).astype(ft), np.array(ys).astype(ft)


# clip is the ufunc that np.clip calls. np.clip itself (numpy 1.24) takes a
# scalar NaN bound to mean no bound, with a DeprecationWarning that says that
# in future it "will always return nan, like it already does when min or max
# are arrays that contain nan"; the ufunc, and dist.Clip, give NaN.
clip = np.core.umath.clip

cases = []
with np.errstate(all="ignore"):
    for tname, (ft, ut) in FLOATS.items():
        special = np.array(SPECIAL).astype(ft)
        for name in ("exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "abs"):
            x = np.concatenate([special, rand_inputs(name, ft)])
            out = getattr(np, {"abs": "absolute"}.get(name, name))(x)
            assert out.dtype == ft
            cases.append({"func": name, "dtype": tname, "x": bits(x, ut), "want": bits(out, ut)})
        x, y = pow_inputs(ft)
        out = np.power(x, y)
        assert out.dtype == ft
        cases.append({"func": "pow", "dtype": tname, "x": bits(x, ut), "y": bits(y, ut), "want": bits(out, ut)})
        for s in (2.0, 0.5, -1.0, 3.0, -0.5, 0.0, nan, inf):
            x = np.concatenate([special, rng.uniform(-3, 3, 40).astype(ft)])
            s = ft(s)
            out = np.power(x, s)
            assert out.dtype == ft
            cases.append({"func": "pows", "dtype": tname, "x": bits(x, ut), "s": bits([s], ut)[0], "want": bits(out, ut)})
        x = np.concatenate([special, rng.uniform(-5, 5, 40).astype(ft)])
        for lo, hi in ((-1.0, 1.0), (0.0, 2.5), (-0.0, 0.0), (0.0, -0.0), (2.0, -2.0), (-inf, 0.5), (nan, 1.0), (0.0, nan)):
            lo, hi = ft(lo), ft(hi)
            out = clip(x, lo, hi)
            assert out.dtype == ft
            cases.append({"func": "clip", "dtype": tname, "x": bits(x, ut), "lo": bits([lo], ut)[0],
                          "hi": bits([hi], ut)[0], "want": bits(out, ut)})
    for tname, (it, ut) in INTS.items():
        info = np.iinfo(it)
        x = np.array([0, 1, 2, 7, 100, info.max, info.max - 1, info.min, info.min + 1], dtype=object)
        if info.min < 0:
            x = np.concatenate([x, [-1, -2, -7, -100]])
        x = np.concatenate([x.astype(it), rng.integers(info.min, info.max, 40, dtype=it, endpoint=True)])
        out = np.absolute(x)
        assert out.dtype == it
        cases.append({"func": "abs", "dtype": tname, "x": bits(x, ut), "want": bits(out, ut)})
        bounds = [(0, 10), (5, 5), (10, 0), (info.min, info.max), (info.max, info.min)]
        if info.min < 0:
            bounds += [(-3, 3), (-100, -50)]
        for lo, hi in bounds:
            lo, hi = it(lo), it(hi)
            out = clip(x, lo, hi)
            assert out.dtype == it
            cases.append({"func": "clip", "dtype": tname, "x": bits(x, ut), "lo": bits([lo], ut)[0],
                          "hi": bits([hi], ut)[0], "want": bits(out, ut)})

json.dump({"numpy": np.__version__, "cases": cases}, sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
