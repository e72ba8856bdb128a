//go:build !cgo

package kernels

import (
	"errors"

	"github.com/xpmpi/xpmpi/backend"
)

// errNoCgo says why CUDA is missing from a build without cgo.
var errNoCgo = errors.New("kernels: built without cgo: no CUDA driver or NVRTC (rebuild with CGO_ENABLED=1)")

const maxArgBytes = 64

func compilePTX(src, name string, opts []string) ([]byte, error) { return nil, errNoCgo }

func nvrtcInfo() (version, path string, err error) { return "", "", errNoCgo }

func compileError(err error) (string, int, bool) { return "", 0, false }

type cudaDevice struct{}

func cudaOf(b backend.Backend) (cudaDevice, bool) { return cudaDevice{}, false }

type cudaFunc struct{}

func (d cudaDevice) load(src, file, entry string, opts []string) (cudaFunc, error) {
	return cudaFunc{}, errNoCgo
}

func (d cudaDevice) synchronize() error { return errNoCgo }

func (f cudaFunc) launch(grid, block Dim3, shared int, args []packedArg) error { return errNoCgo }
