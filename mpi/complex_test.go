package mpi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

// cval is the complex test value of element i on rank r: small integer
// parts, so that sums and products are exact in any order.
func cval(r, i int) complex128 {
	return complex(float64((r+i)%3+1), float64((r*7+i)%5-2))
}

// testComplex checks the collectives of one complex type: Sum and Prod
// (the reductions MPI defines on MPI_C_FLOAT_COMPLEX and
// MPI_C_DOUBLE_COMPLEX), AllreduceValue, and moves.
func testComplex[T complex64 | complex128](t *testing.T, c mpi.Comm) {
	p, me := c.Size(), c.Rank()
	for _, op := range []mpi.Op{mpi.Sum, mpi.Prod} {
		for _, n := range []int{0, 1, 3, 1001} {
			send := make([]T, n)
			want := make([]T, n)
			for i := range send {
				send[i] = T(cval(me, i))
				w := cval(0, i)
				for r := 1; r < p; r++ {
					if op == mpi.Sum {
						w += cval(r, i)
					} else {
						w *= cval(r, i)
					}
				}
				want[i] = T(w)
			}
			got := make([]T, n)
			if err := mpi.Allreduce(c, send, got, op); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("Allreduce %v n=%d [%d]: got %v, want %v", op, n, i, got[i], want[i])
				}
			}
			for root := 0; root < p; root++ {
				var rec []T
				if me == root {
					rec = make([]T, n)
				}
				if err := mpi.Reduce(c, send, rec, op, root); err != nil {
					t.Fatal(err)
				}
				for i := range rec {
					if rec[i] != want[i] {
						t.Fatalf("Reduce %v root %d [%d]: got %v, want %v", op, root, i, rec[i], want[i])
					}
				}
			}
		}
	}
	v, err := mpi.AllreduceValue(c, T(cval(me, 0)), mpi.Sum)
	var w complex128
	for r := 0; r < p; r++ {
		w += cval(r, 0)
	}
	if err != nil || v != T(w) {
		t.Fatalf("AllreduceValue = %v, %v; want %v", v, err, w)
	}
	all := make([]T, 2*p)
	if err := mpi.Allgather(c, []T{T(cval(me, 0)), T(cval(me, 1))}, all); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < p; r++ {
		if all[2*r] != T(cval(r, 0)) || all[2*r+1] != T(cval(r, 1)) {
			t.Fatalf("Allgather: %v", all)
		}
	}
	for _, op := range []mpi.Op{mpi.Min, mpi.Max, mpi.LAnd, mpi.LOr} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "not defined on complex") {
					t.Fatalf("Allreduce %v of complex: panic %v", op, r)
				}
			}()
			mpi.AllreduceInPlace(c, []T{1}, op)
		}()
	}
}

func TestReduceComplex(t *testing.T) {
	c := mpitest.World(t)
	t.Run("complex64", func(t *testing.T) { testComplex[complex64](t, c) })
	t.Run("complex128", func(t *testing.T) { testComplex[complex128](t, c) })
	type myComplex complex128 // a defined type over complex128
	if mpi.TypeOf[myComplex]() != mpi.Complex128 || mpi.TypeOf[complex64]() != mpi.Complex64 {
		t.Fatalf("TypeOf: %v %v", mpi.TypeOf[myComplex](), mpi.TypeOf[complex64]())
	}
	if mpi.Complex64.Size() != 8 || mpi.Complex128.Size() != 16 {
		t.Fatalf("sizes %d %d", mpi.Complex64.Size(), mpi.Complex128.Size())
	}
}
