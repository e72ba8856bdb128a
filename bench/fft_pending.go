//go:build !xpmpi_complex_pending

package bench

import "errors"

// Until dist.Array[complex128] lands (package complex), W8 is registered
// but refuses to run. This file goes when bench/fft.go loses its tag.

const fftID = "W8"

func fftInput(i, j int) complex128 {
	return complex(float64((i*7+j*13)%29)/29-0.5, float64((i*3+j*5)%31)/31-0.5)
}
func fftWeight(k1, k2 int) float64 { return float64((k1+3*k2)%7 + 1) }

func (e *benchEnv) benchFFT() ([]Row, error) {
	return nil, errors.New("bench: W8 needs dist.Array[complex128]")
}
