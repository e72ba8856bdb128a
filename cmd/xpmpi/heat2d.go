package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/sysmem"
	"github.com/xpmpi/xpmpi/mpi"
)

// heatConfig is one run of the 2-D heat equation.
type heatConfig struct {
	N     int // interior points per side
	Iters int // Jacobi iterations
	// Progress, if set, is called on rank 0 after each iteration.
	Progress func(done int)
	// Gather asks for the final field on rank 0.
	Gather bool
	// Checkpoint, if set, is the directory where the field is saved every
	// Every iterations and at the end.
	Checkpoint string
	Every      int
	// Restart, if set, is a checkpoint directory to continue from: the run
	// then does the iterations from the checkpoint's step to Iters.
	Restart string
}

// heatResult is what a run reports, the same on every rank except Field.
type heatResult struct {
	Checksum   float64   // sum of u over the n x n interior points
	PerIter    float64   // seconds per iteration, slowest rank
	Ranks      int       // ranks in the run
	Field      []float64 // rank 0 with Gather: the n x (n+2) rows of the interior and side walls
	FieldShape []int
}

// solveHeat runs the Jacobi iteration for the 2-D heat equation on an n x n
// interior with fixed boundary values: u = 1 on the top edge, 0 on the
// other three. The interior rows are split into row blocks over the ranks,
// each with one ghost row on either side; every iteration exchanges the
// ghost rows and replaces each interior value by the average of its four
// neighbours.
func solveHeat(world mpi.Comm, cfg heatConfig) (heatResult, error) {
	if err := checkHeatConfig(cfg); err != nil {
		return heatResult{}, err
	}
	if err := checkHeatMemory(world, cfg.N); err != nil {
		return heatResult{}, err
	}
	n := cfg.N
	cols := n + 2 // the side walls are columns 0 and n+1
	layout := dist.NewLayout([]int{n, cols}, 0, world.Size())
	b := backend.Current()
	u, err := dist.NewHalo[float64](world, layout, 1, b)
	if err != nil {
		return heatResult{}, err
	}
	v, err := dist.NewHalo[float64](world, layout, 1, b)
	if err != nil {
		return heatResult{}, err
	}
	lo, hi := layout.Range(world.Rank())
	rows := hi - lo + 2
	// The top edge is the ghost row above global row 0, which no exchange
	// writes; the walls and the bottom edge stay 0.
	if lo == 0 && hi > 0 {
		for _, h := range []*dist.Halo[float64]{u, v} {
			backend.Fill(h.Local().Slice(0, cols), 1)
		}
	}
	first := 0
	field, err := dist.New[float64](world, layout, b)
	if err != nil {
		return heatResult{}, err
	}
	if cfg.Restart != "" {
		if first, err = restartHeat(world, cfg, field); err != nil {
			return heatResult{}, err
		}
		u.CopyFrom(field)
	}
	save := func(step int) error {
		u.CopyTo(field)
		meta := map[string]string{"app": "heat2d", "n": strconv.Itoa(n)}
		return dist.SaveCheckpoint(world, cfg.Checkpoint, int64(step), meta, dist.Entry("u", field))
	}
	if err := world.Barrier(); err != nil {
		return heatResult{}, err
	}
	start := world.Wtime()
	for it := first; it < cfg.Iters; it++ {
		if err := u.Exchange(); err != nil {
			return heatResult{}, err
		}
		if hi > lo {
			backend.Jacobi5(v.Local(), u.Local(), rows, cols)
		}
		u.Swap(v)
		if cfg.Progress != nil && world.Rank() == 0 {
			cfg.Progress(it + 1)
		}
		if cfg.Checkpoint != "" && cfg.Every > 0 && (it+1)%cfg.Every == 0 {
			if err := save(it + 1); err != nil {
				return heatResult{}, err
			}
		}
	}
	if cfg.Checkpoint != "" && (cfg.Every <= 0 || cfg.Iters%cfg.Every != 0) && cfg.Iters > first {
		if err := save(cfg.Iters); err != nil {
			return heatResult{}, err
		}
	}
	if err := backend.Synchronize(u.Local()); err != nil {
		return heatResult{}, err
	}
	elapsed := world.Wtime() - start
	if elapsed, err = mpi.AllreduceValue(world, elapsed, mpi.Max); err != nil {
		return heatResult{}, err
	}
	u.CopyTo(field)
	res := heatResult{Ranks: world.Size()}
	if cfg.Iters > first {
		res.PerIter = elapsed / float64(cfg.Iters-first)
	}
	// The walls are 0, so the sum of the block is the sum of the interior.
	if res.Checksum, err = dist.Sum(field); err != nil {
		return heatResult{}, err
	}
	if cfg.Gather {
		if res.Field, err = dist.Gather(field, 0); err != nil {
			return heatResult{}, err
		}
		res.FieldShape = []int{n, cols}
	}
	return res, nil
}

// checkHeatConfig refuses a configuration before anything is allocated,
// naming the flag.
func checkHeatConfig(cfg heatConfig) error {
	switch {
	case cfg.N < 1:
		return fmt.Errorf("heat2d: --n %d: want at least 1", cfg.N)
	case cfg.N > math.MaxInt-2:
		return fmt.Errorf("heat2d: --n %d: %w: n+2 columns overflow an int", cfg.N, dist.ErrTooLarge)
	case cfg.Iters < 0:
		return fmt.Errorf("heat2d: --iters %d: want 0 or more", cfg.Iters)
	case cfg.Every < 0:
		return fmt.Errorf("heat2d: --every %d: want a positive number of iterations", cfg.Every)
	case cfg.Every > 0 && cfg.Checkpoint == "":
		return fmt.Errorf("heat2d: --every %d without --checkpoint: say where to save", cfg.Every)
	}
	if _, err := dist.ShapeLen([]int{cfg.N, cfg.N + 2}); err != nil {
		return fmt.Errorf("heat2d: --n %d: %w", cfg.N, err)
	}
	return nil
}

// checkHeatMemory checks, collectively, that a grid of n fits in the memory
// of every rank's node, and says at how many ranks it would if not.
func checkHeatMemory(world mpi.Comm, n int) error {
	need, err := heatBytesPerRank(n, world.Size())
	if err != nil {
		return err
	}
	if err := dist.CheckMemory(world, fmt.Sprintf("--n %d on %d ranks", n, world.Size()), need); err != nil {
		return heatMemoryHint(err, n)
	}
	return nil
}

// heatBytesPerRank returns the memory heat2d allocates on the rank with the
// most rows over p ranks: the two halo blocks (rows+2 rows each) and the
// field (rows rows), n+2 float64 columns each.
func heatBytesPerRank(n, p int) (int64, error) {
	rows := int64(n/p + 1)
	if n%p == 0 {
		rows--
	}
	row, err := dist.MulBytes(int64(n)+2, 8)
	if err != nil {
		return 0, fmt.Errorf("heat2d: --n %d: %w", n, err)
	}
	need, err := dist.MulBytes(row, 3*rows+4)
	if err != nil {
		return 0, fmt.Errorf("heat2d: --n %d on %d ranks: %w", n, p, err)
	}
	return need, nil
}

// heatMemoryHint adds to a *dist.MemoryError the rank count at which the
// grid would fit, with as many ranks per node as now.
func heatMemoryHint(err error, n int) error {
	var me *dist.MemoryError
	if !errors.As(err, &me) {
		return err
	}
	perRank := me.Available / uint64(me.NodeRanks)
	rowBytes := uint64(n+2) * 8
	// Rows per rank that fit: 3*rows+4 rows of n+2 float64.
	if perRank/rowBytes < 7 {
		return fmt.Errorf("heat2d: %w; no rank count fits: one row per rank needs %s per rank", err, sysmem.Bytes(7*rowBytes))
	}
	rows := (perRank/rowBytes - 4) / 3
	ranks := (uint64(n) + rows - 1) / rows
	return fmt.Errorf("heat2d: %w; it fits on %d or more ranks, %d per node like this one", err, ranks, me.NodeRanks)
}

// restartHeat loads the field of a heat2d checkpoint into field and returns
// the iteration it was saved at. Every failure is the same on every rank.
func restartHeat(world mpi.Comm, cfg heatConfig, field *dist.Array[float64]) (int, error) {
	r, err := dist.OpenCheckpoint(world, cfg.Restart)
	if err != nil {
		return 0, fmt.Errorf("heat2d: --restart %s: %w", cfg.Restart, err)
	}
	m := r.Manifest()
	if m.Meta["app"] != "heat2d" || m.Meta["n"] != strconv.Itoa(cfg.N) {
		return 0, fmt.Errorf("heat2d: --restart %s: a checkpoint of %s with n=%s, not of heat2d with n=%d", cfg.Restart, m.Meta["app"], m.Meta["n"], cfg.N)
	}
	if m.Step > int64(cfg.Iters) {
		return 0, fmt.Errorf("heat2d: --restart %s: the checkpoint is at iteration %d, past --iters %d", cfg.Restart, m.Step, cfg.Iters)
	}
	u, err := dist.LoadArray[float64](r, "u", dist.BlockSizes(field.Layout().Counts()))
	if err != nil {
		return 0, fmt.Errorf("heat2d: --restart %s: %w", cfg.Restart, err)
	}
	dist.Copy(field, u)
	return int(m.Step), nil
}
