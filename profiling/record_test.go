package profiling

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// here returns the site of its caller, as Record writes sites.
func here() string {
	_, file, line, _ := runtime.Caller(1)
	return shortSite(file, line)
}

func TestActive(t *testing.T) {
	if Active() {
		t.Fatal("Active at the start")
	}
	c := Count()
	if !Active() {
		t.Error("not Active with a counter")
	}
	c.Stop()
	if Active() {
		t.Error("Active after Stop")
	}
	Record(Event{Kind: ToHost, Bytes: 1}) // nothing active: no effect
	if c.Total() != 0 {
		t.Error("counted while stopped")
	}
}

func TestRecordSite(t *testing.T) {
	c := Count()
	Record(Event{Kind: ToHost, Bytes: 8})
	site := here()
	Record(Event{Kind: ToHost, Bytes: 8, Site: "given/site.go:7"})
	func() {
		Record(Event{Kind: ToDevice, Bytes: 8})
	}()
	site2 := here()
	c.Stop()
	gs := c.Groups()
	wantSite1 := site[:strings.LastIndexByte(site, ':')+1] + fmt.Sprint(lineOf(site)-1)
	wantSite2 := site2[:strings.LastIndexByte(site2, ':')+1] + fmt.Sprint(lineOf(site2)-2)
	want := []Group{
		{Kind: ToHost, Site: "given/site.go:7", Count: 1, Bytes: 8},
		{Kind: ToHost, Site: wantSite1, Count: 1, Bytes: 8},
		{Kind: ToDevice, Site: wantSite2, Count: 1, Bytes: 8},
	}
	if fmt.Sprint(gs) != fmt.Sprint(want) {
		t.Errorf("groups\n got %v\nwant %v", gs, want)
	}
	if !strings.HasPrefix(wantSite1, "profiling/record_test.go:") {
		t.Errorf("site %q", wantSite1)
	}
}

func lineOf(site string) int {
	var n int
	fmt.Sscan(site[strings.LastIndexByte(site, ':')+1:], &n)
	return n
}

func TestRecordInvalidKind(t *testing.T) {
	c := Count()
	defer c.Stop()
	defer func() {
		r := recover()
		if r != "profiling: Record of an event with invalid kind Kind(6)" {
			t.Errorf("panic %v", r)
		}
	}()
	Record(Event{Kind: numKinds})
}

func TestFuncPackage(t *testing.T) {
	tests := []struct{ fn, pkg string }{
		{"github.com/xpmpi/xpmpi/backend.ToHost[...]", "github.com/xpmpi/xpmpi/backend"},
		{"github.com/xpmpi/xpmpi/backend.ToHost[go.shape.float64]", "github.com/xpmpi/xpmpi/backend"},
		{"github.com/xpmpi/xpmpi/dist.(*Array[go.shape.*github.com/x/y.T]).Halo", "github.com/xpmpi/xpmpi/dist"},
		{"github.com/xpmpi/xpmpi/dist.(*Array).Halo.func1", "github.com/xpmpi/xpmpi/dist"},
		{"github.com/xpmpi/xpmpi.Version", "github.com/xpmpi/xpmpi"},
		{"main.main", "main"},
		{"main.main.func2.1", "main"},
		{"runtime.goexit", "runtime"},
		{"testing.tRunner", "testing"},
		{"gopkg.in/yaml.v3.Unmarshal", "gopkg.in/yaml"}, // dots in the last element cannot be told apart
		{"", ""},
	}
	for _, tc := range tests {
		if got := funcPackage(tc.fn); got != tc.pkg {
			t.Errorf("funcPackage(%q) = %q, want %q", tc.fn, got, tc.pkg)
		}
	}
}

func TestInLibrary(t *testing.T) {
	tests := []struct {
		pkg, file string
		in        bool
	}{
		{"github.com/xpmpi/xpmpi/backend", "/src/backend/convert.go", true},
		{"github.com/xpmpi/xpmpi/backend/cuda", "/src/backend/cuda/copy.go", true},
		{"github.com/xpmpi/xpmpi/dist", "/src/dist/halo.go", true},
		{"github.com/xpmpi/xpmpi", "/src/xpmpi.go", true},
		{"github.com/xpmpi/xpmpi/dist", "/src/dist/halo_test.go", false},
		{"github.com/xpmpi/xpmpi/profiling", "/src/profiling/record_test.go", false},
		{"github.com/xpmpi/xpmpi/cmd/xpmpi", "/src/cmd/xpmpi/heat2d.go", false},
		{"github.com/xpmpi/xpmpi/cmd", "/src/cmd/x.go", false},
		{"github.com/xpmpi/xpmpi/tests", "/src/tests/run.go", false},
		{"github.com/xpmpi/xpmpi/tests/mpirun", "/src/tests/mpirun/run.go", false},
		{"github.com/xpmpi/xpmpi/examples/heat", "/src/examples/heat/main.go", false},
		{"github.com/xpmpi/xpmpi/backend/backendtest", "/src/backend/backendtest/suite.go", false},
		{"github.com/xpmpi/xpmpi/mpi/mpitest", "/src/mpi/mpitest/mpitest.go", false},
		{"github.com/xpmpi/xpmpi/commands", "/src/commands/c.go", true},
		{"github.com/xpmpi/xpmpifoo", "/src/x.go", false},
		{"main", "/home/u/prog/main.go", false},
		{"gonum.org/v1/gonum/floats", "/go/pkg/floats.go", false},
	}
	for _, tc := range tests {
		if got := inLibrary(tc.pkg, tc.file); got != tc.in {
			t.Errorf("inLibrary(%q, %q) = %v, want %v", tc.pkg, tc.file, got, tc.in)
		}
	}
}

// frames is a frameSource over a fixed list.
type frames []runtime.Frame

func (f *frames) Next() (runtime.Frame, bool) {
	if len(*f) == 0 {
		return runtime.Frame{}, false
	}
	fr := (*f)[0]
	*f = (*f)[1:]
	return fr, len(*f) > 0
}

func TestPickSite(t *testing.T) {
	fr := func(fn, file string, line int) runtime.Frame {
		return runtime.Frame{Function: fn, File: file, Line: line}
	}
	record := fr("github.com/xpmpi/xpmpi/profiling.record", "/m/profiling/record.go", 70)
	toHost := fr("github.com/xpmpi/xpmpi/backend.ToHost[...]", "/m/backend/convert.go", 20)
	gather := fr("github.com/xpmpi/xpmpi/dist.(*Array[...]).Gather", "/m/dist/gather.go", 33)
	userTest := fr("github.com/xpmpi/xpmpi/dist.TestGather", "/m/dist/gather_test.go", 12)
	userMain := fr("main.main", "/home/u/heat/main.go", 40)
	goexit := fr("runtime.goexit", "/go/src/runtime/asm_amd64.s", 1700)
	tRunner := fr("testing.tRunner", "/go/src/testing/testing.go", 1900)
	tests := []struct {
		name  string
		stack frames
		site  string
		found bool
	}{
		{"user program", frames{record, toHost, gather, userMain, goexit}, "heat/main.go:40", true},
		{"library test", frames{record, toHost, gather, userTest, tRunner, goexit}, "dist/gather_test.go:12", true},
		{"library goroutine", frames{record, toHost, gather, goexit}, "backend/convert.go:20", false},
		{"only profiling", frames{record, goexit}, "", false},
		{"runtime skipped", frames{record, fr("runtime.gopanic", "/go/src/runtime/panic.go", 9), userMain}, "heat/main.go:40", true},
		{"empty", frames{}, "", false},
	}
	for _, tc := range tests {
		st := tc.stack
		site, found := pickSite(&st)
		if site != tc.site || found != tc.found {
			t.Errorf("%s: pickSite = %q, %v; want %q, %v", tc.name, site, found, tc.site, tc.found)
		}
	}
}

func TestShortSite(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"/work/main/dist/foo_test.go", "dist/foo_test.go:12"},
		{"dist/foo_test.go", "dist/foo_test.go:12"},
		{"foo.go", "foo.go:12"},
		{"/foo.go", "/foo.go:12"},
	}
	for _, tc := range tests {
		if got := shortSite(tc.file, 12); got != tc.want {
			t.Errorf("shortSite(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

// deep calls f from n frames further down the stack.
func deep(n int, f func()) {
	if n == 0 {
		f()
		return
	}
	deep(n-1, f)
}

func TestRecordDeepStack(t *testing.T) {
	// The site is found at any depth (deep is in a _test.go file, so its
	// frames are outside the library: the closure's frame is the site).
	c := Count()
	var site string
	deep(100, func() {
		Record(Event{Kind: ToHost, Bytes: 1})
		site = here()
	})
	c.Stop()
	gs := c.Groups()
	if len(gs) != 1 || lineOf(gs[0].Site) != lineOf(site)-1 {
		t.Errorf("groups %v, want site one line above %s", gs, site)
	}
}

func TestRecordTransferAndSync(t *testing.T) {
	RecordTransfer(ToHost, "not counted", 8, true, false) // nothing records: no effect
	c := Counting(func() {
		RecordTransfer(ToHost, "a", 100, true, false)
		RecordTransfer(ToDevice, "b", 28, false, true)
		RecordSync("c")
	})
	if c.Count(ToHost) != 1 || c.Bytes(ToHost) != 100 || c.Bytes(ToDevice) != 28 || c.Count(Sync) != 1 {
		t.Fatalf("counted:\n%s", c.Report())
	}
}
