// Package cpufeat reports the vector instructions that this processor and
// its operating system support, checked once at start-up: the one check
// that the AVX2 and AVX-512 kernels of backend/cpu, kernels/fuse and
// internal/repro choose their code by.
package cpufeat
