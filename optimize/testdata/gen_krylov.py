#!/usr/bin/python3
"""Reference values for optimize's NewtonKrylov test, from
scipy.optimize.newton_krylov on the 2-D Bratu problem
-laplace(u) - lam*exp(u) = 0 on the unit square, u = 0 on the boundary,
with the 5-point Laplacian on an n by n grid of interior points.

Run with Debian's python3-scipy (SciPy 1.10): /usr/bin/python3 gen_krylov.py
It writes krylov_ref.json; the Go tests embed that file and need no Python.
"""
import json

import numpy as np
import scipy
from scipy import optimize


def bratu(n, lam):
    h = 1.0/(n + 1)

    def F(u):
        p = np.zeros((n + 2, n + 2))
        p[1:-1, 1:-1] = u
        lap = (4*p[1:-1, 1:-1] - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:])/(h*h)
        return lap - lam*np.exp(u)
    return F


cases = []
for n, lam in ((31, 6.0), (20, 1.0)):
    nit = [0]

    def cb(x, f):
        nit[0] += 1
    u = optimize.newton_krylov(bratu(n, lam), np.zeros((n, n)), method="gmres", callback=cb)
    cases.append({"n": n, "lam": lam, "u": u.ravel().tolist(), "nit": nit[0],
                  "fmax": float(np.max(np.abs(bratu(n, lam)(u))))})
    print(n, lam, nit[0], u.max(), cases[-1]["fmax"])
with open("krylov_ref.json", "w") as fh:
    json.dump({"scipy": scipy.__version__, "cases": cases}, fh)
