// Package all registers every backend xpmpi has with package backend: the
// CPU backend and the CUDA backend. A program imports it for its side
// effect, as a database/sql program imports its drivers:
//
//	import _ "github.com/xpmpi/xpmpi/backend/all"
//
// after which XPMPI_BACKEND=cuda and backend.Select("cuda") can choose the
// GPU. A program that never uses a GPU imports backend/cpu alone and builds
// without cgo; the CUDA backend needs cgo (it loads the driver with dlopen
// at run time and links only libc).
package all

import (
	_ "github.com/xpmpi/xpmpi/backend/cpu"  // "cpu"
	_ "github.com/xpmpi/xpmpi/backend/cuda" // "cuda"
)
