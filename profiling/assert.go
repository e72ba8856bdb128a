package profiling

import (
	"fmt"
	"strings"
)

// AssertOption changes what AssertNoTransfers checks.
type AssertOption struct {
	includeSyncs bool
}

// IncludeSyncs makes AssertNoTransfers fail on synchronizations too.
func IncludeSyncs() AssertOption { return AssertOption{includeSyncs: true} }

// maxListed is how many events a TransferError keeps; the rest are only
// counted.
const maxListed = 1000

// TransferError is the error of AssertNoTransfers: the events that happened
// where none were expected.
type TransferError struct {
	// Events are the offending events, in the order they were recorded
	// (at most the first 1000).
	Events []Event
	// Omitted is the number of further offending events, not kept.
	Omitted int
}

// Error lists the events, one per line, after a line that counts them:
//
//	profiling: 2 transfer events where none were expected:
//	  to_host 4096 bytes blocking at dist/foo_test.go:12 (backend.ToHost of 512 float64)
//	  to_device 4096 bytes at dist/foo_test.go:14 (backend.ToDevice of 512 float64)
func (e *TransferError) Error() string {
	var sb strings.Builder
	n := len(e.Events) + e.Omitted
	fmt.Fprintf(&sb, "profiling: %s where none were expected:", plural(n, "transfer event"))
	for _, ev := range e.Events {
		sb.WriteString("\n  ")
		sb.WriteString(ev.String())
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&sb, "\n  ... and %d more", e.Omitted)
	}
	return sb.String()
}

type assertScope struct {
	includeSyncs bool
	events       []Event
	omitted      int
}

func (s *assertScope) add(e *Event) {
	if e.Kind == DeviceCopy || (e.Kind == Sync && !s.includeSyncs) {
		return
	}
	if len(s.events) < maxListed {
		s.events = append(s.events, *e)
	} else {
		s.omitted++
	}
}

// AssertNoTransfers runs f and checks that it recorded no transfer events:
// none of kind ToHost, ToDevice, KernelConversion or Fallback, from any
// goroutine, while f ran. Device-to-device copies never count; syncs count
// only with IncludeSyncs.
//
// If f returns an error, AssertNoTransfers returns that error unchanged,
// whatever f recorded; if f panics (or calls runtime.Goexit), the panic goes
// on unchanged. Otherwise it returns nil, or a *TransferError that lists
// every offending event.
func AssertNoTransfers(f func() error, opts ...AssertOption) error {
	s := &assertScope{}
	for _, o := range opts {
		s.includeSyncs = s.includeSyncs || o.includeSyncs
	}
	mu.Lock()
	addSink(s)
	mu.Unlock()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			mu.Lock()
			removeSink(s)
			mu.Unlock()
		}
	}
	defer stop()
	if err := f(); err != nil {
		return err
	}
	stop()
	if len(s.events) == 0 && s.omitted == 0 {
		return nil
	}
	return &TransferError{Events: s.events, Omitted: s.omitted}
}
