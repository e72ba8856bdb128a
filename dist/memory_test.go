package dist_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/sysmem"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
)

func TestShapeLen(t *testing.T) {
	for _, c := range []struct {
		shape []int
		n     int
		large bool
		bad   bool
	}{
		{shape: []int{3, 4}, n: 12},
		{shape: []int{0, math.MaxInt}, n: 0},
		{shape: []int{math.MaxInt, 0}, n: 0},
		{shape: []int{math.MaxInt}, n: math.MaxInt},
		{shape: []int{4294967294, 4294967296}, large: true},
		{shape: []int{1 << 32, 1 << 31}, large: true},
		{shape: []int{2, 3, -1}, bad: true},
	} {
		n, err := dist.ShapeLen(c.shape)
		switch {
		case c.large:
			if !errors.Is(err, dist.ErrTooLarge) {
				t.Errorf("ShapeLen(%v) = %d, %v, want ErrTooLarge", c.shape, n, err)
			}
		case c.bad:
			if err == nil || errors.Is(err, dist.ErrTooLarge) {
				t.Errorf("ShapeLen(%v) = %d, %v, want a negative-dimension error", c.shape, n, err)
			}
		case err != nil || n != c.n:
			t.Errorf("ShapeLen(%v) = %d, %v, want %d", c.shape, n, err, c.n)
		}
	}
}

func TestLayoutOverflowPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "too large") {
			t.Fatalf("NewLayout of an overflowing shape: recovered %v, want a too-large panic", r)
		}
	}()
	dist.NewLayout([]int{4294967294, 4294967296}, 0, 1)
}

func TestMulBytes(t *testing.T) {
	if b, err := dist.MulBytes(1<<20, 8); err != nil || b != 8<<20 {
		t.Errorf("MulBytes(1 MiB, 8) = %d, %v", b, err)
	}
	if _, err := dist.MulBytes(math.MaxInt64/2+1, 2); !errors.Is(err, dist.ErrTooLarge) {
		t.Errorf("MulBytes overflowing: %v, want ErrTooLarge", err)
	}
	if _, err := dist.MulBytes(-1, 2); err == nil {
		t.Error("MulBytes(-1, 2): no error")
	}
}

// CheckMemory agrees on every rank: a small need fits everywhere, and an
// impossible one fails everywhere with the same MemoryError.
func TestCheckMemory(t *testing.T) {
	c := mpitest.World(t)
	if err := dist.CheckMemory(c, "a small job", 1<<20); err != nil {
		t.Fatalf("1 MiB per rank: %v", err)
	}
	if err := dist.CheckMemory(c, "nothing", 0); err != nil {
		t.Fatalf("0 bytes per rank: %v", err)
	}
	err := dist.CheckMemory(c, "a huge job", math.MaxInt64/2)
	var me *dist.MemoryError
	if _, merr := sysmem.Available(); merr != nil {
		t.Skip("no memory information here:", merr)
	}
	if !errors.As(err, &me) || !errors.Is(err, dist.ErrTooLarge) {
		t.Fatalf("4 EiB per rank: %v, want a *MemoryError", err)
	}
	if me.Rank != 0 || me.Need != math.MaxInt64/2 || me.NodeRanks < 1 || me.Available == 0 {
		t.Fatalf("MemoryError %+v: want rank 0, the need, the node's ranks and memory", *me)
	}
	if !strings.Contains(err.Error(), "a huge job needs 4.0 EiB per rank") {
		t.Fatalf("message %q", err)
	}
}
