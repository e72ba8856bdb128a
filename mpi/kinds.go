package mpi

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Error kinds travel with an agreed error (Agree, RankError): a rank that
// fails sends, with its message, the names of the registered kinds its
// error matches (errors.Is), and every rank's RankError then matches the
// same sentinels. Kinds are matched by name, so every rank must register
// the same ones, which package-level registration does.
var kinds struct {
	mu     sync.Mutex
	names  []string
	byName map[string]error
}

// RegisterErrorKind registers sentinel as an error kind that keeps its
// identity through Agree: where a failing rank's error satisfies
// errors.Is(err, sentinel), the agreed error satisfies it on every rank.
// Call it from a package's init (or before the first Agree) on every rank.
// The name must be unique; registering a name again with the same sentinel
// does nothing, with another one panics.
func RegisterErrorKind(name string, sentinel error) {
	if name == "" || strings.ContainsAny(name, ",\x00") || sentinel == nil {
		panic(fmt.Sprintf("mpi: RegisterErrorKind(%q, %v): want a name without commas and a non-nil error", name, sentinel))
	}
	kinds.mu.Lock()
	defer kinds.mu.Unlock()
	if kinds.byName == nil {
		kinds.byName = map[string]error{}
	}
	if old, ok := kinds.byName[name]; ok {
		if old != sentinel {
			panic(fmt.Sprintf("mpi: error kind %q registered twice with different errors", name))
		}
		return
	}
	kinds.byName[name] = sentinel
	kinds.names = append(kinds.names, name)
}

func init() {
	RegisterErrorKind("not-exist", fs.ErrNotExist)
	RegisterErrorKind("exist", fs.ErrExist)
	RegisterErrorKind("permission", fs.ErrPermission)
	RegisterErrorKind("invalid", fs.ErrInvalid)
	RegisterErrorKind("io", syscall.EIO)
	RegisterErrorKind("no-space", syscall.ENOSPC)
	RegisterErrorKind("quota", syscall.EDQUOT)
	RegisterErrorKind("file-too-large", syscall.EFBIG)
	RegisterErrorKind("read-only", syscall.EROFS)
	RegisterErrorKind("launcher-mismatch", ErrLauncherMismatch)
}

// kindsOf returns the names of the registered kinds err matches.
func kindsOf(err error) []string {
	if err == nil {
		return nil
	}
	kinds.mu.Lock()
	defer kinds.mu.Unlock()
	var out []string
	for _, n := range kinds.names {
		if errors.Is(err, kinds.byName[n]) {
			out = append(out, n)
		}
	}
	return out
}

// kindErrors returns the sentinels of the named kinds this process knows.
func kindErrors(names []string) []error {
	kinds.mu.Lock()
	defer kinds.mu.Unlock()
	var out []error
	for _, n := range names {
		if e, ok := kinds.byName[n]; ok && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}
