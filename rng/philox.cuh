/*
 * philox.cuh: counter-based random numbers of github.com/xpmpi/xpmpi/rng.
 *
 * Philox4x32-10 of Random123 (Salmon et al., SC'11) and the draws built on
 * it. Compiled by nvcc or NVRTC the functions are __host__ __device__;
 * compiled as C99 or C++ they are plain static inline functions. The Go
 * package rng is the reference: xpmpi_philox4x32_10, xpmpi_uniform2,
 * xpmpi_uniform_f32 and xpmpi_intn are bit-identical to it, xpmpi_normal2
 * agrees to within the accuracy of the math library (about 1e-14).
 *
 * A draw encrypts the counter block [counter_lo, counter_hi, stream_lo,
 * stream_hi] with the key [seed_lo, seed_hi]. Give kernels the global
 * element index as the stream so that arrays do not depend on the number of
 * ranks.
 */
#ifndef XPMPI_PHILOX_CUH
#define XPMPI_PHILOX_CUH

#if defined(__CUDACC_RTC__)
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#include <math.h>
#endif

#if defined(__CUDACC__)
#define XPMPI_RNG_FN static __host__ __device__ __forceinline__
#else
#define XPMPI_RNG_FN static inline
#endif

#define XPMPI_PHILOX_M0 0xD2511F53u
#define XPMPI_PHILOX_M1 0xCD9E8D57u
#define XPMPI_PHILOX_W0 0x9E3779B9u
#define XPMPI_PHILOX_W1 0xBB67AE85u

/* High and low 32 bits of the 64-bit product a*b. */
XPMPI_RNG_FN void xpmpi_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

/* High and low 64 bits of the 128-bit product a*b. */
XPMPI_RNG_FN void xpmpi_mulhilo64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#if defined(__CUDA_ARCH__)
    *hi = __umul64hi(a, b);
#else
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
    uint64_t b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
    *lo = a * b;
}

/* Philox4x32 with ten rounds: out = philox4x32(ctr, key) of Random123. */
XPMPI_RNG_FN void xpmpi_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    int r;
    for (r = 0; r < 10; r++) {
        uint32_t hi0, lo0, hi1, lo1;
        if (r > 0) {
            k0 += XPMPI_PHILOX_W0;
            k1 += XPMPI_PHILOX_W1;
        }
        xpmpi_mulhilo32(XPMPI_PHILOX_M0, c0, &hi0, &lo0);
        xpmpi_mulhilo32(XPMPI_PHILOX_M1, c2, &hi1, &lo1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* The two 64-bit words x0 = w1<<32|w0, x1 = w3<<32|w2 of the block for
 * (seed, stream, counter). */
XPMPI_RNG_FN void xpmpi_philox_block(uint64_t seed, uint64_t stream, uint64_t counter,
                                     uint64_t *x0, uint64_t *x1)
{
    uint32_t ctr[4], key[2], w[4];
    ctr[0] = (uint32_t)counter;
    ctr[1] = (uint32_t)(counter >> 32);
    ctr[2] = (uint32_t)stream;
    ctr[3] = (uint32_t)(stream >> 32);
    key[0] = (uint32_t)seed;
    key[1] = (uint32_t)(seed >> 32);
    xpmpi_philox4x32_10(ctr, key, w);
    *x0 = ((uint64_t)w[1] << 32) | w[0];
    *x1 = ((uint64_t)w[3] << 32) | w[2];
}

/* Two uniform deviates in [0, 1): u = (x >> 11) * 2^-53. */
XPMPI_RNG_FN void xpmpi_uniform2(uint64_t seed, uint64_t stream, uint64_t counter,
                                 double *u0, double *u1)
{
    uint64_t x0, x1;
    xpmpi_philox_block(seed, stream, counter, &x0, &x1);
    *u0 = (double)(x0 >> 11) * (1.0 / 9007199254740992.0);
    *u1 = (double)(x1 >> 11) * (1.0 / 9007199254740992.0);
}

/* The float32 uniform of rng.FillUniform: (x0 >> 40) * 2^-24, in [0, 1). */
XPMPI_RNG_FN float xpmpi_uniform_f32(uint64_t seed, uint64_t stream, uint64_t counter)
{
    uint64_t x0, x1;
    xpmpi_philox_block(seed, stream, counter, &x0, &x1);
    return (float)(uint32_t)(x0 >> 40) * (1.0f / 16777216.0f);
}

/* Two standard normal deviates by Box-Muller:
 * r = sqrt(-2 log(1 - u0)), theta = 2 pi u1, z0 = r cos, z1 = r sin. */
XPMPI_RNG_FN void xpmpi_normal2(uint64_t seed, uint64_t stream, uint64_t counter,
                                double *z0, double *z1)
{
    double u0, u1, r, theta;
    xpmpi_uniform2(seed, stream, counter, &u0, &u1);
    r = sqrt(-2.0 * log(1.0 - u0));
    theta = 2.0 * 3.141592653589793 * u1;
    *z0 = r * cos(theta);
    *z1 = r * sin(theta);
}

/* A uniform integer in [0, n), n > 0, by Lemire's multiply-and-reject
 * method on x0 then x1; if both are rejected the block is encrypted again
 * under the same key. Uses exactly one counter. Returns 0 if n == 0. */
XPMPI_RNG_FN uint64_t xpmpi_intn(uint64_t seed, uint64_t stream, uint64_t counter, uint64_t n)
{
    uint64_t x0, x1, hi, lo, thresh;
    if (n == 0) {
        return 0;
    }
    thresh = (0 - n) % n;
    xpmpi_philox_block(seed, stream, counter, &x0, &x1);
    for (;;) {
        uint32_t ctr[4], key[2], w[4];
        xpmpi_mulhilo64(x0, n, &hi, &lo);
        if (lo >= thresh) {
            return hi;
        }
        xpmpi_mulhilo64(x1, n, &hi, &lo);
        if (lo >= thresh) {
            return hi;
        }
        ctr[0] = (uint32_t)x0;
        ctr[1] = (uint32_t)(x0 >> 32);
        ctr[2] = (uint32_t)x1;
        ctr[3] = (uint32_t)(x1 >> 32);
        key[0] = (uint32_t)seed;
        key[1] = (uint32_t)(seed >> 32);
        xpmpi_philox4x32_10(ctr, key, w);
        x0 = ((uint64_t)w[1] << 32) | w[0];
        x1 = ((uint64_t)w[3] << 32) | w[2];
    }
}

#endif /* XPMPI_PHILOX_CUH */
