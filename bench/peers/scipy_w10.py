#!/usr/bin/python3
"""W10 (batched Newton and batched RK45) the way a SciPy user would write them, for docs/PERFORMANCE.md.

Newton: Kepler's equation E - e sin E = M for n orbits (the bench's M and e),
with scipy.optimize.newton per orbit (a Python loop) and with one call on
the whole array (SciPy's array newton). RK45: Van der Pol oscillators
(mu = 0.5 + (s % 100)/100, y(0) = (2, 0), t in [0, 10], rtol 1e-6,
atol 1e-9) with scipy.integrate.solve_ivp(method="RK45") per system. The
per-element loops run on a part of the problem and are scaled to the full
size (they are linear in it); the array call runs the full size.

Usage: /usr/bin/python3 bench/peers/scipy_w10.py [n_kepler] [n_ode]
"""
import math
import sys
import time

import numpy as np
import scipy
from scipy.integrate import solve_ivp
from scipy.optimize import newton


def kepler(n):
    g = np.arange(n)
    m = 2 * np.pi * (g % 1009) / 1009
    e = 0.8 * ((g * 7919) % 1000) / 1000
    return m, e


def w8(n, part):
    m, e = kepler(n)
    t = time.perf_counter()
    for i in range(part):
        mi, ei = m[i], e[i]
        newton(lambda x: x - ei * math.sin(x) - mi, mi, fprime=lambda x: 1 - ei * math.cos(x))
    loop = (time.perf_counter() - t) * n / part
    t = time.perf_counter()
    root = newton(lambda x: x - e * np.sin(x) - m, m, fprime=lambda x: 1 - e * np.cos(x))
    array = time.perf_counter() - t
    return loop, array, float(np.sum(root))


def w9(n, part):
    t = time.perf_counter()
    total = 0.0
    for s in range(part):
        mu = 0.5 + (s % 100) / 100
        r = solve_ivp(lambda t, y: [y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]], (0, 10), [2, 0],
                      method="RK45", rtol=1e-6, atol=1e-9)
        total += r.y[0, -1] + r.y[1, -1]
    return (time.perf_counter() - t) * n / part, total


def main():
    nk = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    no = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    print(f"SciPy {scipy.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    loop, array, s = w8(nk, min(nk, 20000))
    print(f"W10 Newton: {nk} Kepler equations: newton per orbit {loop:.3f} s (scaled from 20000), "
          f"array newton {array:.3f} s, sum of roots {s:.12g}")
    ode, total = w9(no, min(no, 500))
    print(f"W10 RK45: {no} Van der Pol systems: solve_ivp RK45 per system {ode:.3f} s (scaled from 500)")


if __name__ == "__main__":
    main()
