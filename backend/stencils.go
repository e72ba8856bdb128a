package backend

import (
	"fmt"
	"sync"
)

var stencils struct {
	mu  sync.RWMutex
	use map[string]Stencils // by backend name
}

// UseStencils makes s the stencils of the backend named name, instead of
// its own (nil goes back to its own), as gonum's blas64.Use swaps BLAS
// implementations. It is for a program or package that brings faster
// stencils, or stencils for a backend that has none.
func UseStencils(name string, s Stencils) {
	stencils.mu.Lock()
	defer stencils.mu.Unlock()
	if s == nil {
		delete(stencils.use, name)
		return
	}
	if stencils.use == nil {
		stencils.use = map[string]Stencils{}
	}
	stencils.use[name] = s
}

// StencilsOf returns the stencils of backend b: the ones UseStencils gave
// for its name, else its own. It panics, naming the backend, if it has
// neither.
func StencilsOf(b Backend) Stencils {
	stencils.mu.RLock()
	s, ok := stencils.use[b.Name()]
	stencils.mu.RUnlock()
	if ok {
		return s
	}
	if s, ok := b.(Stencils); ok {
		return s
	}
	panic(fmt.Sprintf("backend: the %s backend has no 5-point stencils: give it some with backend.UseStencils", b.Name()))
}
