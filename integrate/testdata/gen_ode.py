#!/usr/bin/python3
"""Reference values for integrate's ODE tests, from scipy.integrate.solve_ivp.

Run with Debian's python3-scipy (SciPy 1.10): /usr/bin/python3 gen_ode.py
It writes ode_ref.json; the Go tests read that file and need no Python.
"""
import json
import math

import numpy as np
import scipy
from scipy.integrate import solve_ivp


def decay(t, y):
    return -0.5 * y


def osc(t, y):
    return [y[1], -y[0]]


MU = 1000.0


def vdp(t, y):
    return [y[1], MU * (1 - y[0] ** 2) * y[1] - y[0]]


def vdp_jac(t, y):
    return [[0, 1], [-2 * MU * y[0] * y[1] - 1, MU * (1 - y[0] ** 2)]]


def rober(t, y):
    a, b, c = y
    return [-0.04 * a + 1e4 * b * c,
            0.04 * a - 1e4 * b * c - 3e7 * b * b,
            3e7 * b * b]


def rober_jac(t, y):
    a, b, c = y
    return [[-0.04, 1e4 * c, 1e4 * b],
            [0.04, -1e4 * c - 6e7 * b, -1e4 * b],
            [0, 6e7 * b, 0]]


def ball(t, y):
    return [y[1], -9.81]


def hit(t, y):
    return y[0]


hit.terminal = True
hit.direction = -1


def cross(t, y):
    return y[0]


CASES = [
    # name, f, t0, tf, y0, method, rtol, atol, jac, t_eval, events
    ("decay-rk45", decay, 0, 10, [2, 4, 8], "RK45", 1e-3, 1e-6, None, None, None),
    ("decay-rk45-tight", decay, 0, 10, [2, 4, 8], "RK45", 1e-10, 1e-12, None, None, None),
    ("decay-radau", decay, 0, 10, [2, 4, 8], "Radau", 1e-6, 1e-9, None, None, None),
    ("decay-backward", decay, 10, 0, [1, 2, 3], "RK45", 1e-6, 1e-9, None, None, None),
    ("osc-rk45-teval", osc, 0, 20 * math.pi, [1, 0], "RK45", 1e-8, 1e-10, None,
     list(np.linspace(0, 20 * math.pi, 41)), None),
    ("vdp1000-radau", vdp, 0, 3000, [2, 0], "Radau", 1e-3, 1e-6, None, None, None),
    ("vdp1000-radau-jac", vdp, 0, 3000, [2, 0], "Radau", 1e-3, 1e-6, vdp_jac, None, None),
    ("vdp1000-bdf", vdp, 0, 3000, [2, 0], "BDF", 1e-3, 1e-6, vdp_jac, None, None),
    ("vdp1000-lsoda", vdp, 0, 3000, [2, 0], "LSODA", 1e-3, 1e-6, vdp_jac, None, None),
    ("rober-radau", rober, 0, 1e5, [1, 0, 0], "Radau", 1e-6, [1e-8, 1e-12, 1e-8], rober_jac, None, None),
    ("rober-radau-fd", rober, 0, 1e5, [1, 0, 0], "Radau", 1e-6, [1e-8, 1e-12, 1e-8], None, None, None),
    ("rober-bdf", rober, 0, 1e5, [1, 0, 0], "BDF", 1e-6, [1e-8, 1e-12, 1e-8], rober_jac, None, None),
    ("ball-terminal", ball, 0, 10, [10, 0], "RK45", 1e-3, 1e-6, None, None, [hit]),
    ("osc-crossings", osc, 0, 10, [1, 0], "RK45", 1e-8, 1e-10, None, None, [cross]),
]

out = {"scipy": scipy.__version__, "cases": []}
for name, f, t0, tf, y0, method, rtol, atol, jac, teval, events in CASES:
    kw = {}
    if jac is not None:
        kw["jac"] = jac
    r = solve_ivp(f, (t0, tf), np.array(y0, float), method=method, rtol=rtol,
                  atol=atol, t_eval=teval, events=events, **kw)
    c = {"name": name, "t0": t0, "tf": tf, "y0": y0, "method": method,
         "rtol": rtol, "atol": atol if isinstance(atol, list) else [atol],
         "jac": jac is not None, "t_eval": teval, "status": int(r.status),
         "nfev": int(r.nfev), "njev": int(r.njev), "nlu": int(r.nlu),
         "steps": len(r.t) - 1 if teval is None else -1,
         "t": [float(x) for x in r.t], "y_last": [float(x) for x in r.y[:, -1]],
         "y_all": [[float(x) for x in col] for col in r.y.T] if teval is not None else None}
    if events:
        c["t_events"] = [[float(x) for x in te] for te in r.t_events]
    out["cases"].append(c)
    print(name, r.status, "steps", c["steps"], "nfev", r.nfev, "njev", r.njev, "nlu", r.nlu)
with open("ode_ref.json", "w") as fh:
    json.dump(out, fh)
