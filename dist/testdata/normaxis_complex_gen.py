"""Fixtures of dist.NormAxisComplex (complex_norm_test.go).

Run from this directory: /usr/bin/python3 normaxis_complex_gen.py (NumPy
1.24). It writes normaxis_complex.json: for each shape, complex64 and
complex128 and each axis, numpy.linalg.norm(x, axis=axis) flattened, where
x is the array whose element of flat index i is

    (i % 5 - 2.25 + i / 8) + 1j * ((i * 7) % 11 / 4 - 1.3)

rounded to the type, except in the shapes named "special", where flat
index 4 is inf - 2j and flat index 9 is nan + 1j. Norms are floats or the
strings "nan", "inf".
"""
import json

import numpy as np


def enc(v):
    out = []
    for z in np.asarray(v, dtype=np.float64).ravel():
        z = float(z)
        out.append("nan" if np.isnan(z) else ("inf" if np.isinf(z) else z))
    return out


def elems(n, special):
    i = np.arange(n)
    x = (i % 5 - 2.25 + i / 8) + 1j * ((i * 7) % 11 / 4 - 1.3)
    if special:
        x[4] = complex(np.inf, -2)
        x[9] = complex(np.nan, 1)
    return x


cases = []
for shape, special in (((7,), False), ((1,), False), ((0,), False), ((5, 3), False), ((2, 9), False),
                       ((4, 0), False), ((0, 3), False), ((3, 4, 5), False), ((4, 3), True), ((2, 3, 2), True)):
    n = int(np.prod(shape))
    for name, dt in (("complex64", np.complex64), ("complex128", np.complex128)):
        x = elems(n, special).astype(dt).reshape(shape)
        for axis in range(len(shape)):
            cases.append({"shape": list(shape), "special": special, "dtype": name, "axis": axis,
                          "norm": enc(np.linalg.norm(x, axis=axis))})

with open("normaxis_complex.json", "w") as f:
    json.dump(cases, f, indent=0)
    f.write("\n")
