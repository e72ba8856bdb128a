package linalg

import (
	"fmt"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
)

// Outer returns the outer product of a and b, as numpy.outer(a, b): the
// m x n matrix of a[i]*b[j], m and n the sizes of a and b (arrays of more
// than one axis are flattened first, as NumPy does, with dist.Reshape).
// It takes every element type; integer products wrap, as NumPy's; complex
// values are not conjugated.
//
// Layout: for a split along axis 0 (any block sizes, ghost layers or not)
// the result is split along axis 0 with a's block sizes; for a replicated
// a it is replicated. It is on a's backend: each rank multiplies its
// elements of a by the whole of b, an m_r x 1 by 1 x n product on the
// device (dist.MatMul's GEMM with an inner dimension of 1: each element
// is one rounded product, NumPy's value).
//
// Communication: b is gathered on every rank (one all-gather of n
// elements) unless it is replicated; a moves only where flattening an
// N-D a needs it (dist.Reshape's all-to-all, after a redistribution to row
// blocks for an a on a process grid). Arrays on different communicators
// or devices, and freed arrays (dist.ErrFreed), are errors.
func Outer[T backend.Numeric](a, b *dist.Array[T]) (_ *dist.Array[T], err error) {
	const op = "Outer"
	if anyFreed(a, b) {
		return nil, freed(op, a.Comm())
	}
	if a.Comm() != b.Comm() {
		return nil, fmt.Errorf("linalg: Outer: a and b are on different communicators")
	}
	if a.Device() != b.Device() {
		return nil, fmt.Errorf("linalg: Outer: a on %v and b on %v: move one to the other's device (dist.Astype with dist.OnBackend)", a.Device(), b.Device())
	}
	if err := check(op, a, b); err != nil {
		return nil, err
	}
	var tmp []*dist.Array[T]
	defer func() {
		for _, x := range tmp {
			x.Free()
		}
	}()
	keep := func(x *dist.Array[T], err error) (*dist.Array[T], error) {
		if err == nil {
			tmp = append(tmp, x)
		}
		return x, err
	}
	m, n := a.Len(), b.Len()
	af := a
	if len(a.Shape()) != 1 {
		if a.Layout().Axis() == dist.Grid {
			// dist.Reshape takes arrays split on one axis.
			if af, err = keep(dist.Resplit(a, 0)); err != nil {
				return nil, err
			}
		}
		if af, err = keep(dist.Reshape(af, m)); err != nil {
			return nil, err
		}
	}
	bf := b
	if bf.Layout().Axis() != dist.Replicated {
		if bf, err = keep(dist.Resplit(b, dist.Replicated)); err != nil {
			return nil, err
		}
	}
	if len(bf.Shape()) != 1 {
		if bf, err = keep(dist.Reshape(bf, n)); err != nil {
			return nil, err
		}
	}
	a2, err := keep(dist.Reshape(af, m, 1))
	if err != nil {
		return nil, err
	}
	b2, err := keep(dist.Reshape(bf, 1, n))
	if err != nil {
		return nil, err
	}
	return dist.MatMul(a2, b2)
}
