package kernels

import (
	"os"

	"github.com/xpmpi/xpmpi/internal/envvar"
)

// StrictFromEnv returns whether XPMPI_KERNELS_STRICT turns strict mode on
// for every kernel (1, true, yes; 0, false, no or unset: off),
// and an error naming the variable for any other value, which leaves it
// off (the CLI refuses to start on it).
func StrictFromEnv() (bool, error) {
	on, _, err := envvar.Bool("XPMPI_KERNELS_STRICT", os.Getenv("XPMPI_KERNELS_STRICT"), "no kernel falls back to its host implementation")
	return on, err
}

// DebugFromEnv returns whether XPMPI_CUDA_DEBUG turns the kernels' debug
// mode on (the values of StrictFromEnv), and an error naming the variable
// for any other value, which leaves it off.
func DebugFromEnv() (bool, error) {
	on, _, err := envvar.Bool("XPMPI_CUDA_DEBUG", os.Getenv("XPMPI_CUDA_DEBUG"), "kernels compile with line info and index checks, and every launch is synchronized")
	return on, err
}
