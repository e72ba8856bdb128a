package profiling

import (
	"fmt"
	"sort"
	"strings"
)

// Counter counts the transfer events recorded while it is active, by kind
// and by call site.
//
// Counters nest: every active counter sees every event. Starting a counter
// that is already active only deepens it (it still counts each event once);
// it stops counting when Stop has been called as many times as Start. A
// stopped counter keeps its counts and can be started again. All methods are
// safe for concurrent use, and events recorded by any goroutine are counted.
type Counter struct {
	depth  int
	count  [numKinds]int
	bytes  [numKinds]int64
	unsize [numKinds]int
	groups map[groupKey]*Group
}

type groupKey struct {
	kind Kind
	site string
}

// Group is the events of one kind recorded at one call site.
type Group struct {
	Kind Kind
	Site string
	// Desc is the description of the first event of the group.
	Desc string
	// Count is the number of events.
	Count int
	// Bytes is the sum of the known sizes.
	Bytes int64
	// UnknownSizes is the number of events of unknown size.
	UnknownSizes int
}

// NewCounter returns a counter that is not counting yet; see Start.
func NewCounter() *Counter { return &Counter{groups: map[groupKey]*Group{}} }

// Count returns a new counter that counts from now until Stop:
//
//	c := profiling.Count()
//	step()
//	c.Stop()
//	fmt.Print(c.Report())
func Count() *Counter {
	c := NewCounter()
	c.Start()
	return c
}

// Counting runs f with a new counter active and returns the counter,
// stopped. If f panics, the counter stops and the panic goes on.
func Counting(f func()) *Counter {
	c := Count()
	defer c.Stop()
	f()
	return c
}

// Start makes c count (again), or deepens it if it is counting already.
func (c *Counter) Start() {
	mu.Lock()
	defer mu.Unlock()
	c.depth++
	if c.depth == 1 {
		addSink(c)
	}
}

// Stop undoes one Start; c stops counting when every Start is undone. It
// panics if c is not counting.
func (c *Counter) Stop() {
	mu.Lock()
	defer mu.Unlock()
	if c.depth == 0 {
		panic("profiling: Stop of a counter that is not counting")
	}
	c.depth--
	if c.depth == 0 {
		removeSink(c)
	}
}

// Counting reports whether c is counting.
func (c *Counter) Counting() bool {
	mu.Lock()
	defer mu.Unlock()
	return c.depth > 0
}

// Reset forgets every count; c goes on counting if it was.
func (c *Counter) Reset() {
	mu.Lock()
	defer mu.Unlock()
	c.count = [numKinds]int{}
	c.bytes = [numKinds]int64{}
	c.unsize = [numKinds]int{}
	c.groups = map[groupKey]*Group{}
}

// add counts e. The caller holds mu.
func (c *Counter) add(e *Event) {
	c.count[e.Kind]++
	key := groupKey{e.Kind, e.Site}
	g := c.groups[key]
	if g == nil {
		if c.groups == nil {
			c.groups = map[groupKey]*Group{}
		}
		g = &Group{Kind: e.Kind, Site: e.Site, Desc: e.Desc}
		c.groups[key] = g
	}
	g.Count++
	if e.Bytes >= 0 {
		c.bytes[e.Kind] += e.Bytes
		g.Bytes += e.Bytes
	} else {
		c.unsize[e.Kind]++
		g.UnknownSizes++
	}
}

// Total returns the number of events of every kind but Sync.
func (c *Counter) Total() int {
	mu.Lock()
	defer mu.Unlock()
	n := 0
	for k := range Kind(numKinds) {
		if k != Sync {
			n += c.count[k]
		}
	}
	return n
}

// TotalBytes returns the known bytes of the events of every kind but Sync.
func (c *Counter) TotalBytes() int64 {
	mu.Lock()
	defer mu.Unlock()
	var n int64
	for k := range Kind(numKinds) {
		if k != Sync {
			n += c.bytes[k]
		}
	}
	return n
}

// Count returns the number of events of kind k.
func (c *Counter) Count(k Kind) int {
	mu.Lock()
	defer mu.Unlock()
	if !k.valid() {
		return 0
	}
	return c.count[k]
}

// Bytes returns the sum of the known sizes of the events of kind k.
func (c *Counter) Bytes(k Kind) int64 {
	mu.Lock()
	defer mu.Unlock()
	if !k.valid() {
		return 0
	}
	return c.bytes[k]
}

// UnknownSizes returns the number of events of kind k whose size is unknown.
func (c *Counter) UnknownSizes(k Kind) int {
	mu.Lock()
	defer mu.Unlock()
	if !k.valid() {
		return 0
	}
	return c.unsize[k]
}

// Groups returns the counts by kind and call site, ordered by kind, then by
// count (largest first), then by site.
func (c *Counter) Groups() []Group {
	mu.Lock()
	defer mu.Unlock()
	gs := make([]Group, 0, len(c.groups))
	for _, g := range c.groups {
		gs = append(gs, *g)
	}
	sort.Slice(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Site < b.Site
	})
	return gs
}

// Report describes the counts on several lines: a total, then for each kind
// that occurred its count and bytes, and under it one line per call site,
// in the order of Groups. For example:
//
//	total: 3 events, 12288 bytes; 1 sync
//	to_host: 3 events, 12288 bytes
//	  2 at dist/halo_test.go:40, 8192 bytes (backend.ToHost of 512 float64)
//	  1 at dist/halo_test.go:52, 4096 bytes (backend.ToHost of 512 float64)
//	sync: 1 event
//	  1 at dist/halo_test.go:41 (backend.Synchronize)
//
// The total, like Total, leaves syncs out. With no events it reads
// "total: 0 events".
func (c *Counter) Report() string {
	groups := c.Groups()
	mu.Lock()
	count, bytes, unsize := c.count, c.bytes, c.unsize
	mu.Unlock()

	var sb strings.Builder
	total, totalBytes, totalUnsized := 0, int64(0), 0
	for k := range Kind(numKinds) {
		if k != Sync {
			total += count[k]
			totalBytes += bytes[k]
			totalUnsized += unsize[k]
		}
	}
	fmt.Fprintf(&sb, "total: %s", plural(total, "event"))
	if total > 0 {
		fmt.Fprintf(&sb, ", %s", sizeText(totalBytes, totalUnsized))
	}
	if count[Sync] > 0 {
		fmt.Fprintf(&sb, "; %s", plural(count[Sync], "sync"))
	}
	sb.WriteByte('\n')
	i := 0
	for k := range Kind(numKinds) {
		if count[k] == 0 {
			continue
		}
		fmt.Fprintf(&sb, "%v: %s", k, plural(count[k], "event"))
		if k != Sync {
			fmt.Fprintf(&sb, ", %s", sizeText(bytes[k], unsize[k]))
		}
		sb.WriteByte('\n')
		for ; i < len(groups) && groups[i].Kind == k; i++ {
			g := groups[i]
			site := g.Site
			if site == "" {
				site = "?"
			}
			fmt.Fprintf(&sb, "  %d at %s", g.Count, site)
			if k != Sync {
				fmt.Fprintf(&sb, ", %s", sizeText(g.Bytes, g.UnknownSizes))
			}
			if g.Desc != "" {
				fmt.Fprintf(&sb, " (%s)", g.Desc)
			}
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// sizeText returns "N bytes", adding how many sizes were unknown.
func sizeText(bytes int64, unknown int) string {
	if unknown == 0 {
		return fmt.Sprintf("%d bytes", bytes)
	}
	return fmt.Sprintf("%d bytes + %d of unknown size", bytes, unknown)
}

// plural returns "1 event" or "n events".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
