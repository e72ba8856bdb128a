//go:build !race

package backendtest

// raceEnabled reports whether the race detector is on (go test -race).
const raceEnabled = false
