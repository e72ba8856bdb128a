// Package proftest holds test helpers over package profiling: assert that a
// block moves no data between host and device, and check a transfer budget.
package proftest

import (
	"testing"

	"github.com/xpmpi/xpmpi/profiling"
)

// NoTransfers runs f and fails t (with t.Error, listing every event) if f
// recorded a transfer event other than a device copy or a sync (syncs too
// with profiling.IncludeSyncs()). f may call t.Fatal: that ends the test as
// usual. It returns whether f kept the rule.
//
//	proftest.NoTransfers(t, func() {
//		for range 100 {
//			step()
//		}
//	})
func NoTransfers(t testing.TB, f func(), opts ...profiling.AssertOption) bool {
	t.Helper()
	err := profiling.AssertNoTransfers(func() error { f(); return nil }, opts...)
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

// CheckBudget fails t (with t.Error, listing every violation) if b was not
// kept, and returns whether it was.
func CheckBudget(t testing.TB, b *profiling.Budget) bool {
	t.Helper()
	if err := b.Check(); err != nil {
		t.Errorf("transfer budget not kept:\n%v", err)
		return false
	}
	return true
}
