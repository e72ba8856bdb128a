package dist

import (
	"errors"
	"fmt"
	"math"

	"github.com/xpmpi/xpmpi/internal/sysmem"
	"github.com/xpmpi/xpmpi/mpi"
)

// ErrTooLarge is the error, wrapped, of a size that does not fit in an int
// or of memory a job needs and the nodes do not have.
var ErrTooLarge = errors.New("too large")

// ShapeLen returns the number of elements of shape, or an error wrapping
// ErrTooLarge where the product overflows an int (and one for a negative
// dimension). Use it on sizes from user input before making a Layout,
// which panics on them.
func ShapeLen(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("dist: negative dimension in shape %v", shape)
		}
		if d != 0 && n > math.MaxInt/d {
			return 0, fmt.Errorf("dist: shape %v has more than %d elements: %w", shape, math.MaxInt, ErrTooLarge)
		}
		n *= d
	}
	return n, nil
}

// MulBytes returns a*b for the byte counts of an allocation, or an error
// wrapping ErrTooLarge where it overflows an int64 (or an operand is
// negative).
func MulBytes(a, b int64) (int64, error) {
	if a < 0 || b < 0 {
		return 0, fmt.Errorf("dist: negative size %d x %d", a, b)
	}
	if a != 0 && b > math.MaxInt64/a {
		return 0, fmt.Errorf("dist: %d x %d bytes: %w", a, b, ErrTooLarge)
	}
	return a * b, nil
}

// MemoryError is CheckMemory's error: what a job needs per rank and what
// the first node short of memory has. It wraps ErrTooLarge.
type MemoryError struct {
	What      string // the job, as the caller named it
	Need      int64  // bytes per rank
	Rank      int    // the first rank whose node is short
	NodeRanks int    // ranks on that node, which share its memory
	Available uint64 // bytes available on that node
	Source    string // where Available was read: "MemAvailable" or "cgroup"
}

func (e *MemoryError) Error() string {
	ranks := "its 1 rank"
	if e.NodeRanks != 1 {
		ranks = fmt.Sprintf("its %d ranks", e.NodeRanks)
	}
	return fmt.Sprintf("%s needs %s per rank, and rank %d's node has %s available (%s) for %s",
		e.What, sysmem.Bytes(uint64(e.Need)), e.Rank, sysmem.Bytes(e.Available), e.Source, ranks)
}

func (e *MemoryError) Unwrap() error { return ErrTooLarge }

// CheckMemory reports whether need bytes per rank fit in the memory of
// every rank's node, where the ranks on one node share what it has
// available (the smaller of MemAvailable and the control group's limit
// less its usage). It is collective: every rank returns nil, or every rank
// returns the same *MemoryError, about the first rank whose node is short.
// what names the job in the message. A node whose memory cannot be read
// counts as large enough.
func CheckMemory(c mpi.Comm, what string, need int64) error {
	_, local := mpi.NodeRank()
	if local < 1 {
		local = 1
	}
	avail, err := sysmem.Available()
	short := err == nil && need > 0 && (need > math.MaxInt64/int64(local) || uint64(need)*uint64(local) > avail.Bytes)
	flag := c.Size()
	if short {
		flag = c.Rank()
	}
	first, err := mpi.AllreduceValue(c, int64(flag), mpi.Min)
	if err != nil {
		return err
	}
	if int(first) == c.Size() {
		return nil
	}
	// The first rank short of memory tells the others what it has.
	info := []int64{int64(avail.Bytes), int64(local), 0}
	if avail.Source != "MemAvailable" {
		info[2] = 1
	}
	if err := mpi.Bcast(c, info, int(first)); err != nil {
		return err
	}
	src := "MemAvailable"
	if info[2] == 1 {
		src = "cgroup"
	}
	return &MemoryError{What: what, Need: need, Rank: int(first), NodeRanks: int(info[1]), Available: uint64(info[0]), Source: src}
}
