package kernels

import (
	"errors"
	"fmt"
	"strings"
)

// ptxArchs are the virtual architectures tried, newest first, when PTX is
// compiled without a device (CompileAll, layout checks): the first one the
// loaded NVRTC knows is used.
var ptxArchs = []string{"compute_90", "compute_80", "compute_75", "compute_70", "compute_60", "compute_52"}

// stdOption is the C++ dialect kernels compile with unless their options
// give one: static_assert and alignof need C++11, and NVRTC 11's default
// is older.
const stdOption = "--std=c++17"

// nvrtcInvalidOption is NVRTC_ERROR_INVALID_OPTION: an architecture that
// the library does not know.
const nvrtcInvalidOption = 5

// NoNVRTCError says that NVRTC could not be loaded (not installed, not
// found, or a build without cgo): checks that need it cannot run.
type NoNVRTCError struct{ Err error }

// Error says that NVRTC is missing and why.
func (e *NoNVRTCError) Error() string {
	return fmt.Sprintf("kernels: NVRTC is not available (%v); set XPMPI_NVRTC to libnvrtc.so", e.Err)
}

// Unwrap returns why NVRTC could not be loaded.
func (e *NoNVRTCError) Unwrap() error { return e.Err }

// NVRTC returns the version and file of the NVRTC library that compiles
// kernels, or a *NoNVRTCError.
func NVRTC() (version, path string, err error) {
	version, path, err = nvrtcInfo()
	if err != nil {
		return "", "", &NoNVRTCError{Err: err}
	}
	return version, path, nil
}

// compileAnyArch compiles src to PTX for the newest architecture of
// ptxArchs that NVRTC knows. A failed compilation is returned as NVRTC
// reports it (*cuda.CompileError); NVRTC missing as *NoNVRTCError.
func compileAnyArch(src, name string, opts []string) (ptx []byte, arch string, err error) {
	if _, _, err := NVRTC(); err != nil {
		return nil, "", err
	}
	var first error
	for _, a := range ptxArchs {
		ptx, err := compilePTX(src, name, append([]string{"--gpu-architecture=" + a}, opts...))
		if err == nil {
			return ptx, a, nil
		}
		if _, code, ok := compileError(err); ok && code == nvrtcInvalidOption {
			if first == nil {
				first = err
			}
			continue
		}
		return nil, a, err
	}
	return nil, "", first
}

// layoutError turns NVRTC's log of a failed layout check into an error
// naming the struct and field, or returns nil if the log has no failed
// layout assertion.
func layoutError(log string) error {
	const marker = "xpmpi layout: "
	i := strings.Index(log, marker)
	if i < 0 {
		return nil
	}
	msg := log[i+len(marker):]
	if j := strings.IndexAny(msg, "\"\n"); j >= 0 {
		msg = msg[:j]
	}
	return fmt.Errorf("kernels: %s (NVRTC's layout of the C declaration)", msg)
}

// CheckLayout has NVRTC confirm the struct's layout: it compiles src (a
// source that defines the struct; "" for the generated Decl) followed by
// StaticAsserts. A layout that differs from Go's is an error naming the
// struct and the field; a source that does not compile is NVRTC's error;
// without NVRTC it returns a *NoNVRTCError (CheckSource does the same check
// by C's rules, without a compiler).
func (s *StructType) CheckLayout(src string) error {
	if src == "" {
		src = s.Decl()
	}
	tu := src + "\n" + s.StaticAsserts()
	_, _, err := compileAnyArch(tu, s.name+"_layout.cu", []string{stdOption})
	if err == nil {
		return nil
	}
	if log, _, ok := compileError(err); ok {
		if lerr := layoutError(log); lerr != nil {
			return lerr
		}
	}
	var no *NoNVRTCError
	if errors.As(err, &no) {
		return err
	}
	return fmt.Errorf("kernels: struct %s: checking the layout: %w", s.name, err)
}
