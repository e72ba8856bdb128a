#!/usr/bin/python3
"""Reference values for optimize's Newton tests, from scipy.optimize.newton.

Run with Debian's python3-scipy (SciPy 1.10): /usr/bin/python3 gen_newton.py
It writes newton_ref.json; the Go tests embed that file and need no Python.
The functions are named; newton_test.go defines the same ones.
"""
import json
import warnings

import numpy as np
import scipy
from scipy import optimize

# SciPy's test_array_newton (scipy/optimize/tests/test_zeros.py): the diode
# equation of a solar cell, one per element.
A0 = np.array([5.32725221, 5.48673747, 5.49539973, 5.36387202, 4.80237316,
               1.43764452, 5.23063958, 5.46094772, 5.50512718, 5.42046290])
A1 = (np.sin(range(10)) + 1.0) * 7.0
ARGS = (A0, A1, 1e-09, 0.004, 10, 0.27456)


def diode(x, *a):
    b = a[0] + x * a[3]
    return a[1] - a[2] * (np.exp(b / a[5]) - 1.0) - b / a[4] - x


def diode1(x, *a):
    b = a[3] / a[5]
    return -a[2] * np.exp(a[0] / a[5] + x * b) * b - a[3] / a[4] - 1


def diode2(x, *a):
    b = a[3] / a[5]
    return -a[2] * np.exp(a[0] / a[5] + x * b) * b**2


F = {
    # test_zeros' f1..f3 style polynomials and transcendental functions
    "quad": (lambda x: x**2 - 2*x - 1, lambda x: 2*x - 2, lambda x: 2 + 0*x),
    "expcos": (lambda x: np.exp(x) - np.cos(x), lambda x: np.exp(x) + np.sin(x),
               lambda x: np.exp(x) + np.cos(x)),
    "cubic": (lambda x: x**3 - 2*x - 5, lambda x: 3*x**2 - 2, lambda x: 6*x),
    "sq1": (lambda x: x**2 - 1, lambda x: 2*x, lambda x: 2 + 0*x),
    "flat": (lambda x: np.where(x < 10, 1.0, x - 11), lambda x: np.where(x < 10, 0.0, 1.0),
             lambda x: 0*x),
}


def run(name, x0, method, maxiter=50, tol=1.48e-8):
    x0 = np.array(x0, dtype=float)
    if name == "diode":
        f, fp, fpp, args = diode, diode1, diode2, ARGS
    else:
        (f, fp, fpp), args = F[name], ()
    kw = dict(args=args, tol=tol, maxiter=maxiter, full_output=True)
    if method in ("newton", "halley"):
        kw["fprime"] = fp
    if method == "halley":
        kw["fprime2"] = fpp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = optimize.newton(f, x0, **kw)
            root, conv, zd, err = r.root, r.converged, r.zero_der, ""
        except RuntimeError as e:
            root, conv, zd, err = None, None, None, str(e)
    return {
        "name": name, "method": method, "x0": x0.tolist(), "maxiter": maxiter, "tol": tol,
        "root": None if root is None else np.asarray(root).tolist(),
        "converged": None if conv is None else np.asarray(conv).tolist(),
        "zero_der": None if zd is None else np.asarray(zd).tolist(),
        "error": err,
    }


def kepler(n):
    i = np.arange(n, dtype=np.int64)
    k = (i % 1009).astype(float)
    m = 2*np.pi*k/1009
    e = 0.8*((i*7919) % 1000).astype(float)/1000
    return m, e


def kepler_case(n, method, step):
    m, e = kepler(n)
    f = lambda x: x - e*np.sin(x) - m
    fp = lambda x: 1 - e*np.cos(x)
    fpp = lambda x: e*np.sin(x)
    kw = dict(full_output=True)
    if method != "secant":
        kw["fprime"] = fp
    if method == "halley":
        kw["fprime2"] = fpp
    r = optimize.newton(f, m.copy(), **kw)
    idx = list(range(0, n, step))
    return {"n": n, "method": method, "idx": idx, "root": r.root[idx].tolist(),
            "converged": int(r.converged.sum()), "zero_der": int(r.zero_der.sum())}


cases = []
for method in ("newton", "halley", "secant"):
    cases.append(run("diode", [7.0]*10, method))
    cases.append(run("quad", [0.5, 3.0, -2.0, 10.0], method))
    cases.append(run("expcos", [-1.5, -4.0, 0.5, 2.0], method))
    cases.append(run("cubic", [2.0, 1.0, 3.0], method))
    cases.append(run("diode", [7.0]*10, method, maxiter=3))
cases.append(run("sq1", [0.0, 3.0, -2.0], "newton"))
cases.append(run("flat", [0.0, 12.0], "secant"))
cases.append(run("flat", [0.0, 12.0], "newton"))

ref = {"scipy": scipy.__version__, "cases": cases,
       "kepler": [kepler_case(1000000, "newton", 997), kepler_case(100000, "halley", 97),
                  kepler_case(100000, "secant", 97)]}
with open("newton_ref.json", "w") as fh:
    json.dump(ref, fh, indent=1)
