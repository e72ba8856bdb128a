#!/usr/bin/python3
"""Writes slice_fixtures.json: NumPy's answers for dist's slicing tests.

Run from this directory with NumPy installed (1.24 was used):

    /usr/bin/python3 slice_fixtures.py

"indices" holds Python's slice(start, stop, step).indices(n) for a grid of
bounds (None is written as null); "cases" holds, for arrays
np.arange(prod(shape)).reshape(shape), the shape and flat values of
a[slices], of a.reshape(new), of a.T, of np.concatenate and of
broadcast sums, which the Go tests compare with dist's results.
"""
import json
import numpy as np

bounds = [None, -7, -6, -3, -1, 0, 1, 2, 4, 6, 7]
indices = []
for n in range(0, 6):
    for step in [None, -3, -2, -1, 1, 2, 3]:
        for start in bounds:
            for stop in bounds:
                indices.append([n, start, stop, step, list(slice(start, stop, step).indices(n))])


def sl(r):
    return slice(*r)


cases = []
for shape, ranges in [
    ([7], [[None, None, -1]]),
    ([7], [[-2, 1, -2]]),
    ([7], [[1, 100, 3]]),
    ([7], [[5, 2, None]]),
    ([5, 3], [[None, None, 2], [None, None, -1]]),
    ([5, 3], [[-4, -1, None], [1, None, None]]),
    ([5, 3], [[4, None, -3]]),
    ([3, 4, 5], [[None, None, -1], [1, 3, None], [None, None, 2]]),
    ([3, 4, 5], [[1, 2, None], [-1, -5, -2], [4, 0, -3]]),
    ([2, 5, 3], [[None, None, None], [3, None, None], [0, 0, None]]),
]:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    s = a[tuple(sl(r) for r in ranges)]
    cases.append({"op": "slice", "shape": shape, "ranges": ranges,
                  "out_shape": list(s.shape), "values": s.ravel().tolist()})

for shape, new in [([6, 4], [3, 8]), ([6, 4], [8, -1]), ([2, 3, 4], [4, 6]), ([5, 3], [15]), ([7], [7, 1])]:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    r = a.reshape(new)
    cases.append({"op": "reshape", "shape": shape, "new": new, "out_shape": list(r.shape), "values": r.ravel().tolist()})

for shape in [[5, 3], [1, 4], [4, 1]]:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    cases.append({"op": "transpose", "shape": shape, "out_shape": list(a.T.shape), "values": a.T.ravel().tolist()})

for shapes, axis in [([[2, 3], [4, 3]], 0), ([[3, 2], [3, 1], [3, 4]], 1), ([[2, 2, 3], [2, 1, 3]], 1)]:
    arrs, off = [], 0
    for s in shapes:
        n = int(np.prod(s))
        arrs.append(np.arange(off, off + n, dtype=np.float64).reshape(s))
        off += n
    c = np.concatenate(arrs, axis=axis)
    cases.append({"op": "concatenate", "shapes": shapes, "axis": axis, "out_shape": list(c.shape), "values": c.ravel().tolist()})

for shape, bshape in [([5, 3], [3]), ([5, 3], [5, 1]), ([5, 3], [1]), ([2, 3, 4], [3, 1]), ([2, 3, 4], [2, 1, 4])]:
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    b = 100 * (np.arange(int(np.prod(bshape)), dtype=np.float64) + 1).reshape(bshape)
    cases.append({"op": "broadcast", "shape": shape, "bshape": bshape, "out_shape": list((a - b).shape),
                  "values": (a - b).ravel().tolist(), "reversed": (b - a).ravel().tolist()})

with open("slice_fixtures.json", "w") as f:
    json.dump({"numpy": np.__version__, "indices": indices, "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
