package launch

import (
	"os"
	"strings"

	"github.com/xpmpi/xpmpi/internal/envvar"
)

// parseOverride parses a value of XPMPI_MPI: 1, true, yes (started by a
// launcher) or 0, false, no (not).
func parseOverride(s string) (launched, set bool, err error) {
	return envvar.Bool("XPMPI_MPI", s, "started by an MPI launcher")
}

// OverrideFromEnv returns what XPMPI_MPI says (set is false where it is
// unset or empty), and an error naming the variable for a value that is
// neither 1 nor 0, which Detect ignores (the CLI refuses to start on it).
func OverrideFromEnv() (launched, set bool, err error) {
	return parseOverride(strings.TrimSpace(os.Getenv("XPMPI_MPI")))
}
