//go:build race

package fakedev_test

// raceEnabled is true in a build with the race detector, which reports the
// deliberate races of some tests.
const raceEnabled = true
