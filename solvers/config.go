package solvers

import (
	"fmt"
	"strings"
)

// ConfigError is a solver's refusal of a Config, the same on every rank:
// which field is at fault, its value and what is wrong with it. Its text
// names the field as the Config does,
//
//	heat: N 0: want at least 1
//	heat: Every 5 without Checkpoint: say where to save
//
// and Message gives the same text with other names for the fields, such as
// a command's flags.
type ConfigError struct {
	Solver  string // the solver's package name: "heat" or "cg"
	Field   string // the Config field at fault, such as "N"
	Value   any    // its value
	Ranks   int    // the rank count at which the value fails, or 0 where it fails at any
	Without string // a Config field that Field needs set and that is not, or ""
	Reason  string // what is wrong, such as "want at least 1"
	Err     error  // the error this one wraps (dist.ErrTooLarge, a *dist.MemoryError, ...), or nil
}

// Error returns the message with the solver's name first and the Config's
// own field names.
func (e *ConfigError) Error() string { return e.Message(e.Solver, nil) }

// Unwrap returns the error e wraps, so that errors.Is(err, dist.ErrTooLarge)
// holds for a grid too large to allocate.
func (e *ConfigError) Unwrap() error { return e.Err }

// Message returns the error's text with prefix first (the solver's name,
// or a command's) and every field named by name(field): a command-line
// front passes a function that maps "N" to "--n". A nil name, or one that
// returns "", keeps the field's own name.
func (e *ConfigError) Message(prefix string, name func(field string) string) string {
	rename := func(f string) string {
		if name != nil {
			if s := name(f); s != "" {
				return s
			}
		}
		return f
	}
	var b strings.Builder
	if prefix != "" {
		b.WriteString(prefix)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s %v", rename(e.Field), e.Value)
	if e.Ranks > 0 {
		fmt.Fprintf(&b, " on %d ranks", e.Ranks)
	}
	if e.Without != "" {
		fmt.Fprintf(&b, " without %s", rename(e.Without))
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	return b.String()
}
