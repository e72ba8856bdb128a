package profiling

import (
	"encoding/json"
	"testing"
)

func TestKindNames(t *testing.T) {
	tests := []struct {
		k    Kind
		name string
	}{
		{ToHost, "to_host"},
		{ToDevice, "to_device"},
		{KernelConversion, "kernel_conversion"},
		{Fallback, "fallback"},
		{DeviceCopy, "device_copy"},
		{Sync, "sync"},
	}
	if len(tests) != len(Kinds()) {
		t.Fatalf("Kinds() = %v, want %d kinds", Kinds(), len(tests))
	}
	for i, tc := range tests {
		if Kinds()[i] != tc.k {
			t.Errorf("Kinds()[%d] = %v, want %v", i, Kinds()[i], tc.k)
		}
		if got := tc.k.String(); got != tc.name {
			t.Errorf("%d.String() = %q, want %q", tc.k, got, tc.name)
		}
		k, err := ParseKind(tc.name)
		if err != nil || k != tc.k {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", tc.name, k, err, tc.k)
		}
		text, err := tc.k.MarshalText()
		if err != nil || string(text) != tc.name {
			t.Errorf("%v.MarshalText() = %q, %v", tc.k, text, err)
		}
	}
	if got := Kind(9).String(); got != "Kind(9)" {
		t.Errorf("Kind(9).String() = %q", got)
	}
	if _, err := Kind(9).MarshalText(); err == nil {
		t.Error("Kind(9).MarshalText: no error")
	}
}

func TestParseKindUnknown(t *testing.T) {
	for _, s := range []string{"", "ToHost", "to-host", "TO_HOST", "host"} {
		_, err := ParseKind(s)
		if err == nil {
			t.Errorf("ParseKind(%q): no error", s)
			continue
		}
		want := `profiling: unknown transfer kind "` + s + `" (known: to_host, to_device, kernel_conversion, fallback, device_copy, sync)`
		if err.Error() != want {
			t.Errorf("ParseKind(%q) error\n got %q\nwant %q", s, err, want)
		}
	}
}

func TestKindJSON(t *testing.T) {
	var v struct{ K []Kind }
	if err := json.Unmarshal([]byte(`{"K": ["sync", "to_device"]}`), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.K) != 2 || v.K[0] != Sync || v.K[1] != ToDevice {
		t.Errorf("got %v", v.K)
	}
	out, err := json.Marshal(v)
	if err != nil || string(out) != `{"K":["sync","to_device"]}` {
		t.Errorf("Marshal = %s, %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"K": ["nope"]}`), &v); err == nil {
		t.Error("unknown kind: no error")
	}
}

func TestEventString(t *testing.T) {
	tests := []struct {
		e    Event
		want string
	}{
		{Event{Kind: ToHost, Desc: "ToHost of Array[float64]", Site: "dist/foo_test.go:12", Bytes: 4096},
			"to_host 4096 bytes at dist/foo_test.go:12 (ToHost of Array[float64])"},
		{Event{Kind: ToDevice, Site: "a/b.go:1", Bytes: 0, Blocking: true, Implicit: true},
			"to_device 0 bytes blocking implicit at a/b.go:1"},
		{Event{Kind: Sync, Desc: "cuda.Synchronize", Site: "x/y.go:3", Bytes: UnknownBytes, Blocking: true},
			"sync blocking at x/y.go:3 (cuda.Synchronize)"},
		{Event{Kind: Sync, Bytes: 0}, "sync"},
		{Event{Kind: Fallback, Bytes: -1, Implicit: true}, "fallback implicit"},
		{Event{Kind: KernelConversion, Bytes: 8, Desc: "d"}, "kernel_conversion 8 bytes (d)"},
		{Event{Kind: DeviceCopy, Bytes: 1 << 40}, "device_copy 1099511627776 bytes"},
	}
	for _, tc := range tests {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("String()\n got %q\nwant %q", got, tc.want)
		}
	}
}
