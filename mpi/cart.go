package mpi

import (
	"fmt"
	"hash/fnv"
	"slices"
)

// DimsCreate returns a grid of ndims dimensions with n nodes in all, as
// balanced as it can be, in non-increasing order, as MPI_Dims_create does
// with zeros in dims: of all the ways to factor n, the one whose largest
// and smallest free dimensions differ least (then the one with the
// smallest largest dimension). dims, if not nil, fixes the dimensions
// where it is positive (the others are chosen); n must be a multiple of
// their product. It needs no MPI: a program plans a grid for any number of
// ranks with it. The libraries' own MPI_Dims_create is not always as
// balanced: Open MPI 4.1 gives 12 x 6 for 72 nodes in 2 dimensions, where
// this (and MPICH) gives 9 x 8; the tests check that DimsCreate is never
// less balanced than either.
func DimsCreate(n, ndims int, dims []int) ([]int, error) {
	if n < 1 || ndims < 1 {
		panic(fmt.Sprintf("mpi: DimsCreate(%d, %d): want at least one node and one dimension", n, ndims))
	}
	if dims != nil && len(dims) != ndims {
		panic(fmt.Sprintf("mpi: DimsCreate: %d fixed dimensions for %d", len(dims), ndims))
	}
	out := make([]int, ndims)
	fixed, free := 1, 0
	for i := range out {
		if dims != nil && dims[i] < 0 {
			panic(fmt.Sprintf("mpi: DimsCreate: negative dimension %d", dims[i]))
		}
		if dims != nil && dims[i] > 0 {
			out[i] = dims[i]
			fixed *= dims[i]
		} else {
			free++
		}
	}
	if n%fixed != 0 {
		return nil, errorf("DimsCreate", "%d nodes do not fill a grid whose fixed dimensions %v have %d", n, dims, fixed)
	}
	m := n / fixed
	if free == 0 {
		if m != 1 {
			return nil, errorf("DimsCreate", "the fixed dimensions %v hold %d nodes, not %d", dims, fixed, n)
		}
		return out, nil
	}
	prods := balanced(m, free)
	j := 0
	for i := range out {
		if out[i] == 0 {
			out[i] = prods[j]
			j++
		}
	}
	return out, nil
}

// balanced returns the factorization of m into k factors, in
// non-increasing order, whose largest and smallest factors differ least,
// then whose largest is smallest: a search over the non-increasing
// factorizations.
func balanced(m, k int) []int {
	var best []int
	cur := make([]int, 0, k)
	better := func(f []int) bool {
		if best == nil {
			return true
		}
		d, bd := f[0]-f[len(f)-1], best[0]-best[len(best)-1]
		return d < bd || (d == bd && f[0] < best[0])
	}
	var search func(rest, maxf, left int)
	search = func(rest, maxf, left int) {
		if left == 1 {
			if rest <= maxf {
				f := append(slices.Clone(cur), rest)
				if better(f) {
					best = f
				}
			}
			return
		}
		// The next factor is at most maxf and at least the left-th root of
		// rest, since the factors after it are no larger.
		for f := min(maxf, rest); f >= 1; f-- {
			if rest%f != 0 {
				continue
			}
			if pow(f, left) < rest {
				break
			}
			cur = append(cur, f)
			search(rest/f, f, left-1)
			cur = cur[:len(cur)-1]
		}
	}
	search(m, m, k)
	return best
}

// pow returns b**e, saturated at a large value.
func pow(b, e int) int {
	r := 1
	for range e {
		if r > 1<<40/max(b, 1) {
			return 1 << 40
		}
		r *= b
	}
	return r
}

// Cart is a communicator whose ranks form a Cartesian grid, as one from
// MPI_Cart_create: rank r sits at Coords(r), the grid's positions in
// row-major order (the last dimension varies fastest), and a dimension may
// be periodic. Its queries (Coords, RankAt, Shift) are local.
type Cart struct {
	Comm
	dims    []int
	periods []bool
}

// CartCreate returns a communicator of the first prod(dims) ranks of c
// arranged as a grid of dims (periodic along the dimensions where periods
// is true), or nil on the ranks left out. With reorder, MPI may number the
// ranks anew to suit the machine. It is collective; dims, periods and
// reorder must be the same on every rank.
//
// It panics if dims has a dimension below 1 or more nodes than c has
// ranks, or if periods' length differs.
func CartCreate(c Comm, dims []int, periods []bool, reorder bool) (*Cart, error) {
	n := 1
	for _, d := range dims {
		if d < 1 {
			panic(fmt.Sprintf("mpi: CartCreate with dimensions %v", dims))
		}
		n *= d
	}
	if len(dims) == 0 || len(periods) != len(dims) || n > c.Size() {
		panic(fmt.Sprintf("mpi: CartCreate of a grid %v (periodic %v) on %d ranks", dims, periods, c.Size()))
	}
	h := fnv.New64a()
	for i, d := range dims {
		fmt.Fprintf(h, "%d:%v,", d, periods[i])
	}
	grid := Arg{Name: "grid", Value: int64(h.Sum64()), Text: fmt.Sprintf("%v periodic %v", dims, periods)}
	if err := CheckCollective(c, "CartCreate", grid, Arg{Name: "reorder", Value: b2i(reorder)}); err != nil {
		return nil, err
	}
	defer leave()
	var g Comm
	var err error
	if cc, ok := unwrap(c).(cartCreator); ok {
		g, err = cc.cartCreate(dims, periods, reorder)
	} else {
		// Without a topology of the library's: the first n ranks in
		// order, which is what MPI gives without reordering.
		color := 0
		if c.Rank() >= n {
			color = Undefined
		}
		g, err = unwrap(c).Split(color, c.Rank())
	}
	if err != nil || g == nil {
		return nil, err
	}
	return &Cart{Comm: wrap(g), dims: slices.Clone(dims), periods: slices.Clone(periods)}, nil
}

// cartCreator is a communicator of an MPI library that makes Cartesian
// communicators itself (MPI_Cart_create).
type cartCreator interface {
	cartCreate(dims []int, periods []bool, reorder bool) (Comm, error)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Dims returns the grid's dimensions.
func (g *Cart) Dims() []int { return slices.Clone(g.dims) }

// Periods returns which dimensions are periodic.
func (g *Cart) Periods() []bool { return slices.Clone(g.periods) }

// Coords returns the grid position of rank r. It panics for a rank outside
// the communicator.
func (g *Cart) Coords(r int) []int {
	if r < 0 || r >= g.Size() {
		panic(fmt.Sprintf("mpi: Coords of rank %d in a grid of %d", r, g.Size()))
	}
	c := make([]int, len(g.dims))
	for i := len(g.dims) - 1; i >= 0; i-- {
		c[i] = r % g.dims[i]
		r /= g.dims[i]
	}
	return c
}

// RankAt returns the rank at grid position coords: coordinates out of
// range wrap around along periodic dimensions, and give ProcNull along
// the others.
func (g *Cart) RankAt(coords []int) int {
	if len(coords) != len(g.dims) {
		panic(fmt.Sprintf("mpi: RankAt of %d coordinates in a grid of %d dimensions", len(coords), len(g.dims)))
	}
	r := 0
	for i, c := range coords {
		d := g.dims[i]
		if c < 0 || c >= d {
			if !g.periods[i] {
				return ProcNull
			}
			c = ((c % d) + d) % d
		}
		r = r*d + c
	}
	return r
}

// Shift returns the ranks a shift by disp along dimension dim sends to and
// receives from, as MPI_Cart_shift: dest is the rank disp positions ahead
// of the caller, source the rank disp positions behind, either ProcNull
// off the edge of a non-periodic dimension.
func (g *Cart) Shift(dim, disp int) (source, dest int) {
	if dim < 0 || dim >= len(g.dims) {
		panic(fmt.Sprintf("mpi: Shift along dimension %d of a grid of %d", dim, len(g.dims)))
	}
	c := g.Coords(g.Rank())
	at := func(off int) int {
		cc := slices.Clone(c)
		cc[dim] += off
		return g.RankAt(cc)
	}
	return at(-disp), at(disp)
}
