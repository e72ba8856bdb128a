#!/usr/bin/python3
"""Reference values for optimize's Root tests, from scipy.optimize.fsolve.

Run with Debian's python3-scipy (SciPy 1.10): /usr/bin/python3 gen_root.py
It writes root_ref.json; the Go tests embed that file and need no Python.
The systems are named; root_test.go defines the same ones (More, Garbow and
Hillstrom's test problems: Powell's badly scaled function, the extended
Rosenbrock function, the helical valley, Powell's singular function; and
x^2 + 1, which has no real zero).
"""
import json
import math
import warnings

import numpy as np
import scipy
from scipy import optimize


def powell_badly(x):
    return [1e4*x[0]*x[1] - 1, math.exp(-x[0]) + math.exp(-x[1]) - 1.0001]


def powell_badly_jac(x):
    return [[1e4*x[1], 1e4*x[0]], [-math.exp(-x[0]), -math.exp(-x[1])]]


def rosen(x):
    f = np.empty(len(x))
    f[0::2] = 10*(x[1::2] - x[0::2]**2)
    f[1::2] = 1 - x[0::2]
    return f


def rosen_jac(x):
    n = len(x)
    j = np.zeros((n, n))
    for i in range(0, n, 2):
        j[i, i] = -20*x[i]
        j[i, i+1] = 10
        j[i+1, i] = -1
    return j


def helical(x):
    t = math.atan(x[1]/x[0])/(2*math.pi)
    if x[0] < 0:
        t += 0.5
    return [10*(x[2] - 10*t), 10*(math.sqrt(x[0]**2 + x[1]**2) - 1), x[2]]


def powell_singular(x):
    return [x[0] + 10*x[1], math.sqrt(5)*(x[2] - x[3]), (x[1] - 2*x[2])**2,
            math.sqrt(10)*(x[0] - x[3])**2]


def noreal(x):
    return [x[0]**2 + 1]


F = {"powell_badly": (powell_badly, powell_badly_jac),
     "rosen": (rosen, rosen_jac),
     "helical": (helical, None),
     "powell_singular": (powell_singular, None),
     "noreal": (noreal, None)}


def run(name, x0, jac, **kw):
    f, j = F[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, info, ier, msg = optimize.fsolve(f, np.array(x0, dtype=float),
                                            fprime=j if jac else None,
                                            full_output=True, **kw)
    return {"name": name, "x0": x0, "jac": jac, "options": kw, "x": x.tolist(),
            "fun": np.asarray(info["fvec"]).tolist(), "nfev": int(info["nfev"]),
            "njev": int(info.get("njev", 0)), "ier": int(ier), "msg": msg}


rosen0 = [-1.2, 1.0]*5
cases = [
    run("powell_badly", [0.0, 1.0], False),
    run("powell_badly", [0.0, 1.0], True),
    run("rosen", rosen0, False),
    run("rosen", rosen0, True),
    run("rosen", [-1.2, 1.0]*50, False),
    run("helical", [-1.0, 0.0, 0.0], False),
    run("powell_singular", [3.0, -1.0, 0.0, 1.0], False),
    run("noreal", [1.0], False),
    run("rosen", rosen0, False, maxfev=20),
    run("powell_badly", [0.0, 1.0], False, xtol=1e-3),
    run("powell_badly", [0.0, 1.0], False, diag=[1.0, 1e4]),
    run("powell_badly", [0.0, 1.0], False, factor=0.1),
]
with open("root_ref.json", "w") as fh:
    json.dump({"scipy": scipy.__version__, "cases": cases}, fh, indent=1)
for c in cases:
    print(c["name"], c["jac"], c["options"], c["nfev"], c["njev"], c["ier"], c["x"][:4])
