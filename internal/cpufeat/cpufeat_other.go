//go:build !amd64 || purego

package cpufeat

// detects: the flags are false whatever the processor.
const detects = false

// AVX2 is false off amd64 and with the purego tag: the Go loops run.
const AVX2 = false

// AVX512 is false off amd64 and with the purego tag.
const AVX512 = false

// AMD is false off amd64 and with the purego tag.
const AMD = false

// vendor is empty where nothing is detected.
func vendor() string { return "" }
