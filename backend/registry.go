package backend

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/xpmpi/xpmpi/backend/driver"
)

var registry struct {
	mu        sync.Mutex
	made      map[string]Backend // made by lookup
	current   Backend
	requested string // what was asked for, if it fell back
	fallback  string // why it fell back, or ""
	warned    bool
}

// Names returns the names of the registered backends, sorted.
func Names() []string {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return names()
}

// names returns the registered names, sorted.
func names() []string {
	var ns []string
	for n := range driver.Registered() {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// lookup returns the backend registered as name, making it on first use.
// The caller holds registry.mu.
func lookup(name string) (Backend, error) {
	if b, ok := registry.made[name]; ok {
		return b, nil
	}
	f, ok := driver.Registered()[name]
	if !ok {
		if len(names()) == 0 {
			return nil, fmt.Errorf("backend: no backend %q: this program registers no backend; a program imports the backends it uses, as a database/sql program imports its drivers: import _ %q (the CPU backend; no cgo), or _ %q (CPU and CUDA)", name, "github.com/xpmpi/xpmpi/backend/cpu", "github.com/xpmpi/xpmpi/backend/all")
		}
		return nil, fmt.Errorf("backend: unknown backend %q (available: %s)", name, strings.Join(names(), ", "))
	}
	b, err := f()
	if err != nil {
		return nil, err
	}
	if registry.made == nil {
		registry.made = map[string]Backend{}
	}
	registry.made[name] = b
	return b, nil
}

// Lookup returns the backend registered as name, or why it cannot run.
func Lookup(name string) (Backend, error) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return lookup(name)
}

func mustLookup(name string) Backend {
	b, err := Lookup(name)
	switch {
	case err == nil:
		return b
	case len(names()) > 0: // others registered: name which import this one needs
		panic(fmt.Sprintf("%v: import _ %q", err, "github.com/xpmpi/xpmpi/backend/"+name))
	}
	panic(err.Error()) // none registered: the error names the imports
}

// HostBackend returns the CPU backend (registered as "cpu" by package
// backend/cpu), whose operations run on host memory: the backend that code
// falling back from a device to host copies runs them with, so that such
// code reaches the CPU backend through the registry rather than by
// importing it. It panics if no CPU backend is registered (a program
// imports github.com/xpmpi/xpmpi/backend/cpu, or backend/all).
func HostBackend() Backend { return hostBackend() }

var hostBackend = sync.OnceValue(func() Backend { return mustLookup("cpu") })

// SelectStrict makes the named backend the one where new arrays are made.
// An unknown name, or a backend that cannot run here, is an error and
// changes nothing.
func SelectStrict(name string) error {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	b, err := lookup(name)
	if err != nil {
		return err
	}
	registry.current, registry.requested, registry.fallback = b, name, ""
	return nil
}

// Select makes the named backend current. An unknown name is an error and
// changes nothing. A known backend that cannot run here makes the CPU
// backend current instead: Select says so once on standard error, records
// it for Info, and returns nil.
func Select(name string) error {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return selectLocked(name)
}

func selectLocked(name string) error {
	if _, known := driver.Registered()[name]; !known {
		_, err := lookup(name)
		return err
	}
	b, err := lookup(name)
	if err == nil {
		registry.current, registry.requested, registry.fallback = b, name, ""
		return nil
	}
	cpu, cerr := lookup("cpu")
	if cerr != nil {
		return err
	}
	registry.current, registry.requested, registry.fallback = cpu, name, err.Error()
	if !registry.warned {
		registry.warned = true
		fmt.Fprintf(os.Stderr, "xpmpi: backend %q is unavailable (%v); using cpu\n", name, err)
	}
	return nil
}

// Current returns the backend where new arrays are made. On first use it is
// chosen by XPMPI_BACKEND (default cpu), with Select's fallback; with
// XPMPI_BACKEND_STRICT=1 an unusable choice panics instead. An unknown name
// in XPMPI_BACKEND panics too. Programs that want an error rather than a
// panic call CheckEnv first.
func Current() Backend {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.current != nil {
		return registry.current
	}
	name, strict := envChoice()
	var err error
	if strict {
		var b Backend
		if b, err = lookup(name); err == nil {
			registry.current, registry.requested = b, name
		}
	} else {
		err = selectLocked(name)
	}
	if err != nil {
		if len(names()) == 0 {
			panic(err.Error())
		}
		panic(fmt.Sprintf("backend: XPMPI_BACKEND=%s: %v", name, err))
	}
	return registry.current
}

// envChoice returns the backend XPMPI_BACKEND names (cpu if unset) and
// whether XPMPI_BACKEND_STRICT=1 forbids a fallback.
func envChoice() (name string, strict bool) {
	name = strings.TrimSpace(os.Getenv("XPMPI_BACKEND"))
	if name == "" {
		name = "cpu"
	}
	return name, os.Getenv("XPMPI_BACKEND_STRICT") == "1"
}

// EnvError is a value of an environment variable that backend selection
// refuses.
type EnvError struct {
	Var     string   // the variable, such as XPMPI_BACKEND
	Value   string   // its value
	Choices []string // the values it may take, where that helps
	Reason  string   // why the value is refused
}

func (e *EnvError) Error() string {
	msg := fmt.Sprintf("%s=%q: %s", e.Var, e.Value, e.Reason)
	if len(e.Choices) > 0 {
		msg += " (choices: " + strings.Join(e.Choices, ", ") + ")"
	}
	return msg
}

// CheckEnv reports, as an *EnvError, a backend selection by environment
// that Current would panic on: an XPMPI_BACKEND that names no registered
// backend, an XPMPI_BACKEND_STRICT other than 0 or 1, or, with
// XPMPI_BACKEND_STRICT=1, a backend that cannot run here. It makes the
// named backend if that was not done yet, and selects nothing.
func CheckEnv() error {
	if v := strings.TrimSpace(os.Getenv("XPMPI_BACKEND_STRICT")); v != "" && v != "0" && v != "1" {
		return &EnvError{Var: "XPMPI_BACKEND_STRICT", Value: v, Choices: []string{"0", "1"},
			Reason: "want 1 (an unusable XPMPI_BACKEND is an error) or 0 (fall back to cpu)"}
	}
	name, strict := envChoice()
	registry.mu.Lock()
	defer registry.mu.Unlock()
	names := names()
	if _, ok := driver.Registered()[name]; !ok {
		return &EnvError{Var: "XPMPI_BACKEND", Value: os.Getenv("XPMPI_BACKEND"), Choices: names, Reason: "no such backend"}
	}
	if !strict {
		return nil
	}
	if _, err := lookup(name); err != nil {
		return &EnvError{Var: "XPMPI_BACKEND", Value: name, Choices: names,
			Reason: fmt.Sprintf("unusable here with XPMPI_BACKEND_STRICT=1: %v", err)}
	}
	return nil
}

// Status describes one registered backend.
type Status struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why it is not available
	Device    string `json:"device,omitempty"`
	Details   string `json:"details,omitempty"` // driver and compiler versions, device names
}

// Info is the machine-readable state of backend selection.
type Info struct {
	Selected  string   `json:"selected"`
	Requested string   `json:"requested,omitempty"` // what was asked for, where it fell back
	Fallback  string   `json:"fallback,omitempty"`  // why it fell back
	Threads   int      `json:"threads"`             // the host thread budget
	Error     string   `json:"error,omitempty"`     // why nothing could be selected
	Backends  []Status `json:"backends"`
}

// GetInfo reports what is selected, what is available, and why not. Where
// nothing is selected yet and the environment's choice is refused (see
// CheckEnv), Selected is empty and Error says why: GetInfo never panics on
// a bad environment.
func GetInfo() Info {
	info := Info{Threads: Threads()}
	registry.mu.Lock()
	selected := registry.current != nil
	registry.mu.Unlock()
	if !selected {
		if err := CheckEnv(); err != nil {
			info.Error = err.Error()
		}
	}
	if info.Error == "" {
		info.Selected = Current().Name()
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	info.Fallback = registry.fallback
	if registry.fallback != "" {
		info.Requested = registry.requested
	}
	for _, n := range names() {
		st := Status{Name: n}
		b, err := lookup(n)
		if err != nil {
			st.Reason = err.Error()
		} else {
			st.Available = true
			st.Device = b.Device().String()
			if d, ok := b.(driver.Describer); ok {
				st.Details = d.Describe()
			}
		}
		info.Backends = append(info.Backends, st)
	}
	return info
}
