#!/usr/bin/env python3
"""Writes fixtures.json: NumPy's FFTs of fixed pseudo-random inputs, for the
tests of package fft. Run from this directory with NumPy (1.24 used):

    /usr/bin/python3 gen_fixtures.py

Each case holds the input and NumPy's outputs as flat row-major lists of
[re, im] pairs, printed with 17 significant digits (exact float64).
"""
import json

import numpy as np

rng = np.random.default_rng(20261202)


def rand(shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def flat(a):
    a = np.asarray(a, dtype=np.complex128).ravel()
    return [[float(v.real), float(v.imag)] for v in a]


# 1-D transforms along one axis of a block.
local = []
for shape in [(1,), (2,), (7,), (16,), (12,), (97,), (1024,), (3, 5), (4, 6, 5),
              (11, 10, 9), (1, 1), (8, 16), (5, 1, 3)]:
    x = rand(shape)
    for axis in range(len(shape)):
        local.append({
            "shape": list(shape), "axis": axis, "x": flat(x),
            "fft": flat(np.fft.fft(x, axis=axis)),
            "ifft": flat(np.fft.ifft(x, axis=axis)),
        })

# Transforms over every axis (fftn) and over the last two (fft2).
nd = []
for shape in [(9, 10), (2, 3), (1, 7), (7, 1), (11, 13), (5, 6, 7), (3, 4, 2),
              (2, 5, 3), (6, 2, 9)]:
    x = rand(shape)
    nd.append({
        "shape": list(shape), "x": flat(x),
        "fftn": flat(np.fft.fftn(x)), "ifftn": flat(np.fft.ifftn(x)),
        "fft2": flat(np.fft.fft2(x)), "ifft2": flat(np.fft.ifft2(x)),
    })

with open("fixtures.json", "w") as f:
    json.dump({"numpy": np.__version__, "local": local, "nd": nd}, f, separators=(",", ":"))
