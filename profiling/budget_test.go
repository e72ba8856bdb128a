package profiling

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestBudgetMessages(t *testing.T) {
	h8 := Event{Kind: ToHost, Bytes: 8, Site: "dist/step.go:10", Desc: "allreduce result"}
	h64 := Event{Kind: ToHost, Bytes: 64, Site: "dist/step.go:11"}
	hUnknown := Event{Kind: ToHost, Bytes: -1, Site: "dist/step.go:12"}
	hBlocking := Event{Kind: ToHost, Bytes: 8, Blocking: true, Site: "dist/step.go:13"}
	hImplicit := Event{Kind: ToHost, Bytes: 8, Implicit: true, Site: "dist/step.go:14"}
	dBoth := Event{Kind: ToDevice, Bytes: 100, Blocking: true, Implicit: true, Site: "dist/step.go:15"}
	sy := Event{Kind: Sync, Bytes: -1, Blocking: true, Site: "dist/step.go:16"}

	type call struct {
		phase  string
		events []Event
	}
	tests := []struct {
		name   string
		phases []Phase
		calls  []call
		want   []string
	}{
		{
			name:   "kept",
			phases: []Phase{{Name: "step", Calls: 2, Allow: []Rule{Allow(ToHost, MaxNBytes(8), MaxCount(2), MaxTotalBytes(16), Blocking(false), Implicit(false))}}},
			calls:  []call{{"step", []Event{h8}}, {"step", []Event{h8}}},
		},
		{
			name:   "calls",
			phases: []Phase{{Name: "step", Calls: 3}},
			calls:  []call{{"step", nil}, {"step", nil}},
			want:   []string{"step: 2 call(s), expected 3"},
		},
		{
			name:   "calls none",
			phases: []Phase{{Name: "setup", Calls: 1}},
			want:   []string{"setup: 0 call(s), expected 1"},
		},
		{
			name:   "calls unchecked",
			phases: []Phase{{Name: "step"}},
			calls:  []call{{"step", nil}, {"step", nil}},
		},
		{
			name:   "not allowed",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToDevice)}}},
			calls:  []call{{"step", []Event{h8, sy}}},
			want: []string{
				"step: not allowed: to_host 8 bytes at dist/step.go:10 (allreduce result)",
				"step: not allowed: sync blocking at dist/step.go:16",
			},
		},
		{
			name:   "max_nbytes",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToHost, MaxNBytes(8))}}},
			calls:  []call{{"step", []Event{h8, h64, hUnknown}}},
			want: []string{
				"step: 64 bytes > max_nbytes=8: to_host 64 bytes at dist/step.go:11",
				"step: unknown bytes > max_nbytes=8: to_host at dist/step.go:12",
			},
		},
		{
			name:   "blocking",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToHost, Blocking(false))}}},
			calls:  []call{{"step", []Event{h8, hBlocking, hImplicit}}},
			want:   []string{"step: blocking=true not allowed: to_host 8 bytes blocking at dist/step.go:13"},
		},
		{
			name:   "implicit",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToHost, Implicit(false))}}},
			calls:  []call{{"step", []Event{h8, hBlocking, hImplicit}}},
			want:   []string{"step: implicit=true not allowed: to_host 8 bytes implicit at dist/step.go:14"},
		},
		{
			name:   "flags allowed explicitly",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToHost, Blocking(true), Implicit(true))}}},
			calls:  []call{{"step", []Event{h8, hBlocking, hImplicit}}},
		},
		{
			name:   "several limits on one event",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToDevice, MaxNBytes(10), Blocking(false), Implicit(false))}}},
			calls:  []call{{"step", []Event{dBoth}}},
			want: []string{
				"step: 100 bytes > max_nbytes=10: to_device 100 bytes blocking implicit at dist/step.go:15",
				"step: blocking=true not allowed: to_device 100 bytes blocking implicit at dist/step.go:15",
				"step: implicit=true not allowed: to_device 100 bytes blocking implicit at dist/step.go:15",
			},
		},
		{
			name:   "max_count over every call",
			phases: []Phase{{Name: "step", Calls: 2, Allow: []Rule{Allow(ToHost, MaxCount(2)), Allow(Sync, MaxCount(0))}}},
			calls:  []call{{"step", []Event{h8, h8}}, {"step", []Event{h8, sy}}},
			want:   []string{"step: 3 to_host > max_count=2", "step: 1 sync > max_count=0"},
		},
		{
			name:   "max_total_bytes",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToHost, MaxTotalBytes(70)), Allow(ToDevice, MaxTotalBytes(1000))}}},
			calls:  []call{{"step", []Event{h8, h64, dBoth}}},
			want:   []string{"step: 72 bytes of to_host > max_total_bytes=70"},
		},
		{
			name:   "max_total_bytes unknown size",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToHost, MaxTotalBytes(1000))}}},
			calls:  []call{{"step", []Event{h8, hUnknown}}},
			want:   []string{"step: unknown bytes of to_host > max_total_bytes=1000"},
		},
		{
			name:   "limits at exactly the limit",
			phases: []Phase{{Name: "step", Allow: []Rule{Allow(ToHost, MaxNBytes(64), MaxCount(2), MaxTotalBytes(72))}}},
			calls:  []call{{"step", []Event{h8, h64}}},
		},
		{
			name: "order: phases as declared, then calls, events, totals by kind",
			phases: []Phase{
				{Name: "b", Calls: 1, Allow: []Rule{Allow(Sync, MaxCount(0)), Allow(ToHost, MaxCount(0), MaxTotalBytes(0), MaxNBytes(0))}},
				{Name: "a", Calls: 5},
			},
			calls: []call{{"a", []Event{sy}}, {"b", []Event{h8, dBoth}}, {"b", nil}},
			want: []string{
				"b: 2 call(s), expected 1",
				"b: 8 bytes > max_nbytes=0: to_host 8 bytes at dist/step.go:10 (allreduce result)",
				"b: not allowed: to_device 100 bytes blocking implicit at dist/step.go:15",
				"b: 1 to_host > max_count=0",
				"b: 8 bytes of to_host > max_total_bytes=0",
				"a: 1 call(s), expected 5",
				"a: not allowed: sync blocking at dist/step.go:16",
			},
		},
	}
	for _, tc := range tests {
		b, err := NewBudget(tc.phases...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, c := range tc.calls {
			b.Run(c.phase, func() {
				for _, e := range c.events {
					Record(e)
				}
			})
		}
		if Active() {
			t.Fatalf("%s: still active", tc.name)
		}
		got := b.Violations()
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: violations\n got:\n%s\nwant:\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
		err = b.Check()
		if len(tc.want) == 0 {
			if err != nil {
				t.Errorf("%s: Check = %v", tc.name, err)
			}
			continue
		}
		var be *BudgetError
		if !errors.As(err, &be) || err.Error() != strings.Join(tc.want, "\n") {
			t.Errorf("%s: Check = %v", tc.name, err)
		}
	}
}

func TestBudgetNesting(t *testing.T) {
	b, err := NewBudget(
		Phase{Name: "outer", Calls: 1, Allow: []Rule{Allow(ToHost, MaxCount(1))}},
		Phase{Name: "inner", Calls: 2, Allow: []Rule{Allow(ToDevice)}},
	)
	if err != nil {
		t.Fatal(err)
	}
	Record(Event{Kind: Sync}) // no phase open: not the budget's concern
	endOuter := b.Enter("outer")
	Record(Event{Kind: ToHost, Bytes: 1, Site: "s/s.go:1"})
	for range 2 {
		b.Run("inner", func() {
			Record(Event{Kind: ToDevice, Bytes: 1, Site: "s/s.go:2"}) // inner only
			Record(Event{Kind: ToHost, Bytes: 1, Site: "s/s.go:3"})   // not allowed in inner
		})
	}
	Record(Event{Kind: ToDevice, Bytes: 1, Site: "s/s.go:4"}) // outer again
	endOuter()
	want := "outer: not allowed: to_device 1 bytes at s/s.go:4\n" +
		"inner: not allowed: to_host 1 bytes at s/s.go:3\n" +
		"inner: not allowed: to_host 1 bytes at s/s.go:3"
	if err := b.Check(); err == nil || err.Error() != want {
		t.Errorf("Check:\n%v\nwant:\n%s", err, want)
	}

	// An end out of order ends its own entry; the other stays innermost.
	b.Reset()
	endOuter = b.Enter("outer")
	endInner := b.Enter("inner")
	endOuter()
	Record(Event{Kind: ToDevice, Bytes: 1, Site: "s/s.go:5"}) // inner: allowed
	endInner()
	Record(Event{Kind: ToDevice, Bytes: 1, Site: "s/s.go:6"}) // no phase
	if got := b.Violations(); strings.Join(got, "\n") != "inner: 1 call(s), expected 2" {
		t.Errorf("after out-of-order end: %q", got)
	}
	if Active() {
		t.Error("still active")
	}
}

func TestBudgetAndCounterBothSee(t *testing.T) {
	b1, _ := NewBudget(Phase{Name: "p1"})
	b2, _ := NewBudget(Phase{Name: "p2", Allow: []Rule{Allow(ToHost)}})
	c := Count()
	end1 := b1.Enter("p1")
	end2 := b2.Enter("p2")
	Record(Event{Kind: ToHost, Bytes: 3, Site: "s/s.go:1"})
	end2()
	end1()
	c.Stop()
	if c.Count(ToHost) != 1 {
		t.Error("counter missed the event")
	}
	if err := b1.Check(); err == nil || err.Error() != "p1: not allowed: to_host 3 bytes at s/s.go:1" {
		t.Errorf("b1: %v", err)
	}
	if err := b2.Check(); err != nil {
		t.Errorf("b2: %v", err)
	}
}

func TestBudgetManyViolations(t *testing.T) {
	b, _ := NewBudget(Phase{Name: "hot"})
	b.Run("hot", func() {
		for range maxViolations + 3 {
			Record(Event{Kind: ToHost, Bytes: 1, Site: "s/s.go:1"})
		}
	})
	v := b.Violations()
	if len(v) != maxViolations+1 || v[len(v)-1] != "hot: 3 more violation(s) not shown" {
		t.Errorf("%d violations, last %q", len(v), v[len(v)-1])
	}
}

func TestBudgetConcurrent(t *testing.T) {
	b, _ := NewBudget(Phase{Name: "step", Allow: []Rule{Allow(ToHost, MaxCount(1000))}})
	b.Run("step", func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 200 {
					Record(Event{Kind: ToHost, Bytes: 1})
				}
			}()
		}
		wg.Wait()
	})
	if err := b.Check(); err == nil || err.Error() != "step: 1600 to_host > max_count=1000" {
		t.Errorf("Check: %v", err)
	}
}

func TestBudgetPanics(t *testing.T) {
	b, _ := NewBudget(Phase{Name: "step"})
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"unknown phase", func() { b.Enter("nope") }, `profiling: the budget has no phase "nope"`},
		{"end twice", func() { end := b.Enter("step"); end(); end() }, `profiling: phase "step" ended twice`},
	}
	for _, tc := range tests {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("%s: panic %v, want %q", tc.name, r, tc.want)
				}
			}()
			tc.f()
		}()
	}
	if Active() {
		t.Error("still active")
	}
}

func TestNewBudgetErrors(t *testing.T) {
	tests := []struct {
		phases []Phase
		want   string
	}{
		{[]Phase{{}}, "profiling: a budget phase without a name"},
		{[]Phase{{Name: "a"}, {Name: "a"}}, `profiling: budget phase "a" declared twice`},
		{[]Phase{{Name: "a", Calls: -1}}, `profiling: phase "a": calls=-1, want >= 0 (0 leaves it unchecked)`},
		{[]Phase{{Name: "a", Allow: []Rule{{Kind: "to_hots"}}}},
			`profiling: phase "a": unknown transfer kind "to_hots" (known: to_host, to_device, kernel_conversion, fallback, device_copy, sync)`},
		{[]Phase{{Name: "a", Allow: []Rule{{Kind: "sync"}, {Kind: "sync"}}}}, `profiling: phase "a": two rules for sync`},
		{[]Phase{{Name: "a", Allow: []Rule{{Kind: "to_host", Limits: map[string]int64{"max_bytes": 1, "max_count": 1}}}}},
			`profiling: phase "a": to_host: unknown limit "max_bytes" (known: max_nbytes, max_count, max_total_bytes, blocking, implicit)`},
		{[]Phase{{Name: "a", Allow: []Rule{{Kind: "to_host", Limits: map[string]int64{"max_count": -1}}}}},
			`profiling: phase "a": to_host: max_count=-1, want >= 0`},
		{[]Phase{{Name: "a", Allow: []Rule{{Kind: "to_host", Limits: map[string]int64{"blocking": 2}}}}},
			`profiling: phase "a": to_host: blocking=2, want 0 or 1 (whether allowed)`},
		{[]Phase{{Name: "a", Allow: []Rule{Allow(Kind(9))}}},
			`profiling: phase "a": unknown transfer kind "Kind(9)" (known: to_host, to_device, kernel_conversion, fallback, device_copy, sync)`},
	}
	for _, tc := range tests {
		b, err := NewBudget(tc.phases...)
		if b != nil || err == nil || err.Error() != tc.want {
			t.Errorf("NewBudget(%v) = %v, %v\nwant error %q", tc.phases, b, err, tc.want)
		}
	}
	// A rule from a configuration, as it is.
	if _, err := NewBudget(Phase{Name: "a", Allow: []Rule{{Kind: "to_host", Limits: map[string]int64{
		"max_nbytes": 8, "max_count": 2, "max_total_bytes": 16, "blocking": 0, "implicit": 1}}}}); err != nil {
		t.Error(err)
	}
}

func TestParseBudget(t *testing.T) {
	b, err := ParseBudget([]byte(`[
		{"name": "step", "calls": 2,
		 "allow": [{"kind": "to_host", "max_count": 2, "max_nbytes": 8, "blocking": false},
		           {"kind": "sync"}]},
		{"name": "io", "allow": [{"kind": "to_host", "implicit": 0}]}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b.Run("step", func() {
			Record(Event{Kind: ToHost, Bytes: 8, Site: "s/s.go:1"})
			Record(Event{Kind: ToHost, Bytes: 9, Blocking: true, Site: "s/s.go:2"})
			Record(Event{Kind: Sync, Site: "s/s.go:3"})
		})
	}
	b.Run("io", func() { Record(Event{Kind: ToHost, Bytes: 9, Implicit: true, Site: "s/s.go:4"}) })
	want := []string{
		"step: 9 bytes > max_nbytes=8: to_host 9 bytes blocking at s/s.go:2",
		"step: blocking=true not allowed: to_host 9 bytes blocking at s/s.go:2",
		"step: 9 bytes > max_nbytes=8: to_host 9 bytes blocking at s/s.go:2",
		"step: blocking=true not allowed: to_host 9 bytes blocking at s/s.go:2",
		"step: 4 to_host > max_count=2",
		"io: implicit=true not allowed: to_host 9 bytes implicit at s/s.go:4",
	}
	if got := b.Violations(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	bad := []struct{ json, want string }{
		{`[{"name": "a", "allow": [{"kind": "to_hots"}]}]`, `profiling: phase "a": unknown transfer kind "to_hots"`},
		{`[{"name": "a", "allow": [{"kind": "to_host", "max_bytes": 3}]}]`, `profiling: phase "a": to_host: unknown limit "max_bytes"`},
		{`[{"name": "a", "allow": [{"kind": "to_host", "max_count": 1.5}]}]`, `limit "max_count": want an integer, got 1.5`},
		{`[{"name": "a", "allow": [{"kind": "to_host", "max_count": "2"}]}]`, `limit "max_count": want a number or a boolean, got "2"`},
		{`[{"name": "a", "allow": [{"max_count": 2}]}]`, `profiling: rule without "kind"`},
		{`[{"name": "a", "phases": 2}]`, `unknown field "phases"`},
		{`{"name": "a"}`, `profiling: budget: `},
	}
	for _, tc := range bad {
		_, err := ParseBudget([]byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "profiling: ") {
			t.Errorf("ParseBudget(%s) = %v, want an error with %q", tc.json, err, tc.want)
		}
	}
}

func TestRuleJSONRoundTrip(t *testing.T) {
	r := Allow(ToHost, MaxCount(2), Blocking(false), Implicit(true), MaxNBytes(8))
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"blocking":false,"implicit":true,"kind":"to_host","max_count":2,"max_nbytes":8}` {
		t.Errorf("Marshal = %s", data)
	}
	var back Rule
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back) != fmt.Sprint(r) {
		t.Errorf("round trip %v, want %v", back, r)
	}
}
