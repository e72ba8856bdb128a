package profiling

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the kind of a transfer event. The zero Kind is ToHost.
type Kind uint8

// The kinds of transfer events. Their names (String) are the ones that
// budgets and configuration files use.
const (
	// ToHost is a copy from device memory to host memory.
	ToHost Kind = iota
	// ToDevice is a copy from host memory to device memory.
	ToDevice
	// KernelConversion is a conversion of a kernel's arguments (a copy
	// made so that a kernel can run on data that lives elsewhere).
	KernelConversion
	// Fallback is a host fallback of a kernel that has no device
	// implementation: its arguments go to the host and its results back.
	Fallback
	// DeviceCopy is a copy from device memory to device memory. It moves
	// nothing across the host/device boundary, so AssertNoTransfers
	// ignores it.
	DeviceCopy
	// Sync is a synchronization with a device (a wait, not a copy). Counter
	// totals do not include syncs, and AssertNoTransfers ignores them
	// unless asked (IncludeSyncs).
	Sync

	numKinds = iota
)

var kindNames = [numKinds]string{
	ToHost:           "to_host",
	ToDevice:         "to_device",
	KernelConversion: "kernel_conversion",
	Fallback:         "fallback",
	DeviceCopy:       "device_copy",
	Sync:             "sync",
}

// Kinds returns every kind, in order.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// String returns the kind's name: to_host, to_device, kernel_conversion,
// fallback, device_copy or sync; Kind(n) for an invalid kind.
func (k Kind) String() string {
	if k.valid() {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

func (k Kind) valid() bool { return k < numKinds }

// ParseKind returns the kind named s (one of the names String returns).
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if s == name {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("profiling: unknown transfer kind %q (known: %s)", s, strings.Join(kindNames[:], ", "))
}

// MarshalText returns the kind's name, so that a Kind reads and writes as its
// name in JSON and other text formats.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.valid() {
		return nil, fmt.Errorf("profiling: invalid transfer kind %d", int(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText sets k to the kind named by text; see ParseKind.
func (k *Kind) UnmarshalText(text []byte) error {
	v, err := ParseKind(string(text))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Event is one transfer event: a copy between host and device, a kernel
// argument conversion, a host fallback, a device-to-device copy, or a
// synchronization.
type Event struct {
	// Kind is what happened.
	Kind Kind
	// Desc describes it for people, e.g. "backend.ToHost of 512 float64".
	Desc string
	// Site is the call site outside the library, as "dir/file.go:line".
	// Record fills it in when it is empty; see Record for how it is found.
	Site string
	// Bytes is the number of bytes moved, or -1 (UnknownBytes) if unknown.
	// Syncs move nothing: give them -1 (UnknownBytes).
	Bytes int64
	// Blocking is true if the caller waited for the operation to finish.
	Blocking bool
	// Implicit is true if the operation was not asked for by name (a
	// conversion the library made on the caller's behalf).
	Implicit bool
}

// UnknownBytes is the value of Event.Bytes when the size is not known.
const UnknownBytes = -1

// String describes the event on one line, in the form
//
//	{kind}[ {bytes} bytes][ blocking][ implicit][ at {site}][ ({desc})]
//
// for example
//
//	to_host 4096 bytes blocking at dist/foo_test.go:12 (backend.ToHost of 512 float64)
//
// The size is left out when it is unknown (Bytes < 0) and for syncs, the
// site when it is empty, the description when it is empty. Budget violations and
// AssertNoTransfers quote events in this form.
func (e Event) String() string {
	var sb strings.Builder
	sb.WriteString(e.Kind.String())
	if e.Bytes >= 0 && e.Kind != Sync {
		sb.WriteByte(' ')
		sb.WriteString(strconv.FormatInt(e.Bytes, 10))
		sb.WriteString(" bytes")
	}
	if e.Blocking {
		sb.WriteString(" blocking")
	}
	if e.Implicit {
		sb.WriteString(" implicit")
	}
	if e.Site != "" {
		sb.WriteString(" at ")
		sb.WriteString(e.Site)
	}
	if e.Desc != "" {
		sb.WriteString(" (")
		sb.WriteString(e.Desc)
		sb.WriteByte(')')
	}
	return sb.String()
}
