//go:build petsc

package petsc

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend/fakedev"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// mustPanic returns the panic of f as text, failing the test if f does not
// panic.
func mustPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("no panic")
		}
		msg = fmt.Sprint(r)
	}()
	f()
	return ""
}

// The options of Init reach PETSc's database, and SetOptions' reach a KSP
// through its prefix.
func TestOptions(t *testing.T) {
	c := mpitest.World(t)
	for _, o := range []struct{ name, value string }{
		{"-xp_test_marker", "42"}, {"-xp_test_flag", ""}, {"-xp_test_word", "hello"}, {"-no_signal_handler", ""},
	} {
		v, set, err := Option(o.name)
		if err != nil || !set || v != o.value {
			t.Errorf("Option(%q) = %q, %v, %v; want %q, true, nil", o.name, v, set, err, o.value)
		}
	}
	if _, set, _ := Option("-xp_never_given"); set {
		t.Error("an option never given is set")
	}
	if err := SetOptions("-opt_ksp_type bcgs -opt_pc_type jacobi -opt_ksp_rtol 1e-3"); err != nil {
		t.Fatal(err)
	}
	k, err := NewKSP(c)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Destroy()
	if err := k.SetOptionsPrefix("opt_"); err != nil {
		t.Fatal(err)
	}
	if err := k.SetFromOptions(); err != nil {
		t.Fatal(err)
	}
	kt, err1 := k.Type()
	pt, err2 := k.PCType()
	if kt != "bcgs" || pt != "jacobi" || err1 != nil || err2 != nil {
		t.Errorf("from options: KSP %q (%v), PC %q (%v); want bcgs, jacobi", kt, err1, pt, err2)
	}
	if !strings.Contains(Version(), "3.") {
		t.Errorf("Version() = %q", Version())
	}
}

// vecCases are 1-D and 2-D arrays split on either axis, with fewer
// elements than ranks (a vector of 3 at 4 ranks) and empty ones.
var vecCases = []struct {
	shape []int
	axis  int
}{
	{[]int{0}, 0}, {[]int{1}, 0}, {[]int{3}, 0}, {[]int{7}, 0}, {[]int{17}, 0},
	{[]int{5, 3}, 0}, {[]int{5, 3}, 1}, {[]int{2, 9}, 0}, {[]int{3, 0}, 0},
}

// A Vec over a dist.Array is the array's memory: PETSc's VecGetArrayRead
// gives the block's address, PETSc sees Go's writes, and Go sees PETSc's.
func TestVecZeroCopy(t *testing.T) {
	c := mpitest.World(t)
	for _, tc := range vecCases {
		t.Run(fmt.Sprintf("%v/axis%d", tc.shape, tc.axis), func(t *testing.T) {
			a, err := dist.FromFunc(c, tc.shape, func(idx []int) float64 {
				v := 1.0
				for _, i := range idx {
					v += float64(i + 1)
				}
				return v
			}, dist.SplitAxis(tc.axis))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Free()
			v, err := NewVec(a)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Destroy()
			p, err := v.localPointer()
			if err != nil {
				t.Fatal(err)
			}
			n := len(a.LocalData())
			same := n == 0 || p == unsafe.Pointer(&a.LocalData()[0])
			mpitest.Check(t, c, same, "PETSc's array at %p, the block at %p (%d elements)", p, a.Local().Ptr(), n)
			if v.Size() != a.Len() || v.LocalSize() != n || v.Array() != a {
				t.Fatalf("Size %d LocalSize %d, want %d %d", v.Size(), v.LocalSize(), a.Len(), n)
			}
			want, err := dist.Norm(a)
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.Norm(Norm2)
			if err != nil {
				t.Fatal(err)
			}
			mpitest.Check(t, c, math.Abs(got-want) <= 1e-12*want, "VecNorm %v, dist.Norm %v", got, want)
			// A write from Go after PETSc cached the norm.
			for i := range a.LocalData() {
				a.LocalData()[i] *= 2
			}
			got, err = v.Norm(Norm2)
			if err != nil {
				t.Fatal(err)
			}
			mpitest.Check(t, c, math.Abs(got-2*want) <= 1e-12*want, "after Go doubled the array, VecNorm %v, want %v", got, 2*want)
			// A write from PETSc.
			if err := v.Set(0.5); err != nil {
				t.Fatal(err)
			}
			ok := true
			for _, x := range a.LocalData() {
				ok = ok && x == 0.5
			}
			mpitest.Check(t, c, ok, "after VecSet(0.5) the block is %v", a.LocalData())
			d, err := v.Dot(v)
			if err != nil {
				t.Fatal(err)
			}
			mpitest.Check(t, c, d == 0.25*float64(a.Len()), "VecDot %v, want %v", d, 0.25*float64(a.Len()))
		})
	}
}

// A Vec whose memory PETSc allocated is a dist.Array without a copy, until
// Destroy empties the array.
func TestVecFromPETSc(t *testing.T) {
	c := mpitest.World(t)
	for _, tc := range vecCases {
		l := dist.NewLayout(tc.shape, tc.axis, c.Size())
		v, err := CreateVec(c, l)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Set(3); err != nil {
			t.Fatal(err)
		}
		w, err := v.Duplicate()
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []*Vec{v, w} {
			a := x.Array()
			if !a.Layout().Equal(l) {
				t.Fatalf("layout %v, want %v", a.Layout(), l)
			}
			p, err := x.localPointer()
			if err != nil {
				t.Fatal(err)
			}
			n := l.LocalLen(c.Rank())
			mpitest.Check(t, c, len(a.LocalData()) == n && (n == 0 || p == unsafe.Pointer(&a.LocalData()[0])),
				"%v: the array's block (%d elements at %p) is not PETSc's (%d at %p)", tc.shape, len(a.LocalData()), a.Local().Ptr(), n, p)
		}
		// Go writes w's memory; PETSc adds it to v.
		for i := range w.Array().LocalData() {
			w.Array().LocalData()[i] = 1
		}
		if err := v.AXPY(2, w); err != nil {
			t.Fatal(err)
		}
		s, err := dist.Sum(v.Array())
		if err != nil {
			t.Fatal(err)
		}
		mpitest.Check(t, c, s == 5*float64(l.Len()), "%v: sum %v, want %v", tc.shape, s, 5*float64(l.Len()))
		a := v.Array()
		if err := v.Destroy(); err != nil {
			t.Fatal(err)
		}
		if err := w.Destroy(); err != nil {
			t.Fatal(err)
		}
		if a.Local().Len() != 0 {
			t.Fatalf("after Destroy the array over PETSc's memory still has %d elements", a.Local().Len())
		}
	}
}

// Only float64 arrays make Vecs; the error names both types, on every rank.
func TestVecScalarType(t *testing.T) {
	c := mpitest.World(t)
	a32, err := dist.Zeros[float32](c, []int{5})
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewVec(a32)
	if !errors.Is(err, ErrScalarType) || !strings.Contains(err.Error(), "float32") || !strings.Contains(err.Error(), "float64") {
		t.Errorf("NewVec of float32: %v; want ErrScalarType naming float32 and float64", err)
	}
	ai, err := dist.Zeros[int64](c, []int{3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = NewVec(ai); !errors.Is(err, ErrScalarType) || !strings.Contains(err.Error(), "int64") {
		t.Errorf("NewVec of int64: %v", err)
	}
}

// A device array is refused with an error that says PETSc lacks CUDA and
// how to stage; the staged copy works.
func TestVecDevice(t *testing.T) {
	c := mpitest.World(t)
	a, err := dist.Full(c, []int{6}, 2.0, dist.OnBackend(fakedev.Default))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Free()
	_, err = NewVec(a)
	if !errors.Is(err, ErrNoCUDA) || !strings.Contains(err.Error(), "CUDA") || !strings.Contains(err.Error(), "backend.ToHost") {
		t.Fatalf("NewVec of a device array: %v; want ErrNoCUDA saying how to stage", err)
	}
	if HasCUDA() {
		t.Log("this PETSc has CUDA")
	}
	// The staging the message describes.
	h, err := backendToHost(a)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVec(h)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Destroy()
	nrm, err := v.Norm(Norm1)
	if err != nil || nrm != 12 {
		t.Fatalf("norm of the staged copy %v, %v; want 12", nrm, err)
	}
}

// Freeing the array before destroying its Vec: the Vec keeps the memory
// alive and refuses every use but Destroy with a panic that says what
// happened.
func TestVecLifetime(t *testing.T) {
	c := mpitest.World(t)
	a, err := dist.Full(c, []int{7}, 1.0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVec(a)
	if err != nil {
		t.Fatal(err)
	}
	// Freeing the array under a live Vec is refused: its memory is lent.
	msg := mustPanic(t, func() { a.Free() })
	if !strings.Contains(msg, "lent") || !strings.Contains(msg, "destroy the Vec") {
		t.Errorf("Free of the array under a Vec: panic %q", msg)
	}
	if got, err := v.Norm(Norm1); err != nil || got != 7 {
		t.Errorf("the Vec after the refused Free: norm %v, %v", got, err)
	}
	if err := v.Destroy(); err != nil {
		t.Fatal(err)
	}
	a.Free() // the loan ended with Destroy
	msg = mustPanic(t, func() { v.Norm(Norm2) })
	if !strings.Contains(msg, "after Destroy") {
		t.Errorf("use after Destroy: panic %q", msg)
	}
	if err := v.Destroy(); err != nil {
		t.Errorf("second Destroy: %v", err)
	}
}

// A replicated array has no split: NewVec panics.
func TestVecReplicated(t *testing.T) {
	c := mpitest.World(t)
	a, err := dist.Zeros[float64](c, []int{4}, dist.SplitAxis(dist.Replicated))
	if err != nil {
		t.Fatal(err)
	}
	if msg := mustPanic(t, func() { NewVec(a) }); !strings.Contains(msg, "replicated") {
		t.Errorf("panic %q", msg)
	}
}

// A Vec over an array already freed is refused with an error that matches
// dist.ErrFreed, on every rank (also where the rank's block is empty, and
// for an empty array: freed is freed, whatever its size, as in dist).
func TestVecOverFreedArray(t *testing.T) {
	c := mpitest.World(t)
	for _, n := range []int{7, 1, 0} {
		a, err := dist.Full(c, []int{n}, 1.0)
		if err != nil {
			t.Fatal(err)
		}
		a.Free()
		var v *Vec
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("n=%d: NewVec of a freed array panicked: %v", n, r)
				}
			}()
			v, err = NewVec(a)
		}()
		if !errors.Is(err, dist.ErrFreed) || !strings.Contains(err.Error(), "freed") {
			if v != nil {
				v.Destroy()
			}
			t.Errorf("n=%d: NewVec of a freed array: %v, want an error matching dist.ErrFreed", n, err)
		}
	}
}
