"""Fixtures of the complex element types (complex_test.go).

Run from this directory: /usr/bin/python3 complex_gen.py (NumPy 1.24). It writes
complex.json, NumPy's results of the operations on complex64 and complex128
inputs, and complex_c8_3x4.npy and complex_c16_7.npy, files numpy.save
wrote. Complex numbers are written as [real, imag] pairs; special values
as the strings "nan", "inf", "-inf".
"""
import json
import warnings

import numpy as np

warnings.simplefilter("ignore")


def enc(v):
    def f(x):
        x = float(x)
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    v = np.asarray(v)
    if np.iscomplexobj(v):
        return [[f(z.real), f(z.imag)] for z in v.ravel()]
    return [f(z) for z in v.ravel()]


def encs(z):
    z = complex(z)
    return enc(np.array([z]))[0]


n = 11
i = np.arange(n)
x = (i % 5 - 2.25 + i / 8) + 1j * ((i * 7) % 11 / 4 - 1.3)
y = ((i * 3) % 7 - 2.5) + 1j * (1.75 - (i % 4) / 2)
s = 0.75 - 1.5j
a, b = 1.25 + 0.5j, -0.5 + 2j

out = {"x": enc(x), "y": enc(y), "s": encs(s), "a": encs(a), "b": encs(b)}
for name, dt in (("complex64", np.complex64), ("complex128", np.complex128)):
    X, Y = x.astype(dt), y.astype(dt)
    S, A, B = dt(s), dt(a), dt(b)
    r = {
        "add": X + Y, "sub": X - Y, "mul": X * Y, "div": X / Y,
        "adds": X + S, "subs": X - S, "muls": X * S, "divs": X / S,
        "axpy": A * X + Y, "axpby": A * X + B * Y, "scale": A * X,
        "abs": np.abs(X), "angle": np.angle(X), "real": X.real, "imag": X.imag,
        "conj": np.conj(X), "exp": np.exp(X), "log": np.log(X), "sqrt": np.sqrt(X),
        "pow": X ** Y, "pows": X ** S,
    }
    # Reductions in complex128 (xpmpi accumulates in float64 parts).
    X2, Y2 = X.astype(np.complex128), Y.astype(np.complex128)
    red = {
        "sum": encs(X2.sum()), "dot": encs(np.dot(X2, Y2)), "vdot": encs(np.vdot(X2, Y2)),
        "prod": encs(np.prod(X2)), "mean": encs(X2.mean()), "norm": float(np.linalg.norm(X2)),
    }
    out[name] = {k: enc(v) for k, v in r.items()}
    out[name].update(red)

# Special values of exp, log, sqrt, abs, angle (NumPy's, which follow C99
# Annex G).
inf, nan = np.inf, np.nan
sp = np.array([0j, -0.0 + 0j, complex(-0.0, -0.0), complex(inf, 0), complex(-inf, 0), complex(0, inf),
               complex(inf, inf), complex(-inf, inf), complex(nan, 0), complex(0, nan), complex(nan, nan),
               complex(1, inf), complex(-1, 0), complex(-1, -0.0), complex(inf, nan)])
out["special"] = {"x": enc(sp), "exp": enc(np.exp(sp)), "log": enc(np.log(sp)), "sqrt": enc(np.sqrt(sp)),
                  "abs": enc(np.abs(sp)), "angle": enc(np.angle(sp))}

# Astype: real to complex (exact), complex to complex, complex to real
# (the real parts).
ri = np.array([-3, 0, 7, 2**31 - 1], dtype=np.int32)
rf = np.array([1.5, -0.1, 3.0000001, 1e300], dtype=np.float64)
out["astype"] = {
    "int32": enc(ri), "int32_c64": enc(ri.astype(np.complex64)), "int32_c128": enc(ri.astype(np.complex128)),
    "float64": enc(rf), "float64_c64": enc(rf.astype(np.complex64)), "float64_c128": enc(rf.astype(np.complex128)),
    "c128_c64": enc(x.astype(np.complex64)), "c128_f64": enc(x.real), "c128_i32": enc(x.real.astype(np.int32)),
    "c128_f32": enc(x.real.astype(np.float32)),
}

# Where, Compact (x[mask]), Cumsum, Cumprod and the axis reductions of 2-D
# arrays ("m": 7 x 5, "s": 2 x 3, fewer rows than ranks at 3 and 4). The
# values are multiples of 1/8, so that sums are exact in float32 in any
# order; the factors of the products have moduli near 1. Sums and means
# are taken in complex128 (xpmpi accumulates in float64 parts) and
# rounded; cumulative sums and products in the array's type, as NumPy's.
def grid2(r, c, seed):
    k = np.arange(r * c).reshape(r, c)
    re = ((k * 5 + seed) % 17 - 8) / 8
    im = ((k * 3 + 2 * seed) % 13 - 6) / 8
    return re + 1j * im


def facs2(r, c, seed):
    k = np.arange(r * c).reshape(r, c)
    ang = (k * 7 + seed) % 11 / 11 * 2 * np.pi
    mod = 0.75 + (k * 3 + seed) % 5 / 8
    return mod * np.exp(1j * ang)


ops = {}
for shp, (r, c) in (("m", (7, 5)), ("s", (2, 3))):
    x, y = grid2(r, c, 1), grid2(r, c, 4)
    mask = ((np.arange(r * c).reshape(r, c) * 7) % 3 != 0).astype(np.uint8)
    f = facs2(r, c, 2)
    ops[shp] = {"shape": [r, c], "x": enc(x), "y": enc(y), "f": enc(f), "mask": [int(v) for v in mask.ravel()]}
    for name, dt in (("complex64", np.complex64), ("complex128", np.complex128)):
        X, Y, F = x.astype(dt), y.astype(dt), f.astype(dt)
        d = {"where": enc(np.where(mask.astype(bool), X, Y)), "compact": enc(X[mask.astype(bool)])}
        for ax in (0, 1):
            d["cumsum%d" % ax] = enc(np.cumsum(X, axis=ax))
            d["cumprod%d" % ax] = enc(np.cumprod(F, axis=ax))
            d["sum%d" % ax] = enc(X.astype(np.complex128).sum(axis=ax).astype(dt))
            d["mean%d" % ax] = enc(X.astype(np.complex128).mean(axis=ax).astype(dt))
            d["dot%d" % ax] = enc((X.astype(np.complex128) * Y.astype(np.complex128)).sum(axis=ax).astype(dt))
            d["prod%d" % ax] = enc(np.prod(F, axis=ax))
        ops[shp][name] = d

# MatMul and MatVec: a (7 x 5) @ b (5 x 6) and a @ v (5), values that are
# not exact in either type, products in each type (NumPy's BLAS).
rng = np.random.default_rng(12)
a = rng.standard_normal((7, 5)) + 1j * rng.standard_normal((7, 5))
b = rng.standard_normal((5, 6)) + 1j * rng.standard_normal((5, 6))
v = rng.standard_normal(5) + 1j * rng.standard_normal(5)
mm = {"a": enc(a), "b": enc(b), "v": enc(v)}
for name, dt in (("complex64", np.complex64), ("complex128", np.complex128)):
    A, B, V = a.astype(dt), b.astype(dt), v.astype(dt)
    mm[name] = {"a": enc(A), "b": enc(B), "v": enc(V), "ab": enc(A @ B), "av": enc(A @ V)}
ops["matmul"] = mm
out["ops"] = ops

with open("complex.json", "w") as f:
    json.dump(out, f, separators=(",", ":"))

np.save("complex_c8_3x4.npy", (np.arange(12) - 5.5 + 1j * (np.arange(12) % 5 - 0.25)).astype(np.complex64).reshape(3, 4))
np.save("complex_c16_7.npy", (np.arange(7) * 0.5 - 1 - 1j * np.arange(7) / 3).astype(np.complex128))
