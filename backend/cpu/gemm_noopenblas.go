//go:build !cgo

package cpu

import "errors"

// Without cgo OpenBLAS cannot be loaded: Gemm uses gonum.

func openblasLoad(path string) (string, error) {
	return "", errors.New("built without cgo (CGO_ENABLED=0)")
}

func openblasThreads(n int) {}

func openblasGemm[T blasType](c, a, b []T, m, n, k, lda, ldb, ldc int, beta T) {
	panic("cpu: OpenBLAS is not loaded")
}
