package profiling

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A sink receives the events recorded while it is active: counters,
// AssertNoTransfers scopes and budgets with an open phase.
type sink interface {
	add(e *Event)
}

var (
	// mu guards sinks and the state of every counter, assertion scope,
	// budget and traffic counter.
	mu    sync.Mutex
	sinks []sink
	// active is len(sinks), readable without mu: the one check that
	// Record makes when nothing is active.
	active atomic.Int32
)

// Record records a transfer event. Every host/device copy, kernel argument
// conversion, host fallback, device-to-device copy and device
// synchronization in the library calls it.
//
// When nothing is active (no counter, AssertNoTransfers scope or budget
// phase) Record costs one atomic load. Otherwise it fills in e.Site if it is
// empty (see below) and hands the event to every active counter and
// assertion scope and to the innermost open phase of every active budget.
// It panics if e.Kind is not a valid kind.
//
// The site is the first frame of the calling goroutine's stack, walking out
// from Record, that is outside the library. A frame is inside the library
// when its function belongs to the module github.com/xpmpi/xpmpi, except
// frames in _test.go files, in the module's packages under cmd/, tests/ and
// examples/, and in its packages whose last path element ends in "test"
// (backendtest, mpitest, ...): those are the library's users. Runtime
// frames are skipped.
// If no frame qualifies (an event recorded on a goroutine that the library
// started), the site is the library frame closest to Record. A site reads
// "dir/file.go:line": the file with its directory, without the rest of the
// path.
//
// Finding the site costs about a microsecond (each program counter is
// symbolized once and cached). Callers that build an expensive description
// should test Active first; so can the hottest paths, where even building
// the Event (a few stores) before the check matters.
func Record(e Event) {
	if active.Load() != 0 {
		record(e)
	}
}

// RecordTransfer records a transfer of bytes bytes of the given kind: the
// one call every package makes for a copy between host and device, a
// staging step or a conversion. blocking says whether the caller waited
// for it, implicit whether the caller did not ask for it by name. It costs
// one atomic load when nothing records.
func RecordTransfer(kind Kind, desc string, bytes int64, blocking, implicit bool) {
	if active.Load() != 0 {
		record(Event{Kind: kind, Desc: desc, Bytes: bytes, Blocking: blocking, Implicit: implicit})
	}
}

// RecordSync records a blocking synchronization with a device.
func RecordSync(desc string) {
	if active.Load() != 0 {
		record(Event{Kind: Sync, Desc: desc, Bytes: UnknownBytes, Blocking: true})
	}
}

// Active reports whether anything is recording transfer events, that is,
// whether Record does more than one check. Callers can skip building an
// event's description when it is false.
func Active() bool { return active.Load() != 0 }

//go:noinline
func record(e Event) {
	if !e.Kind.valid() {
		panic(fmt.Sprintf("profiling: Record of an event with invalid kind %v", e.Kind))
	}
	if e.Site == "" {
		e.Site = callerSite()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range sinks {
		s.add(&e)
	}
}

// addSink makes s active. The caller holds mu.
func addSink(s sink) {
	sinks = append(sinks, s)
	active.Store(int32(len(sinks)))
}

// removeSink makes s inactive. The caller holds mu.
func removeSink(s sink) {
	for i, t := range sinks {
		if t == s {
			copy(sinks[i:], sinks[i+1:])
			sinks[len(sinks)-1] = nil
			sinks = sinks[:len(sinks)-1]
			break
		}
	}
	active.Store(int32(len(sinks)))
}

const modulePath = "github.com/xpmpi/xpmpi"

// selfPackage is this package's import path.
const selfPackage = modulePath + "/profiling"

// siteCache maps a program counter of a stack (from runtime.Callers) to its
// pcSites. The classification of a PC never changes, so each PC is
// symbolized once.
var siteCache = struct {
	sync.RWMutex
	m map[uintptr]pcSites
}{m: map[uintptr]pcSites{}}

// pcSites is what the frames of one PC (several where calls are inlined)
// contribute to finding a site.
type pcSites struct {
	// outside is the site of the first frame outside the library, or "".
	outside string
	// library is the site of the first library frame outside this
	// package, or "".
	library string
}

// callerSite returns the site of the current call, as Record documents.
//
//go:noinline
func callerSite() string {
	var buf [8]uintptr // enough for most: walking the stack costs per frame
	pcs := buf[:]
	for {
		// Skip runtime.Callers and callerSite, which are never inlined,
		// so that no group of inlined frames is cut.
		n := runtime.Callers(2, pcs)
		fallback := ""
		for _, pc := range pcs[:n] {
			s := sitesOfPC(pc)
			if s.outside != "" {
				return s.outside
			}
			if fallback == "" {
				fallback = s.library
			}
		}
		if n < len(pcs) || len(pcs) >= 1024 {
			return fallback
		}
		pcs = make([]uintptr, 4*len(pcs))
	}
}

func sitesOfPC(pc uintptr) pcSites {
	siteCache.RLock()
	s, ok := siteCache.m[pc]
	siteCache.RUnlock()
	if !ok {
		s = sitesOf(runtime.CallersFrames([]uintptr{pc}))
		siteCache.Lock()
		siteCache.m[pc] = s
		siteCache.Unlock()
	}
	return s
}

// frameSource yields stack frames; *runtime.Frames is one.
type frameSource interface {
	Next() (runtime.Frame, bool)
}

// sitesOf walks frames until the first one outside the library, and
// returns its site and that of the first library frame outside this
// package before it.
func sitesOf(frames frameSource) pcSites {
	var s pcSites
	for {
		f, more := frames.Next()
		if f.Function != "" || f.File != "" {
			pkg := funcPackage(f.Function)
			switch {
			case pkg == "runtime" || strings.HasPrefix(pkg, "runtime/"):
			case !inLibrary(pkg, f.File):
				s.outside = shortSite(f.File, f.Line)
				return s
			case s.library == "" && pkg != selfPackage:
				s.library = shortSite(f.File, f.Line)
			}
		}
		if !more {
			return s
		}
	}
}

// pickSite returns the site of the first frame outside the library, and
// true; or, if there is none, the site of the first library frame outside
// this package (or "" if there is none either), and false.
func pickSite(frames frameSource) (string, bool) {
	s := sitesOf(frames)
	if s.outside != "" {
		return s.outside, true
	}
	return s.library, false
}

// inLibrary reports whether a frame of a function in package pkg, in file
// file, is inside the library (see Record).
func inLibrary(pkg, file string) bool {
	if strings.HasSuffix(file, "_test.go") {
		return false
	}
	if pkg != modulePath && !strings.HasPrefix(pkg, modulePath+"/") {
		return false
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, modulePath), "/")
	for _, dir := range []string{"cmd", "tests", "examples"} {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			return false
		}
	}
	if strings.HasSuffix(rel[strings.LastIndexByte(rel, '/')+1:], "test") {
		return false
	}
	return true
}

// funcPackage returns the import path of the package of a function named as
// runtime.Frame.Function names it ("path/to/pkg.Func",
// "path/to/pkg.(*T).Method", "path/to/pkg.Func[...].func1", ...).
func funcPackage(fn string) string {
	if i := strings.IndexByte(fn, '['); i >= 0 {
		fn = fn[:i] // type arguments may hold dots and slashes
	}
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return fn
}

// shortSite returns "dir/file.go:line" for a file path and line.
func shortSite(file string, line int) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		if j := strings.LastIndexByte(file[:i], '/'); j >= 0 {
			file = file[j+1:]
		}
	}
	return file + ":" + strconv.Itoa(line)
}
