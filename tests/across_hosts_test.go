//go:build mpi

package tests

import "testing"

// TestHosts runs the tests that use the simulated hosts (multihost_test.go)
// one after another, since they take links down and bring the hosts down
// and up: a rank killed on the second host, the link taken down, traffic
// by node, and jobs on a Slurm cluster of the two hosts. It runs in parallel with the tests that do not use the hosts:
// processes are found by network namespace (ranksIn), so other tests'
// ranks are not seen. As one test it holds one of go test's -parallel
// slots, where three tests waiting for one another's turn held three.
//
// It is the longest of the tests, and mostly waits on TCP's and the
// launchers' timers, so it should start first of the parallel tests: go
// test starts them in about the order of their declaration, hence this
// file of its own, whose name sorts first.
func TestHosts(t *testing.T) {
	t.Parallel() // see doc.go
	hostsUp(t)   // once for all (down at the end if it was down)
	t.Run("RankKilled", hostsRankKilled)
	t.Run("LinkDown", hostsLinkDown)
	t.Run("TrafficByNode", hostsTrafficByNode)
	t.Run("LauncherKilled", hostsLauncherKilled)
	t.Run("Slurm", hostsSlurm) // slurm_test.go
}
