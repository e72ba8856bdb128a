package backend_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/backend/fakedev"
)

// freedCall runs f and returns its error or the error value it panicked
// with (an error describing any other panic).
func freedCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			err = fmt.Errorf("panic with a %T: %v", r, r)
		}
	}()
	return f()
}

// TestFreed calls every function of the package that takes an Array with
// a freed one, on the CPU backend and the fake device: each must fail with
// an error wrapping ErrFreed that names it (a panic with that error where
// it returns none). Free twice does nothing; the accessors keep answering.
func TestFreed(t *testing.T) {
	type A = backend.Array[float64]
	none := func(f func()) error { f(); return nil }
	ops := []struct {
		name string
		f    func(f, l *A) error
	}{
		{"Buffer", func(f, _ *A) error { return none(func() { f.Buffer() }) }},
		{"Ptr", func(f, _ *A) error { return none(func() { f.Ptr() }) }},
		{"Data", func(f, _ *A) error { return none(func() { f.Data() }) }},
		{"Slice", func(f, _ *A) error { return none(func() { f.Slice(0, 0) }) }},
		{"Fill", func(f, _ *A) error { return none(func() { backend.Fill(f, 1) }) }},
		{"Copy", func(f, l *A) error { return none(func() { backend.Copy(l, f) }) }},
		{"Scale", func(f, _ *A) error { return none(func() { backend.Scale(2, f) }) }},
		{"Axpy", func(f, l *A) error { return none(func() { backend.Axpy(2, l, f) }) }},
		{"Axpby", func(f, l *A) error { return none(func() { backend.Axpby(2, f, 1, l) }) }},
		{"Jacobi5", func(f, l *A) error { return none(func() { backend.Jacobi5(l, f, 2, 2) }) }},
		{"Laplace5", func(f, l *A) error { return none(func() { backend.Laplace5(f, l, 2, 2) }) }},
		{"Laplace5Dot", func(f, l *A) error { return none(func() { backend.Laplace5Dot(f, l, 2, 2) }) }},
		{"Stencil9", func(f, l *A) error { return none(func() { backend.Stencil9(l, f, 2, 2, [9]float64{}) }) }},
		{"Stencil7", func(f, l *A) error { return none(func() { backend.Stencil7(l, f, 1, 2, 2, [7]float64{}) }) }},
		{"Apply", func(f, l *A) error { return none(func() { backend.Apply(backend.Add, l, l, f) }) }},
		{"ApplyScalar", func(f, l *A) error { return none(func() { backend.ApplyScalar(backend.Mul, l, f, 2) }) }},
		{"Sum", func(f, _ *A) error { return none(func() { backend.Sum(f) }) }},
		{"SumScalar", func(f, _ *A) error { return none(func() { backend.SumScalar(f) }) }},
		{"Dot", func(f, l *A) error { return none(func() { backend.Dot(l, f) }) }},
		{"DotScalar", func(f, l *A) error { return none(func() { backend.DotScalar(f, l) }) }},
		{"Norm", func(f, _ *A) error { return none(func() { backend.Norm(f) }) }},
		{"Argmin", func(f, _ *A) error { return none(func() { backend.Argmin(f) }) }},
		{"Argmax", func(f, _ *A) error { return none(func() { backend.Argmax(f) }) }},
		{"Min", func(f, _ *A) error { return none(func() { backend.Min(f) }) }},
		{"Max", func(f, _ *A) error { return none(func() { backend.Max(f) }) }},
		{"Map", func(f, _ *A) error { return backend.Map(f, func(v float64) float64 { return v }) }},
		{"ToHost", func(f, _ *A) error { _, err := backend.ToHost(f); return err }},
		{"ToDevice", func(f, _ *A) error { _, err := backend.ToDevice(f, fakedev.Default); return err }},
		{"AsDevice", func(f, _ *A) error { _, err := backend.AsDevice(f); return err }},
		{"CopyToHostSlice", func(f, _ *A) error { return backend.CopyToHostSlice(make([]float64, 4), f) }},
		{"CopyFromHostSlice", func(f, _ *A) error { return backend.CopyFromHostSlice(f, make([]float64, 4)) }},
		{"Synchronize", func(f, l *A) error { return backend.Synchronize(l, f) }},
		{"ToHostAsync", func(f, _ *A) error { _, err := backend.ToHostAsync(f).Result(); return err }},
		{"HostCall", func(f, l *A) error {
			return backend.HostCall(func([]*A) error { return nil }, l, f)
		}},
	}
	for _, b := range []backend.Backend{backend.Current(), fakedev.Default} {
		for _, op := range ops {
			f, err := backend.NewOn[float64](b, 4)
			if err != nil {
				t.Fatal(err)
			}
			l, err := backend.NewOn[float64](b, 4)
			if err != nil {
				t.Fatal(err)
			}
			f.Free()
			f.Free() // does nothing
			err = freedCall(func() error { return op.f(f, l) })
			l.Free()
			if op.name == "AsDevice" && errors.Is(err, backend.ErrNoDevice) {
				continue // the CPU selected: the error of AsDevice on any array
			}
			if !errors.Is(err, backend.ErrFreed) || !strings.Contains(err.Error(), "freed") {
				t.Errorf("%s of a freed array on %s: %v, want an error wrapping ErrFreed", op.name, b.Name(), err)
			}
			if !f.Freed() || f.Len() != 0 || f.Device() != b.Device() || !strings.Contains(f.String(), "freed") {
				t.Errorf("%s: accessors of a freed array: Freed %v, Len %d, Device %v, %v", b.Name(), f.Freed(), f.Len(), f.Device(), f)
			}
		}
	}
}
