#!/usr/bin/env python3
"""Writes rfft_fixtures.json: NumPy's real FFTs (rfft, irfft, rfft2, irfft2,
rfftn, irfftn), fftfreq, rfftfreq, fftshift and ifftshift of fixed
pseudo-random inputs, for the tests of package fft's real transforms. Run
from this directory with NumPy (1.24 used):

    /usr/bin/python3 gen_rfft_fixtures.py

Real arrays are flat row-major lists of floats, complex ones lists of
[re, im] pairs, printed with 17 significant digits (exact float64).
"""
import json

import numpy as np

rng = np.random.default_rng(20261205)


def real(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).ravel()]


def cplx(a):
    a = np.asarray(a, dtype=np.complex128).ravel()
    return [[float(v.real), float(v.imag)] for v in a]


def crand(shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# 1-D transforms along one axis.
axis_cases = []
for shape, axis in [((1,), 0), ((2,), 0), ((7,), 0), ((8,), 0), ((12,), 0), ((97,), 0),
                    ((1024,), 0), ((3, 5), 1), ((3, 5), 0), ((4, 6, 5), 1), ((4, 6, 5), 2),
                    ((5, 2, 3), 0), ((11, 10, 9), -1), ((2, 1), 1), ((6, 7), -2)]:
    x = rng.standard_normal(shape)
    m = shape[axis]
    yshape = list(shape)
    yshape[axis] = m // 2 + 1
    y = crand(yshape)
    k = yshape[axis]
    inv = []
    for n in sorted({2 * (k - 1), 2 * k - 1, max(1, k - 1), 2 * k + 2, 1}):
        if n < 1:
            continue
        inv.append({"n": n, "irfft": real(np.fft.irfft(y, n, axis=axis))})
    default = None
    if k >= 2:
        default = real(np.fft.irfft(y, axis=axis))
    axis_cases.append({"shape": list(shape), "axis": axis, "x": real(x),
                       "rfft": cplx(np.fft.rfft(x, axis=axis)),
                       "y": cplx(y), "irfft_default": default, "irfft": inv})

# N-D transforms.
nd_cases = []
for shape, axes in [((4, 6), None), ((5, 7), None), ((3, 4, 5), None), ((6, 5, 4), None),
                    ((2, 3, 8), [0, 2]), ((3, 4, 5), [2, 0]), ((4, 3, 6), [1]), ((7, 6), [-1, -2]),
                    ((9,), None), ((1, 2), None), ((2, 3, 1), None)]:
    x = rng.standard_normal(shape)
    ax = list(range(len(shape))) if axes is None else axes
    r = ax[-1]
    yshape = list(shape)
    yshape[r] = shape[r] // 2 + 1
    y = crand(yshape)
    inv = []
    k = yshape[r]
    for n in sorted({2 * (k - 1), 2 * k - 1}):
        if n < 1:
            continue
        s = [yshape[a] for a in ax]
        s[-1] = n
        inv.append({"n": n, "irfftn": real(np.fft.irfftn(y, s=s, axes=ax))})
    c = {"shape": list(shape), "axes": axes, "x": real(x),
         "rfftn": cplx(np.fft.rfftn(x, axes=ax)), "y": cplx(y), "irfftn": inv}
    if len(shape) >= 2:
        c["rfft2"] = cplx(np.fft.rfft2(x))
        y2shape = list(shape)
        y2shape[-1] = shape[-1] // 2 + 1
        y2 = crand(y2shape)
        c["y2"] = cplx(y2)
        c["irfft2"] = real(np.fft.irfft2(y2)) if y2shape[-1] >= 2 else None
        c["irfft2_odd"] = real(np.fft.irfft2(y2, s=(y2shape[-2], 2 * y2shape[-1] - 1)))
    nd_cases.append(c)

freq = []
for n in range(1, 10):
    for d in [1.0, 0.1, -2.5, 3e-7]:
        freq.append({"n": n, "d": d, "fftfreq": real(np.fft.fftfreq(n, d)),
                     "rfftfreq": real(np.fft.rfftfreq(n, d))})

shift = []
for shape, axes in [((5,), None), ((6,), None), ((1,), None), ((3, 4), None), ((3, 4), [0]),
                    ((3, 4), [-1]), ((3, 4), [1, 1]), ((5, 7), None), ((2, 5, 3), None),
                    ((2, 5, 3), [0, 2]), ((4, 1, 7), [2, 1]), ((0, 3), None)]:
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    shift.append({"shape": list(shape), "axes": axes,
                  "fftshift": real(np.fft.fftshift(x, axes=axes)),
                  "ifftshift": real(np.fft.ifftshift(x, axes=axes))})

with open("rfft_fixtures.json", "w") as f:
    json.dump({"numpy": np.__version__, "axis": axis_cases, "nd": nd_cases,
               "freq": freq, "shift": shift}, f, separators=(",", ":"))
