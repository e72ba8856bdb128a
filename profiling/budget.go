package profiling

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The names of the limits of a Rule.
const (
	// LimitMaxNBytes limits the size of each event. An event of unknown
	// size breaks it.
	LimitMaxNBytes = "max_nbytes"
	// LimitMaxCount limits the number of events of the kind, over every
	// call of the phase.
	LimitMaxCount = "max_count"
	// LimitMaxTotalBytes limits the bytes of the events of the kind, over
	// every call of the phase. An event of unknown size breaks it.
	LimitMaxTotalBytes = "max_total_bytes"
	// LimitBlocking says whether blocking events of the kind are allowed:
	// 1 (the default when absent) or 0.
	LimitBlocking = "blocking"
	// LimitImplicit says whether implicit events of the kind are allowed:
	// 1 (the default when absent) or 0.
	LimitImplicit = "implicit"
)

const (
	limMaxNBytes = iota
	limMaxCount
	limMaxTotalBytes
	limBlocking
	limImplicit
	numLimits
)

var limitNames = [numLimits]string{LimitMaxNBytes, LimitMaxCount, LimitMaxTotalBytes, LimitBlocking, LimitImplicit}

func isFlag(i int) bool { return i == limBlocking || i == limImplicit }

// Rule allows one kind of event in a phase of a budget, within limits.
//
// Kind is a kind's name (to_host, ...). Limits maps a limit's name to its
// value: max_nbytes, max_count and max_total_bytes take a number >= 0;
// blocking and implicit take 1 (allowed, as when absent) or 0 (not allowed).
// A rule can come from a configuration file as it is, or from Allow:
//
//	profiling.Rule{Kind: "to_host", Limits: map[string]int64{"max_count": 2}}
//	profiling.Allow(profiling.ToHost, profiling.MaxCount(2))
//
// In JSON a rule is one object, with flags as booleans:
//
//	{"kind": "to_host", "max_count": 2, "blocking": false}
//
// NewBudget checks the rules: an unknown kind or limit is an error.
type Rule struct {
	Kind   string
	Limits map[string]int64
}

// Limit is one limit of a Rule; see Allow.
type Limit struct {
	Name  string
	Value int64
}

// MaxNBytes limits the size of each event to n bytes; an event of unknown
// size breaks it.
func MaxNBytes(n int64) Limit { return Limit{LimitMaxNBytes, n} }

// MaxCount limits the number of events to n, over every call of the phase.
func MaxCount(n int64) Limit { return Limit{LimitMaxCount, n} }

// MaxTotalBytes limits the bytes of the events to n, over every call of the
// phase; an event of unknown size breaks it.
func MaxTotalBytes(n int64) Limit { return Limit{LimitMaxTotalBytes, n} }

// Blocking says whether blocking events are allowed (they are by default).
func Blocking(allowed bool) Limit { return Limit{LimitBlocking, flagValue(allowed)} }

// Implicit says whether implicit events are allowed (they are by default).
func Implicit(allowed bool) Limit { return Limit{LimitImplicit, flagValue(allowed)} }

func flagValue(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Allow returns a rule that allows events of kind k within the limits.
func Allow(k Kind, limits ...Limit) Rule {
	r := Rule{Kind: k.String(), Limits: map[string]int64{}}
	for _, l := range limits {
		r.Limits[l.Name] = l.Value
	}
	return r
}

// MarshalJSON writes the rule as one object: {"kind": ..., limits...}, with
// the flags as booleans.
func (r Rule) MarshalJSON() ([]byte, error) {
	m := map[string]any{"kind": r.Kind}
	for name, v := range r.Limits {
		m[name] = v
		for i, ln := range limitNames {
			if ln == name && isFlag(i) && (v == 0 || v == 1) {
				m[name] = v == 1
			}
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads a rule written as one object: "kind" names the kind,
// the other members are limits, the flags as booleans (or 0 and 1).
func (r *Rule) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("profiling: rule: %w", err)
	}
	rule := Rule{Limits: map[string]int64{}}
	kind, ok := m["kind"]
	if !ok {
		return errors.New(`profiling: rule without "kind"`)
	}
	if err := json.Unmarshal(kind, &rule.Kind); err != nil {
		return fmt.Errorf("profiling: rule: kind: %w", err)
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names) // report the same error every time
	for _, name := range names {
		raw := m[name]
		if name == "kind" {
			continue
		}
		var b bool
		if err := json.Unmarshal(raw, &b); err == nil {
			rule.Limits[name] = flagValue(b)
			continue
		}
		var n json.Number
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] == '"' || json.Unmarshal(t, &n) != nil {
			return fmt.Errorf("profiling: rule for %s: limit %q: want a number or a boolean, got %s", rule.Kind, name, raw)
		}
		v, err := n.Int64()
		if err != nil {
			return fmt.Errorf("profiling: rule for %s: limit %q: want an integer, got %s", rule.Kind, name, raw)
		}
		rule.Limits[name] = v
	}
	*r = rule
	return nil
}

// Phase declares a phase of a budget: its name, the number of times it is
// expected to be entered, and the kinds of event it allows.
//
// A phase allows only the kinds it has a rule for, syncs and device copies
// included: an event of any other kind recorded in the phase is a violation.
type Phase struct {
	// Name names the phase in violations. Names are unique in a budget.
	Name string `json:"name"`
	// Calls is the number of times the phase is expected to be entered
	// during the budget; 0 leaves it unchecked.
	Calls int `json:"calls,omitempty"`
	// Allow holds one rule per allowed kind.
	Allow []Rule `json:"allow,omitempty"`
}

// maxViolations is how many per-event violations a phase keeps.
const maxViolations = 100

type rule struct {
	set [numLimits]bool
	val [numLimits]int64
}

type phaseState struct {
	name    string
	calls   int
	rules   [numKinds]*rule
	entered int
	count   [numKinds]int64
	bytes   [numKinds]int64
	unsized [numKinds]int64
	// violations holds the per-event violations, in the order of events.
	violations []string
	omitted    int
}

// Budget is a transfer budget: named phases, each with the kinds of event
// it allows and their limits, and the number of times it should run.
//
// Enter a phase around the code it covers; phases nest, and each event goes
// to the innermost open phase only (events recorded while no phase of the
// budget is open are not the budget's concern). The open phases form one
// stack per budget, shared by every goroutine: enter and end phases on one
// goroutine, and events from any goroutine go to the innermost phase open at
// the time. Several budgets can be active at once; each sees every event.
//
// Check, at the end, returns every violation. A budget is safe for
// concurrent use.
type Budget struct {
	phases []*phaseState
	byName map[string]*phaseState
	open   []*openPhase
}

type openPhase struct {
	p     *phaseState
	ended bool
}

// NewBudget returns a budget with the phases. It is an error if a phase has
// no name, a name used twice, negative Calls, two rules for one kind, an
// unknown kind, an unknown limit, a negative limit, or a flag other than 0
// or 1.
func NewBudget(phases ...Phase) (*Budget, error) {
	b := &Budget{byName: map[string]*phaseState{}}
	for _, ph := range phases {
		if ph.Name == "" {
			return nil, errors.New("profiling: a budget phase without a name")
		}
		if b.byName[ph.Name] != nil {
			return nil, fmt.Errorf("profiling: budget phase %q declared twice", ph.Name)
		}
		if ph.Calls < 0 {
			return nil, fmt.Errorf("profiling: phase %q: calls=%d, want >= 0 (0 leaves it unchecked)", ph.Name, ph.Calls)
		}
		p := &phaseState{name: ph.Name, calls: ph.Calls}
		for _, r := range ph.Allow {
			k, err := ParseKind(r.Kind)
			if err != nil {
				return nil, fmt.Errorf("profiling: phase %q: unknown transfer kind %q (known: %s)", ph.Name, r.Kind, strings.Join(kindNames[:], ", "))
			}
			if p.rules[k] != nil {
				return nil, fmt.Errorf("profiling: phase %q: two rules for %v", ph.Name, k)
			}
			cr, err := compileRule(r)
			if err != nil {
				return nil, fmt.Errorf("profiling: phase %q: %v: %w", ph.Name, k, err)
			}
			p.rules[k] = cr
		}
		b.phases = append(b.phases, p)
		b.byName[ph.Name] = p
	}
	return b, nil
}

func compileRule(r Rule) (*rule, error) {
	cr := &rule{}
	names := make([]string, 0, len(r.Limits))
	for name := range r.Limits {
		names = append(names, name)
	}
	sort.Strings(names) // report the same error every time
	for _, name := range names {
		v := r.Limits[name]
		i := -1
		for j, ln := range limitNames {
			if ln == name {
				i = j
			}
		}
		switch {
		case i < 0:
			return nil, fmt.Errorf("unknown limit %q (known: %s)", name, strings.Join(limitNames[:], ", "))
		case isFlag(i) && v != 0 && v != 1:
			return nil, fmt.Errorf("%s=%d, want 0 or 1 (whether allowed)", name, v)
		case v < 0:
			return nil, fmt.Errorf("%s=%d, want >= 0", name, v)
		}
		cr.set[i] = true
		cr.val[i] = v
	}
	return cr, nil
}

// ParseBudget returns the budget that a JSON array of phases describes:
//
//	[{"name": "step", "calls": 10,
//	  "allow": [{"kind": "to_host", "max_count": 10, "max_nbytes": 8, "blocking": false}]}]
//
// Unknown members are errors, and so is whatever NewBudget refuses.
func ParseBudget(data []byte) (*Budget, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var phases []Phase
	if err := d.Decode(&phases); err != nil {
		if strings.HasPrefix(err.Error(), "profiling:") {
			return nil, err
		}
		return nil, fmt.Errorf("profiling: budget: %w", err)
	}
	return NewBudget(phases...)
}

// Enter enters the phase called name and returns the function that ends
// it; the usual form is
//
//	defer b.Enter("step")()
//
// Entering counts as one call of the phase. A phase can be entered inside
// another (or inside itself); the innermost open phase gets the events. The
// end function ends this entry, even if others were entered after it and
// are still open. Enter panics if the budget has no such phase; the end
// function panics if called twice.
func (b *Budget) Enter(name string) (end func()) {
	mu.Lock()
	defer mu.Unlock()
	p := b.byName[name]
	if p == nil {
		panic(fmt.Sprintf("profiling: the budget has no phase %q", name))
	}
	p.entered++
	op := &openPhase{p: p}
	b.open = append(b.open, op)
	if len(b.open) == 1 {
		addSink(b)
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if op.ended {
			panic(fmt.Sprintf("profiling: phase %q ended twice", name))
		}
		op.ended = true
		for i := len(b.open) - 1; i >= 0; i-- {
			if b.open[i] == op {
				b.open = append(b.open[:i], b.open[i+1:]...)
				break
			}
		}
		if len(b.open) == 0 {
			removeSink(b)
		}
	}
}

// Run runs f inside the phase called name; see Enter.
func (b *Budget) Run(name string, f func()) {
	defer b.Enter(name)()
	f()
}

// add gives e to the innermost open phase. The caller holds mu.
func (b *Budget) add(e *Event) {
	if len(b.open) > 0 {
		b.open[len(b.open)-1].p.add(e)
	}
}

func (p *phaseState) violate(format string, args ...any) {
	if len(p.violations) < maxViolations {
		p.violations = append(p.violations, fmt.Sprintf(format, args...))
	} else {
		p.omitted++
	}
}

func (p *phaseState) add(e *Event) {
	r := p.rules[e.Kind]
	if r == nil {
		p.violate("%s: not allowed: %v", p.name, e)
		return
	}
	p.count[e.Kind]++
	if e.Bytes >= 0 {
		p.bytes[e.Kind] += e.Bytes
	} else {
		p.unsized[e.Kind]++
	}
	if r.set[limMaxNBytes] {
		if e.Bytes < 0 {
			p.violate("%s: unknown bytes > max_nbytes=%d: %v", p.name, r.val[limMaxNBytes], e)
		} else if e.Bytes > r.val[limMaxNBytes] {
			p.violate("%s: %d bytes > max_nbytes=%d: %v", p.name, e.Bytes, r.val[limMaxNBytes], e)
		}
	}
	if r.set[limBlocking] && r.val[limBlocking] == 0 && e.Blocking {
		p.violate("%s: blocking=%v not allowed: %v", p.name, e.Blocking, e)
	}
	if r.set[limImplicit] && r.val[limImplicit] == 0 && e.Implicit {
		p.violate("%s: implicit=%v not allowed: %v", p.name, e.Implicit, e)
	}
}

// Violations returns the violations so far, in this order: phase by phase
// in the order given to NewBudget; within a phase, the number of calls if it
// differs from the expected one
//
//	{phase}: {n} call(s), expected {m}
//
// then the violations of single events, in the order the events were
// recorded (at most 100 per phase, then "{phase}: {k} more violation(s) not
// shown"):
//
//	{phase}: not allowed: {event}
//	{phase}: {nbytes} bytes > max_nbytes={L}: {event}
//	{phase}: {flag}={v} not allowed: {event}
//
// (an event can break max_nbytes, blocking and implicit at once, in that
// order; an event of unknown size reads "unknown bytes > max_nbytes=..."),
// then kind by kind (in the order of Kinds) the totals over every call:
//
//	{phase}: {n} {kind} > max_count={L}
//	{phase}: {total} bytes of {kind} > max_total_bytes={L}
//
// ({total} reads "unknown" if an event of the kind had an unknown size).
// {event} is Event.String, {flag} is blocking or implicit and {v} the
// event's value (true). A phase that is still open is reported as it
// stands.
func (b *Budget) Violations() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for _, p := range b.phases {
		if p.calls > 0 && p.entered != p.calls {
			out = append(out, fmt.Sprintf("%s: %d call(s), expected %d", p.name, p.entered, p.calls))
		}
		out = append(out, p.violations...)
		if p.omitted > 0 {
			out = append(out, fmt.Sprintf("%s: %d more violation(s) not shown", p.name, p.omitted))
		}
		for k := range Kind(numKinds) {
			r := p.rules[k]
			if r == nil {
				continue
			}
			if r.set[limMaxCount] && p.count[k] > r.val[limMaxCount] {
				out = append(out, fmt.Sprintf("%s: %d %v > max_count=%d", p.name, p.count[k], k, r.val[limMaxCount]))
			}
			if r.set[limMaxTotalBytes] {
				if p.unsized[k] > 0 {
					out = append(out, fmt.Sprintf("%s: unknown bytes of %v > max_total_bytes=%d", p.name, k, r.val[limMaxTotalBytes]))
				} else if p.bytes[k] > r.val[limMaxTotalBytes] {
					out = append(out, fmt.Sprintf("%s: %d bytes of %v > max_total_bytes=%d", p.name, p.bytes[k], k, r.val[limMaxTotalBytes]))
				}
			}
		}
	}
	return out
}

// BudgetError is the error of Budget.Check.
type BudgetError struct {
	// Violations are the violations, as Budget.Violations returns them.
	Violations []string
}

// Error returns the violations, one per line.
func (e *BudgetError) Error() string { return strings.Join(e.Violations, "\n") }

// Check returns nil if the budget was kept, and otherwise a *BudgetError
// with every violation (see Violations) whose message is the violations
// joined by newlines. Call it once the phases have ended; it can be called
// at any time and changes nothing.
func (b *Budget) Check() error {
	if v := b.Violations(); len(v) > 0 {
		return &BudgetError{Violations: v}
	}
	return nil
}

// Reset forgets every call, count and violation, keeping the phases and
// whichever are open.
func (b *Budget) Reset() {
	mu.Lock()
	defer mu.Unlock()
	for _, p := range b.phases {
		*p = phaseState{name: p.name, calls: p.calls, rules: p.rules}
	}
}
