// Package envvar holds what every check of an XPMPI_ environment variable
// shares: the limits on any value (length, UTF-8), booleans, and how a
// value is quoted in a message (briefly, whatever its length).
package envvar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLen is the longest value any XPMPI_ variable may have, in bytes:
// PATH_MAX, the longest a file name may be, and far more than any number
// or choice needs.
const MaxLen = 4096

// quoteLen is how many bytes of a value a message quotes.
const quoteLen = 64

// Quote returns v quoted for a message (%q), cut to its first 64 bytes
// and its length where it is longer.
func Quote(v string) string {
	if len(v) <= quoteLen {
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%q... (%d bytes)", v[:quoteLen], len(v))
}

// Check returns an error naming the variable where its value is longer
// than MaxLen or is not UTF-8, and nil otherwise.
func Check(name, v string) error {
	switch {
	case len(v) > MaxLen:
		return fmt.Errorf("%s=%s: a value of %d bytes, longer than any the variable takes (%d)", name, Quote(v), len(v), MaxLen)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s=%s: not UTF-8 text", name, Quote(v))
	}
	return nil
}

// Bool parses a boolean variable: 1, true, yes or 0, false, no (any
// case, spaces around ignored), as XPMPI_CUDA_AWARE and XPMPI_MPI always
// took them. set is false for an empty value; any
// other value is an error that names the variable and says what it does
// when on (what).
func Bool(name, v, what string) (on, set bool, err error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return false, false, nil
	case "1", "true", "yes":
		return true, true, nil
	case "0", "false", "no":
		return false, true, nil
	}
	if err := Check(name, v); err != nil {
		return false, false, err
	}
	return false, false, fmt.Errorf("%s=%s: want 1 (%s) or 0", name, Quote(v), what)
}
