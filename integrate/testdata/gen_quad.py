#!/usr/bin/python3
"""Reference values for integrate's Quad tests, from scipy.integrate.quad.

Run with Debian's python3-scipy (SciPy 1.10): /usr/bin/python3 gen_quad.py
It writes quad_ref.json; the Go tests read that file and need no Python.
The integrands are named; quad_test.go defines the same functions.
"""
import json
import math
import warnings

import numpy as np
import scipy
from scipy import integrate
from scipy.integrate import _quadpack_py

F = {
    "exp": lambda x: math.exp(x),
    "cubic": lambda x: x**3 - 2*x + 1,
    "cos100": lambda x: math.cos(100*x),
    "sin30exp": lambda x: math.sin(30*x)*math.exp(-x),
    "invsqrt": lambda x: 1/math.sqrt(x),
    "log": lambda x: math.log(x),
    "logsin": lambda x: math.log(x)*math.sin(x),
    "gauss": lambda x: math.exp(-x*x),
    "lorentz": lambda x: 1/(1+x*x),
    "expx": lambda x: math.exp(x),
    "sq": lambda x: x*x,
    "inv": lambda x: 1/x,
    "sininv": lambda x: math.sin(1/x),
    "x09": lambda x: x**-0.9,
    "besselish": lambda x: math.cos(x)/math.sqrt(x),
    "invsqrtabs": lambda x: 1/math.sqrt(abs(x-0.3)) if x != 0.3 else math.inf,
    "logabs": lambda x: math.log(abs(x-0.5)) if x != 0.5 else -math.inf,
    "steps": lambda x: math.floor(3*x),
    "kink": lambda x: abs(x-0.7)*math.exp(x),
}

CASES = [
    # name, integrand, a, b, epsabs, epsrel, limit
    ("smooth", "exp", 0, 1, 1.49e-8, 1.49e-8, 50),
    ("cubic", "cubic", -1, 2, 1.49e-8, 1.49e-8, 50),
    ("oscillatory", "cos100", 0, 1, 1.49e-8, 1.49e-8, 50),
    ("damped", "sin30exp", 0, 10, 1.49e-8, 1.49e-8, 50),
    ("invsqrt", "invsqrt", 0, 1, 1.49e-8, 1.49e-8, 50),
    ("invsqrt-tight", "invsqrt", 0, 1, 1e-13, 1e-13, 50),
    ("log", "log", 0, 1, 1.49e-8, 1.49e-8, 50),
    ("logsin", "logsin", 0, 1, 1e-12, 1e-12, 50),
    ("x^-0.9", "x09", 0, 1, 1.49e-8, 1.49e-8, 50),
    ("gauss-both", "gauss", -math.inf, math.inf, 1.49e-8, 1.49e-8, 50),
    ("lorentz-upper", "lorentz", 0, math.inf, 1.49e-8, 1.49e-8, 50),
    ("exp-lower", "expx", -math.inf, 0, 1.49e-8, 1.49e-8, 50),
    ("cos/sqrt-upper", "besselish", 0, 50, 1.49e-8, 1.49e-8, 50),
    ("reversed", "sq", 1, 0, 1.49e-8, 1.49e-8, 50),
    ("reversed-inf", "lorentz", math.inf, 0, 1.49e-8, 1.49e-8, 50),
    ("divergent", "inv", 0, 1, 1.49e-8, 1.49e-8, 50),
    ("sin(1/x)-limit", "sininv", 1e-3, 1, 1.49e-8, 1.49e-8, 50),
    ("limit-5", "cos100", 0, 1, 1.49e-8, 1.49e-8, 5),
]

# With breakpoints (quad's points: QUADPACK's qagp).
POINT_CASES = [
    ("points-invsqrt", "invsqrtabs", 0, 1, 1.49e-8, 1.49e-8, 50, [0.3]),
    # Not [0, 1]: mirror-image subintervals tie in their error estimates,
    # and which one is bisected first then depends on roundoff.
    ("points-log", "logabs", 0, 0.8, 1.49e-8, 1.49e-8, 50, [0.5]),
    ("points-log-tight", "logabs", -1, 0.8, 1e-13, 1e-13, 50, [0.5]),
    ("points-steps", "steps", 0, 1, 1.49e-8, 1.49e-8, 50, [1/3, 2/3]),
    ("points-kink", "kink", 0, 2, 1e-12, 1e-12, 50, [0.7]),
    ("points-dropped", "invsqrtabs", 0, 1, 1.49e-8, 1.49e-8, 50, [0.3, 0.3, 2.0, -1.0]),
    ("points-reversed", "invsqrtabs", 1, 0, 1.49e-8, 1.49e-8, 50, [0.3]),
    ("points-unneeded", "cos100", 0, 1, 1.49e-8, 1.49e-8, 50, [0.25, 0.5]),
]

out = {"scipy": scipy.__version__, "cases": []}
for name, fn, a, b, ea, er, lim, pts in ([c + (None,) for c in CASES] +
                                          POINT_CASES):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = integrate.quad(F[fn], a, b, epsabs=ea, epsrel=er, limit=lim,
                           full_output=1, points=pts)
        # quad's message does not carry ier: call what quad calls (with
        # its flip of reversed bounds) for it.
        lo, hi = min(a, b), max(a, b)
        r = _quadpack_py._quad(F[fn], lo, hi, (), 1, ea, er, lim, pts)
    val, err, info, ier = r[0], r[1], r[2], r[3]
    if b < a:
        val = -val
    assert val == q[0] and err == q[1], (name, val, q)
    out["cases"].append({
        "name": name, "f": fn, "a": a, "b": b, "epsabs": ea, "epsrel": er,
        "limit": lim, "value": val, "abserr": err, "neval": info["neval"],
        "last": info["last"],
        "ier": ier, "points": pts,
    })


def enc(x):
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


for c in out["cases"]:
    for k in ("a", "b"):
        c[k] = enc(c[k])
with open("quad_ref.json", "w") as fh:
    json.dump(out, fh, indent=1)
print("wrote", len(out["cases"]), "cases")
