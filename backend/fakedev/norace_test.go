//go:build !race

package fakedev_test

const raceEnabled = false
