package solvers

import (
	"errors"
	"fmt"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/sysmem"
)

// MemoryError turns the error of dist.CheckMemory for a solver's grid of n
// interior points per side on p ranks into the *ConfigError about
// Config.N: the memory error's own text, and the rank count at which the
// grid would fit with as many ranks per node as now. A rank of r rows
// needs perRow*r + fixed rows of n+2 float64. An error that is not a
// *dist.MemoryError (nil included) is returned as it is.
func MemoryError(solver string, n, p int, err error, perRow, fixed uint64) error {
	var me *dist.MemoryError
	if !errors.As(err, &me) {
		return err
	}
	it := *me
	it.What = "it"
	reason := it.Error()
	perRank := me.Available / uint64(me.NodeRanks)
	rowBytes := uint64(n+2) * 8
	if perRank/rowBytes < perRow+fixed {
		reason += fmt.Sprintf("; no rank count fits: one row per rank needs %s per rank", sysmem.Bytes((perRow+fixed)*rowBytes))
	} else {
		rows := (perRank/rowBytes - fixed) / perRow
		ranks := (uint64(n) + rows - 1) / rows
		reason += fmt.Sprintf("; it fits on %d or more ranks, %d per node like this one", ranks, me.NodeRanks)
	}
	return &ConfigError{Solver: solver, Field: "N", Value: n, Ranks: p, Reason: reason, Err: err}
}
