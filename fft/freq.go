package fft

import "fmt"

// FFTFreq returns the sample frequencies of a transform of length n with
// sample spacing d, as numpy.fft.fftfreq(n, d): [0, 1, ..., (n-1)/2,
// -(n/2), ..., -1] / (d n), each the integer times 1/(n d) as NumPy
// computes it (the same float64 values). n < 1 and d = 0 are errors (NumPy
// raises ZeroDivisionError for n = 0 and d = 0, ValueError for n < 0). It
// does not communicate: every rank may call it alone.
func FFTFreq(n int, d float64) ([]float64, error) {
	val, err := freqScale("FFTFreq", n, d)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	pos := (n-1)/2 + 1
	for i := 0; i < pos; i++ {
		out[i] = float64(i) * val
	}
	for i := pos; i < n; i++ {
		out[i] = float64(i-pos-n/2) * val
	}
	return out, nil
}

// RFFTFreq returns the sample frequencies of RFFT's n/2+1 terms for a
// real input of length n with sample spacing d, as
// numpy.fft.rfftfreq(n, d): [0, 1, ..., n/2] / (d n). It refuses n and d
// as FFTFreq does, and does not communicate.
func RFFTFreq(n int, d float64) ([]float64, error) {
	val, err := freqScale("RFFTFreq", n, d)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n/2+1)
	for i := range out {
		out[i] = float64(i) * val
	}
	return out, nil
}

func freqScale(name string, n int, d float64) (float64, error) {
	if n < 1 {
		return 0, fmt.Errorf("fft: %s: length %d: it must be at least 1", name, n)
	}
	if d == 0 {
		return 0, fmt.Errorf("fft: %s: sample spacing 0: it must be nonzero (1/(n d) is the frequency step)", name)
	}
	return 1 / (float64(n) * d), nil
}
