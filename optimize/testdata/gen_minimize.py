#!/usr/bin/python3
"""Reference values for optimize's Minimize and MinimizeDist tests, from
scipy.optimize.minimize on the Rosenbrock function (scipy.optimize.rosen).

Run with Debian's python3-scipy (SciPy 1.10): /usr/bin/python3 gen_minimize.py
It writes minimize_ref.json; the Go tests embed that file and need no Python.
"""
import json

import numpy as np
import scipy
from scipy import optimize


def x0(n):
    # 0.6, 0.7, 0.8, 0.9, 1.0, 0.6, ...: the same bits in Go.
    return np.array([(i % 5)*0.1 + 0.6 for i in range(n)])


def run(name, n, method, start=None, bounds=None, **options):
    xs = x0(n) if start is None else np.array(start, dtype=float)
    jac = None if method == "Nelder-Mead" else optimize.rosen_der
    r = optimize.minimize(optimize.rosen, xs, jac=jac, method=method,
                          bounds=bounds, options=options or None)
    msg = r.message if isinstance(r.message, str) else r.message.decode()
    out = {"name": name, "n": n, "method": method, "x0": xs.tolist(), "x": r.x.tolist(),
           "fun": float(r.fun), "nit": int(r.nit), "nfev": int(r.nfev),
           "njev": int(getattr(r, "njev", 0)), "status": int(r.status),
           "success": bool(r.success), "message": msg}
    if bounds is not None:
        out["lower"], out["upper"] = bounds.lb.tolist(), bounds.ub.tolist()
    if jac is not None:
        g = np.asarray(r.jac)
        if bounds is not None:
            g = np.where((r.x <= bounds.lb) & (g > 0) | (r.x >= bounds.ub) & (g < 0), 0, g)
        out["gnorm"] = float(np.max(np.abs(g)))
    return out


n = 1000
lb = np.full(n, -2.0)
ub = np.full(n, 0.9)
cases = [
    run("rosen2", 2, "BFGS", start=[-1.2, 1.0]),
    run("rosen2", 2, "L-BFGS-B", start=[-1.2, 1.0]),
    run("rosen2", 2, "Nelder-Mead", start=[-1.2, 1.0]),
    run("rosen1000", n, "L-BFGS-B"),
    run("rosen1000", n, "BFGS"),
    run("rosen1000 bounded", n, "L-BFGS-B", bounds=optimize.Bounds(lb, ub)),
    run("rosen100 maxiter", 100, "L-BFGS-B", maxiter=10),
]
with open("minimize_ref.json", "w") as fh:
    json.dump({"scipy": scipy.__version__, "cases": cases}, fh, indent=1)
for c in cases:
    print(c["name"], c["method"], c["fun"], c["nit"], c["nfev"], c["status"], c["message"], c.get("gnorm"), c["x"][:3])
