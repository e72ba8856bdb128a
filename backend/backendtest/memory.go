package backendtest

import (
	"testing"
	"unsafe"

	"github.com/xpmpi/xpmpi/backend/driver"
)

// alloc checks that Alloc makes zeroed buffers of the right length, type
// and device, also where the memory was used and freed before.
func (s *suite[T]) alloc(t *testing.T) {
	r := rng(t, 0)
	for _, n := range s.sizes() {
		buf, err := s.b.Alloc(s.dtype(), n)
		if err != nil {
			t.Fatalf("Alloc(%v, %d): %v", s.dtype(), n, err)
		}
		if buf.Len() != n || buf.DType() != s.dtype() || buf.Device() != s.b.Device() {
			t.Errorf("Alloc(%v, %d) made a buffer of %d %v on %v, want %d %v on %v",
				s.dtype(), n, buf.Len(), buf.DType(), buf.Device(), n, s.dtype(), s.b.Device())
		}
		if n == 0 && buf.Ptr() != nil {
			t.Errorf("Alloc(%v, 0).Ptr() = %p, want nil", s.dtype(), buf.Ptr())
		}
		if n > 0 && buf.Ptr() == nil {
			t.Errorf("Alloc(%v, %d).Ptr() is nil", s.dtype(), n)
		}
		checkSame(t, sizeName(n)+": new buffer", s.download(t, buf), make([]T, n))
		// Dirty the memory, free it, and allocate again: still zeroed.
		if n > 0 {
			v := s.one(r)
			if v == 0 {
				v = 1
			}
			s.b.Fill(buf, driver.ScalarOf(v))
		}
		s.b.Free(buf)
		again, err := s.b.Alloc(s.dtype(), n)
		if err != nil {
			t.Fatalf("Alloc(%v, %d) after Free: %v", s.dtype(), n, err)
		}
		checkSame(t, sizeName(n)+": buffer allocated after Free", s.download(t, again), make([]T, n))
		s.b.Free(again)
	}
}

// copyHost checks that CopyFromHost then CopyToHost round-trips bitwise.
func (s *suite[T]) copyHost(t *testing.T) {
	for _, n := range s.sizes() {
		x := s.random(rng(t, n), n)
		buf := s.upload(t, x)
		checkSame(t, sizeName(n)+": round trip", s.download(t, buf), x)
		// Into the middle of a larger host slice: only n elements written.
		host := make([]T, n+2)
		host[0], host[n+1] = 7, 9
		if err := s.b.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			if err := s.b.CopyToHost(unsafe.Pointer(&host[1]), buf); err != nil {
				t.Fatal(err)
			}
		}
		checkSame(t, sizeName(n)+": copy into a larger slice", host[1:n+1], x)
		if host[0] != 7 || host[n+1] != 9 {
			t.Errorf("n=%d: CopyToHost wrote outside its %d elements", n, n)
		}
		s.b.Free(buf)
	}
}

// slice checks views: lengths, sharing, nesting and empty views.
func (s *suite[T]) slice(t *testing.T) {
	const n = 100
	x := s.random(rng(t, n), n)
	buf := s.upload(t, x)
	for _, c := range [][2]int{{0, 0}, {0, n}, {0, 1}, {n - 1, n}, {13, 57}, {50, 50}, {n, n}} {
		v := s.b.Slice(buf, c[0], c[1])
		if v.Len() != c[1]-c[0] || v.DType() != s.dtype() || v.Device() != s.b.Device() {
			t.Errorf("Slice(%d, %d): %d %v on %v", c[0], c[1], v.Len(), v.DType(), v.Device())
		}
		if v.Len() == 0 && v.Ptr() != nil {
			t.Errorf("Slice(%d, %d).Ptr() = %p, want nil", c[0], c[1], v.Ptr())
		}
		checkSame(t, "view", s.download(t, v), x[c[0]:c[1]])
	}
	// A view of a view.
	v := s.b.Slice(s.b.Slice(buf, 10, 90), 5, 20)
	checkSame(t, "view of a view", s.download(t, v), x[15:30])
	// Writing through a view changes the parent there only.
	val := s.one(rng(t, 1))
	s.b.Fill(v, driver.ScalarOf(val))
	want := append([]T(nil), x...)
	for i := 15; i < 30; i++ {
		want[i] = val
	}
	checkSame(t, "parent after Fill of a view", s.download(t, buf), want)
	s.b.Free(buf)
}

// views runs every operation on views inside larger buffers and checks
// that the elements outside the views are untouched and the results are
// those on the view's elements.
func (s *suite[T]) views(t *testing.T) {
	const n = 1000
	const lo, hi = 123, 789 // view [lo, hi): odd offset and length
	r := rng(t, n)
	xh, yh, dh := s.random(r, n), s.random(r, n), s.random(r, n)
	if !s.isFloat() {
		for i := range yh {
			if yh[i] == 0 {
				yh[i] = 1
			}
		}
	}
	a := s.one(r)
	type opCase struct {
		name string
		run  func(d, x, y driver.Buffer)
		ref  func(d, x, y []T) // on the view's elements, in place on d
	}
	cases := []opCase{
		{"Fill", func(d, x, y driver.Buffer) { s.b.Fill(d, driver.ScalarOf(a)) },
			func(d, x, y []T) {
				for i := range d {
					d[i] = a
				}
			}},
		{"Copy", func(d, x, y driver.Buffer) { s.b.Copy(d, x) },
			func(d, x, y []T) { copy(d, x) }},
		{"Scale", func(d, x, y driver.Buffer) { s.b.Scale(d, driver.ScalarOf(a)) },
			func(d, x, y []T) {
				for i := range d {
					d[i] *= a
				}
			}},
		{"Axpy", func(d, x, y driver.Buffer) { s.b.Axpy(driver.ScalarOf(a), x, d) },
			func(d, x, y []T) {
				for i := range d {
					d[i] = T(a*x[i]) + d[i]
				}
			}},
		{"Binary", func(d, x, y driver.Buffer) { s.b.Binary(driver.Div, d, x, y) },
			func(d, x, y []T) {
				for i := range d {
					d[i] = x[i] / y[i]
				}
			}},
		{"BinaryScalar", func(d, x, y driver.Buffer) { s.b.BinaryScalar(driver.Sub, d, x, driver.ScalarOf(a)) },
			func(d, x, y []T) {
				for i := range d {
					d[i] = x[i] - a
				}
			}},
	}
	for _, c := range cases {
		d, x, y := s.upload(t, dh), s.upload(t, xh), s.upload(t, yh)
		c.run(s.b.Slice(d, lo, hi), s.b.Slice(x, lo, hi), s.b.Slice(y, lo, hi))
		want := append([]T(nil), dh...)
		c.ref(want[lo:hi], xh[lo:hi], yh[lo:hi])
		got := s.download(t, d)
		if c.name == "Axpy" && s.isFloat() {
			checkAxpy(t, "Axpy on a view", a, xh[lo:hi], dh[lo:hi], got[lo:hi])
			checkSame(t, "Axpy on a view: outside the view", got[:lo], dh[:lo])
			checkSame(t, "Axpy on a view: outside the view", got[hi:], dh[hi:])
		} else {
			checkSame(t, c.name+" on a view", got, want)
		}
		checkSame(t, c.name+" on a view: x", s.download(t, x), xh)
		checkSame(t, c.name+" on a view: y", s.download(t, y), yh)
		s.b.Free(d)
		s.b.Free(x)
		s.b.Free(y)
	}
	// Reductions of a view see only its elements.
	x, y := s.upload(t, xh), s.upload(t, yh)
	xv, yv := s.b.Slice(x, lo, hi), s.b.Slice(y, lo, hi)
	s.checkSum(t, "Sum of a view", s.b.Sum(xv), xh[lo:hi])
	s.checkDot(t, "Dot of views", s.b.Dot(xv, yv), xh[lo:hi], yh[lo:hi])
	i, v := s.b.Argmin(xv)
	s.checkArg(t, "Argmin of a view", i, v, xh[lo:hi], false)
	i, v = s.b.Argmax(xv)
	s.checkArg(t, "Argmax of a view", i, v, xh[lo:hi], true)
	s.b.Free(x)
	s.b.Free(y)
}
