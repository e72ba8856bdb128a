package kernels

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Catalog is a set of kernels by name. It is safe for concurrent use.
type Catalog struct {
	mu      sync.RWMutex
	kernels map[string]*Kernel
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{kernels: map[string]*Kernel{}} }

// Default is the catalog of the project's kernels (axpy, jacobi5,
// laplace5, ...), the one `xpmpi kernels` lists; the package functions
// Register, MustRegister, Lookup and All use it.
var Default = NewCatalog()

// Register adds k under its name; a name already taken is an error.
func (c *Catalog) Register(k *Kernel) error {
	if k == nil {
		return errors.New("kernels: Register of a nil kernel")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.kernels[k.Name()]; dup {
		return fmt.Errorf("kernels: a kernel named %s is already registered", k.Name())
	}
	c.kernels[k.Name()] = k
	return nil
}

// MustRegister is Register for init functions: it panics on an error.
func (c *Catalog) MustRegister(k *Kernel) {
	if err := c.Register(k); err != nil {
		panic(err.Error())
	}
}

// Lookup returns the kernel registered as name.
func (c *Catalog) Lookup(name string) (*Kernel, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	k, ok := c.kernels[name]
	return k, ok
}

// All returns the kernels sorted by name.
func (c *Catalog) All() []*Kernel {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Kernel, 0, len(c.kernels))
	for _, k := range c.kernels {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Register adds k to the Default catalog.
func Register(k *Kernel) error { return Default.Register(k) }

// MustRegister adds k to the Default catalog, panicking on an error.
func MustRegister(k *Kernel) { Default.MustRegister(k) }

// Lookup returns the kernel of the Default catalog registered as name.
func Lookup(name string) (*Kernel, bool) { return Default.Lookup(name) }

// All returns the kernels of the Default catalog, sorted by name.
func All() []*Kernel { return Default.All() }

// Info describes one kernel of a catalog.
type Info struct {
	Name      string   `json:"name"`
	Doc       string   `json:"doc,omitempty"`
	Host      bool     `json:"host"`
	CUDA      bool     `json:"cuda"`
	Variants  []string `json:"variants"`
	Signature string   `json:"signature"`
	Structs   []string `json:"structs,omitempty"`
	Parity    int      `json:"parity_cases"`
}

// Info returns the kernel's description.
func (k *Kernel) Info() Info {
	in := Info{Name: k.Name(), Doc: k.Doc(), Host: k.HasHost(), CUDA: k.HasCUDA(),
		Signature: k.sig.String(), Parity: len(k.spec.Parity)}
	for _, v := range k.Variants() {
		in.Variants = append(in.Variants, v.String())
	}
	for _, st := range k.spec.Structs {
		in.Structs = append(in.Structs, st.Name())
	}
	return in
}

// Summary describes a catalog.
type Summary struct {
	Kernels []Info `json:"kernels"`
	// CUDA and Host count the kernels with each implementation.
	CUDA int `json:"cuda"`
	Host int `json:"host"`
	// MissingCUDA names the kernels without CUDA source.
	MissingCUDA []string `json:"missing_cuda,omitempty"`
}

// String returns the summary's first line, as "CUDA kernels: 2 of 3
// (missing: sort)".
func (s Summary) String() string {
	line := fmt.Sprintf("CUDA kernels: %d of %d", s.CUDA, len(s.Kernels))
	if len(s.MissingCUDA) > 0 {
		line += " (missing: " + strings.Join(s.MissingCUDA, ", ") + ")"
	}
	return line
}

// Summary describes every kernel of the catalog.
func (c *Catalog) Summary() Summary {
	s := Summary{Kernels: []Info{}}
	for _, k := range c.All() {
		in := k.Info()
		s.Kernels = append(s.Kernels, in)
		if in.CUDA {
			s.CUDA++
		} else {
			s.MissingCUDA = append(s.MissingCUDA, in.Name)
		}
		if in.Host {
			s.Host++
		}
	}
	return s
}

// CompileResult is the compilation of one variant of one kernel to PTX.
type CompileResult struct {
	Kernel  string `json:"kernel"`
	Variant string `json:"variant"`
	Bytes   int    `json:"ptx_bytes"`
	Error   string `json:"error,omitempty"`
	err     error
}

// CompileAll compiles every default variant of every kernel with CUDA
// source to PTX with NVRTC, in parallel (it needs NVRTC, not a GPU). It
// returns one result per variant, in catalog order, and an error joining
// every failure (nil if none). Without NVRTC the error is a *NoNVRTCError
// and nothing is compiled.
func (c *Catalog) CompileAll() ([]CompileResult, error) {
	if _, _, err := NVRTC(); err != nil {
		return nil, err
	}
	type job struct {
		k *Kernel
		v Variant
	}
	var jobs []job
	for _, k := range c.All() {
		if !k.HasCUDA() {
			continue
		}
		for _, v := range k.Variants() {
			jobs = append(jobs, job{k, v})
		}
	}
	results := make([]CompileResult, len(jobs))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ptx, err := j.k.CompilePTX(j.v)
			r := CompileResult{Kernel: j.k.Name(), Variant: j.v.String(), Bytes: len(ptx), err: err}
			if err != nil {
				r.Error = err.Error()
			}
			results[i] = r
		}()
	}
	wg.Wait()
	var errs []error
	for _, r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	return results, errors.Join(errs...)
}

// Check checks every kernel of the catalog: that host and CUDA signatures
// agree (New refuses kernels whose do not, so this repeats it for the
// record), that every struct parameter's C declaration (in the source or
// generated) has Go's layout by C's rules and, with NVRTC, as NVRTC
// compiles it. It returns every problem joined, nil if none; without NVRTC
// the compiler's confirmation is skipped (the check by C's rules still
// runs).
func (c *Catalog) Check() error {
	var errs []error
	_, _, nverr := NVRTC()
	for _, k := range c.All() {
		if k.spec.Signature != "" && k.HasCUDA() {
			hs, err := ParseHostSignature(k.spec.Signature, ParseOptions{TypeParams: []string{k.spec.TypeParam}})
			if err != nil {
				errs = append(errs, err)
			} else if d := k.sig.Diff(hs); d != "" {
				errs = append(errs, fmt.Errorf("kernels: %s: the host and CUDA signatures differ: %s", k.Name(), d))
			}
		}
		for _, st := range k.spec.Structs {
			src := ""
			if k.HasCUDA() {
				declared, err := st.CheckSource(k.spec.CUDA)
				if err != nil {
					errs = append(errs, fmt.Errorf("kernels: %s: %w", k.Name(), unwrapPrefix(err)))
					continue
				}
				if declared {
					// The variant's source, so that macros the struct uses are defined.
					src = k.VariantSource(k.Variants()[0])
				}
			}
			if nverr == nil {
				if err := st.CheckLayout(src); err != nil {
					errs = append(errs, fmt.Errorf("kernels: %s: %w", k.Name(), unwrapPrefix(err)))
				}
			}
		}
	}
	return errors.Join(errs...)
}
