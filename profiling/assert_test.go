package profiling

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestAssertNoTransfers(t *testing.T) {
	h := Event{Kind: ToHost, Bytes: 4096, Blocking: true, Site: "dist/foo_test.go:12", Desc: "ToHost of Array[float64]"}
	d := Event{Kind: ToDevice, Bytes: 8, Site: "dist/foo_test.go:14"}
	kc := Event{Kind: KernelConversion, Bytes: -1, Implicit: true, Site: "k/k.go:1"}
	fb := Event{Kind: Fallback, Bytes: 16, Site: "k/k.go:2"}
	dc := Event{Kind: DeviceCopy, Bytes: 64, Site: "k/k.go:3"}
	sy := Event{Kind: Sync, Bytes: -1, Blocking: true, Site: "k/k.go:4", Desc: "Synchronize"}
	tests := []struct {
		name   string
		events []Event
		opts   []AssertOption
		want   string // "" for no error
	}{
		{"nothing", nil, nil, ""},
		{"device copies and syncs pass", []Event{dc, sy, dc}, nil, ""},
		{"one", []Event{h}, nil, "profiling: 1 transfer event where none were expected:\n" +
			"  to_host 4096 bytes blocking at dist/foo_test.go:12 (ToHost of Array[float64])"},
		{"every kind", []Event{h, dc, d, sy, kc, fb}, nil, "profiling: 4 transfer events where none were expected:\n" +
			"  to_host 4096 bytes blocking at dist/foo_test.go:12 (ToHost of Array[float64])\n" +
			"  to_device 8 bytes at dist/foo_test.go:14\n" +
			"  kernel_conversion implicit at k/k.go:1\n" +
			"  fallback 16 bytes at k/k.go:2"},
		{"syncs if asked", []Event{dc, sy}, []AssertOption{IncludeSyncs()}, "profiling: 1 transfer event where none were expected:\n" +
			"  sync blocking at k/k.go:4 (Synchronize)"},
	}
	for _, tc := range tests {
		err := AssertNoTransfers(func() error {
			for _, e := range tc.events {
				Record(e)
			}
			return nil
		}, tc.opts...)
		got := ""
		if err != nil {
			got = err.Error()
			var te *TransferError
			if !errors.As(err, &te) {
				t.Errorf("%s: error %T, want *TransferError", tc.name, err)
			}
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if Active() {
			t.Fatalf("%s: still active", tc.name)
		}
	}
}

func TestAssertNoTransfersMany(t *testing.T) {
	err := AssertNoTransfers(func() error {
		for range maxListed + 5 {
			Record(Event{Kind: ToDevice, Bytes: 1, Site: "a/b.go:1"})
		}
		return nil
	})
	var te *TransferError
	if !errors.As(err, &te) || len(te.Events) != maxListed || te.Omitted != 5 {
		t.Fatalf("err %v", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "profiling: 1005 transfer events where none were expected:\n") ||
		!strings.HasSuffix(msg, "\n  to_device 1 bytes at a/b.go:1\n  ... and 5 more") {
		t.Errorf("message %q...%q", msg[:80], msg[len(msg)-80:])
	}
}

func TestAssertNoTransfersPassesFailures(t *testing.T) {
	myErr := fmt.Errorf("my error")
	err := AssertNoTransfers(func() error {
		Record(Event{Kind: ToHost, Bytes: 1})
		return myErr
	})
	if err != myErr {
		t.Errorf("error %v, want f's error unchanged", err)
	}
	type myPanic struct{ n int }
	func() {
		defer func() {
			if r := recover(); r != (myPanic{7}) {
				t.Errorf("panic %v, want myPanic{7}", r)
			}
		}()
		AssertNoTransfers(func() error {
			Record(Event{Kind: ToHost, Bytes: 1})
			panic(myPanic{7})
		})
	}()
	if Active() {
		t.Error("active after a panic")
	}
	// runtime.Goexit (t.FailNow) passes through too.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		AssertNoTransfers(func() error { runtime.Goexit(); return nil })
		t.Error("AssertNoTransfers returned after Goexit")
	}()
	wg.Wait()
	if Active() {
		t.Error("active after Goexit")
	}
}

func TestAssertNoTransfersNested(t *testing.T) {
	c := Count()
	var inner error
	outer := AssertNoTransfers(func() error {
		inner = AssertNoTransfers(func() error {
			Record(Event{Kind: ToHost, Bytes: 1, Site: "a/a.go:1"})
			return nil
		})
		Record(Event{Kind: ToDevice, Bytes: 2, Site: "a/a.go:2"})
		return nil
	})
	c.Stop()
	if inner == nil || strings.Count(inner.Error(), "\n") != 1 {
		t.Errorf("inner: %v", inner)
	}
	if outer == nil || strings.Count(outer.Error(), "\n") != 2 {
		t.Errorf("outer: %v", outer)
	}
	if c.Total() != 2 {
		t.Errorf("counter saw %d", c.Total())
	}
}

func TestAssertNoTransfersGoroutines(t *testing.T) {
	err := AssertNoTransfers(func() error {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 100 {
					Record(Event{Kind: ToHost, Bytes: 1})
				}
			}()
		}
		wg.Wait()
		return nil
	})
	var te *TransferError
	if !errors.As(err, &te) || len(te.Events) != 400 {
		t.Errorf("err %v", err)
	}
}
