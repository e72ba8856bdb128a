package backend_test

import (
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend/driver"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/cpu"
)

// plain is the CPU backend without its stencils, under another name.
type plain struct{ backend.Backend }

func (plain) Name() string { return "plain" }

// counting counts the stencils it runs, on the CPU's.
type counting struct{ jacobi, laplace int }

func (c *counting) Jacobi5(dst, src driver.Buffer, rows, cols int) {
	c.jacobi++
	cpu.Default.Jacobi5(dst, src, rows, cols)
}

func (c *counting) Laplace5(dst, src driver.Buffer, rows, cols int) {
	c.laplace++
	cpu.Default.Laplace5(dst, src, rows, cols)
}

// TestStencils: the stencils are a backend's own unless UseStencils swaps
// them, and a backend with none says so by name.
func TestStencils(t *testing.T) {
	if _, ok := driver.StencilsOf(cpu.Default).(*cpu.Backend); !ok {
		t.Error("the CPU backend's stencils are not its own")
	}
	b := plain{cpu.Default}
	func() {
		defer func() {
			if s, _ := recover().(string); !strings.Contains(s, "plain backend has no 5-point stencils") {
				t.Errorf("StencilsOf a backend without stencils: panic %q", s)
			}
		}()
		driver.StencilsOf(b)
	}()
	c := &counting{}
	driver.UseStencils("cpu", c)
	defer driver.UseStencils("cpu", nil)
	src, dst := backend.Wrap([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}), backend.Wrap(make([]float64, 9))
	backend.Jacobi5(dst, src, 3, 3)
	backend.Laplace5(dst, src, 3, 3)
	if c.jacobi != 1 || c.laplace != 1 || dst.Data()[4] != 4*5-2-4-6-8 {
		t.Errorf("swapped stencils ran %d and %d times; Laplace5 centre %v", c.jacobi, c.laplace, dst.Data()[4])
	}
	driver.UseStencils("cpu", nil)
	backend.Jacobi5(dst, src, 3, 3)
	if c.jacobi != 1 || dst.Data()[4] != 5 {
		t.Errorf("after UseStencils(nil): %d calls, centre %v", c.jacobi, dst.Data()[4])
	}
}
