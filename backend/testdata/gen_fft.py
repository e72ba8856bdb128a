"""Writes fft.bin: NumPy's FFT and inverse FFT of one line per length, the
fixtures of the backend.FFTer tests (backend/cpu, backend/cuda).

The input of length n is x[j] = complex((j*37 % 101)/101 - 0.5,
(j*53 % 97)/97 - 0.5), which Go computes to the same bits. The file is,
for each length in LENGTHS, little-endian: n as an int64, then numpy.fft.fft(x)
and numpy.fft.ifft(x), n complex128 values each (real, imaginary).

Run from this folder: /usr/bin/python3 gen_fft.py
"""
import numpy as np

# Stockham lengths (2, 3, 4, 5 factors), Bluestein lengths (7, 97, 4099 a
# large prime), and 1.
LENGTHS = [1, 2, 3, 5, 7, 8, 12, 60, 97, 128, 2048, 4099]

with open("fft.bin", "wb") as f:
    for n in LENGTHS:
        j = np.arange(n)
        x = ((j * 37 % 101) / 101 - 0.5) + 1j * ((j * 53 % 97) / 97 - 0.5)
        f.write(np.int64(n).tobytes())
        f.write(np.fft.fft(x).astype("<c16").tobytes())
        f.write(np.fft.ifft(x).astype("<c16").tobytes())
print("numpy", np.__version__)
