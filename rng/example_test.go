package rng_test

import (
	"fmt"

	"github.com/xpmpi/xpmpi/rng"
)

// Philox4x32_10 on the first Random123 known-answer vector.
func Example_philox() {
	out := rng.Philox4x32_10([4]uint32{0, 0, 0, 0}, [2]uint32{0, 0})
	fmt.Printf("%08x\n", out)
	// Output:
	// [6627e8d5 e169c58d bc57ac4c 9b00dbd8]
}

// A global array of 10 uniforms filled by two ranks, each writing its own
// block with its global offset, equals the array filled at once.
func ExampleFillUniform() {
	const seed, draw = 2024, 0
	whole := make([]float64, 10)
	rng.FillUniform(whole, seed, 0, draw)

	rank0 := make([]float64, 6) // global elements 0..5
	rank1 := make([]float64, 4) // global elements 6..9
	rng.FillUniform(rank0, seed, 0, draw)
	rng.FillUniform(rank1, seed, 6, draw)

	fmt.Println(rank0[5] == whole[5], rank1[0] == whole[6], rank1[3] == whole[9])
	// Output:
	// true true true
}

func ExampleStream() {
	// A per-rank generator: with ID set to the rank, the values depend on
	// the number of ranks.
	s := &rng.Stream{Seed: 1, ID: 0}
	a := s.Uniform()
	b := s.Uniform()
	u0, _ := rng.Uniform2(1, 0, 1) // the second draw uses counter 1
	fmt.Println(a != b, b == u0, s.Counter)
	// Output:
	// true true 2
}
