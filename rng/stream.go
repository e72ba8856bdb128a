package rng

// Stream is a sequential generator for one (Seed, ID) pair. Each call uses
// the Philox block for (Seed, stream = ID, counter = Counter) and then
// increments Counter by one, so a Stream is a cursor over the same
// pure functions as Uniform2, Normal2 and IntN: with Counter = c,
// s.Uniform() returns u0 of Uniform2(s.Seed, s.ID, c), which is also
// element s.ID of FillUniform(dst, s.Seed, 0, c).
//
// The zero value is a valid generator with seed 0, stream 0, counter 0.
// Setting Counter seeks. A Stream is not safe for concurrent use; give each
// goroutine its own.
//
// When ID is a rank number, the numbers depend on the number of ranks: a
// program that runs on a different number of ranks sees different values.
// For arrays that must not depend on the number of ranks use the Fill
// functions, which use the global element index as the stream.
//
// Stream implements the Source interface of math/rand/v2 through Uint64, so
// rand.New(&rng.Stream{Seed: s}) gives the distributions of that package.
type Stream struct {
	// Seed is the Philox key.
	Seed uint64
	// ID is the stream identifier, for example a rank or a particle id.
	ID uint64
	// Counter is the counter of the next draw.
	Counter uint64
}

// next returns the two words of the current block and advances the counter.
func (s *Stream) next() (x0, x1 uint64) {
	x0, x1 = block(s.Seed, s.ID, s.Counter)
	s.Counter++
	return x0, x1
}

// Uniform returns u0 of Uniform2(s.Seed, s.ID, s.Counter), a deviate in
// [0, 1), and advances the counter by one.
func (s *Stream) Uniform() float64 {
	x0, _ := s.next()
	return toFloat64(x0)
}

// Uniform2 returns Uniform2(s.Seed, s.ID, s.Counter) and advances the
// counter by one.
func (s *Stream) Uniform2() (u0, u1 float64) {
	x0, x1 := s.next()
	return toFloat64(x0), toFloat64(x1)
}

// Normal returns z0 of Normal2(s.Seed, s.ID, s.Counter), a standard normal
// deviate, and advances the counter by one.
func (s *Stream) Normal() float64 {
	z0, _ := s.Normal2()
	return z0
}

// Normal2 returns Normal2(s.Seed, s.ID, s.Counter) and advances the counter
// by one.
func (s *Stream) Normal2() (z0, z1 float64) {
	return boxMuller(s.Uniform2())
}

// IntN returns IntN(s.Seed, s.ID, s.Counter, n), a uniform integer in
// [0, n), and advances the counter by one whatever the number of
// rejections. It panics if n is zero.
func (s *Stream) IntN(n uint64) uint64 {
	if n == 0 {
		panic("rng: Stream.IntN called with n == 0")
	}
	x0, x1 := s.next()
	return lemire(s.Seed, x0, x1, n)
}

// Uint64 returns the word w1<<32 | w0 of the Philox block for
// (s.Seed, s.ID, s.Counter), 64 uniformly random bits, and advances the
// counter by one.
func (s *Stream) Uint64() uint64 {
	x0, _ := s.next()
	return x0
}
