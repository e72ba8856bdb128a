package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/mpi"

	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/profiling/proftest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// serialHeat is the plain loop of the same update on one process: an
// (n+2) x (n+2) grid with the top row 1 and the rest of the boundary 0.
func serialHeat(n, iters int) float64 {
	m := n + 2
	u, v := make([]float64, m*m), make([]float64, m*m)
	for j := 0; j < m; j++ {
		u[j], v[j] = 1, 1
	}
	for it := 0; it < iters; it++ {
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				v[i*m+j] = 0.25 * (u[(i-1)*m+j] + u[(i+1)*m+j] + u[i*m+j-1] + u[i*m+j+1])
			}
		}
		u, v = v, u
	}
	s := 0.0
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			s += u[i*m+j]
		}
	}
	return s
}

func TestHeatMatchesSerialLoop(t *testing.T) {
	world := mpitest.World(t)
	for _, c := range []struct{ n, iters int }{{1, 3}, {2, 5}, {3, 7}, {5, 0}, {17, 40}, {64, 100}, {129, 60}} {
		res, err := solveHeat(world, heatConfig{N: c.n, Iters: c.iters, Gather: true})
		if err != nil {
			t.Fatal(err)
		}
		want := serialHeat(c.n, c.iters)
		if d := math.Abs(res.Checksum - want); d > 1e-12*math.Abs(want) || (want == 0 && res.Checksum != 0) {
			t.Fatalf("n=%d iters=%d on %d ranks: checksum %.17g, serial loop %.17g", c.n, c.iters, world.Size(), res.Checksum, want)
		}
		if world.Rank() == 0 && len(res.Field) != c.n*(c.n+2) {
			t.Fatalf("gathered field of %d values", len(res.Field))
		}
		if res.Ranks != world.Size() {
			t.Fatalf("ranks %d", res.Ranks)
		}
	}
}

func TestHeatRejectsBadSizes(t *testing.T) {
	world := mpitest.World(t)
	if _, err := solveHeat(world, heatConfig{N: 0, Iters: 1}); err == nil {
		t.Fatal("n = 0: no error")
	}
	if _, err := solveHeat(world, heatConfig{N: 4, Iters: -1}); err == nil {
		t.Fatal("iters = -1: no error")
	}
}

func TestHeatHotLoopMovesNothing(t *testing.T) {
	world := mpitest.World(t)
	proftest.NoTransfers(t, func() {
		if _, err := solveHeat(world, heatConfig{N: 40, Iters: 20}); err != nil {
			t.Error(err)
		}
	})
}

func TestHeatTraffic(t *testing.T) {
	world := mpitest.World(t)
	tr := profiling.CountTraffic()
	n, iters := 40, 10
	if _, err := solveHeat(world, heatConfig{N: n, Iters: iters}); err != nil {
		t.Fatal(err)
	}
	tr.Stop()
	// Each inner rank sends one row of n+2 values to each neighbour per
	// iteration.
	p, me := world.Size(), world.Rank()
	want := int64(0)
	if me > 0 {
		want += int64(iters)
	}
	if me < p-1 {
		want += int64(iters)
	}
	if got := tr.Op("Isend").Messages; got != want {
		t.Fatalf("rank %d: %d halo sends, want %d\n%s", me, got, want, tr.Report())
	}
	if got := tr.Op("Isend").Bytes; got != want*int64(n+2)*8 {
		t.Fatalf("rank %d: %d bytes sent, want %d", me, got, want*int64(n+2)*8)
	}
}

func TestHeatRestart(t *testing.T) {
	world := mpitest.World(t)
	var dir string
	if world.Rank() == 0 {
		dir = t.TempDir()
	}
	b := make([]byte, 1024)
	copy(b, dir)
	if err := mpi.BcastBytes(world, b, 0); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(string(b[:bytes.IndexByte(b, 0)]), "ck")
	n := 23
	full, err := solveHeat(world, heatConfig{N: n, Iters: 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := solveHeat(world, heatConfig{N: n, Iters: 20, Checkpoint: dir, Every: 7}); err != nil {
		t.Fatal(err)
	}
	// The last checkpoint is the one at the end (20), after those at 7 and 14.
	res, err := solveHeat(world, heatConfig{N: n, Iters: 30, Restart: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checksum != full.Checksum {
		t.Fatalf("restarted checksum %.17g, uninterrupted %.17g", res.Checksum, full.Checksum)
	}
	if _, err := solveHeat(world, heatConfig{N: n + 1, Iters: 30, Restart: dir}); err == nil {
		t.Fatal("restart with another n: no error")
	}
	if _, err := solveHeat(world, heatConfig{N: n, Iters: 10, Restart: dir}); err == nil {
		t.Fatal("restart past --iters: no error")
	}
}

func TestCheckHeatConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  heatConfig
		want string
	}{
		{heatConfig{N: 16, Iters: 3}, ""},
		{heatConfig{N: 16, Iters: 3, Checkpoint: "ck", Every: 2}, ""},
		{heatConfig{N: 0, Iters: 3}, "--n 0: want at least 1"},
		{heatConfig{N: 16, Iters: -1}, "--iters -1"},
		{heatConfig{N: 16, Iters: 3, Every: 2}, "--every 2 without --checkpoint"},
		{heatConfig{N: 16, Iters: 3, Checkpoint: "ck", Every: -2}, "--every -2"},
		{heatConfig{N: 4294967294, Iters: 3}, "too large"},
		{heatConfig{N: math.MaxInt, Iters: 3}, "too large"},
	} {
		err := checkHeatConfig(c.cfg)
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.cfg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestHeatBytesPerRank(t *testing.T) {
	// 10 rows over 3 ranks: 4 on the first; 3*4+4 rows of 12 float64.
	if b, err := heatBytesPerRank(10, 3); err != nil || b != 16*12*8 {
		t.Errorf("heatBytesPerRank(10, 3) = %d, %v, want %d", b, err, 16*12*8)
	}
	if b, err := heatBytesPerRank(9, 3); err != nil || b != 13*11*8 {
		t.Errorf("heatBytesPerRank(9, 3) = %d, %v, want %d", b, err, 13*11*8)
	}
	if _, err := heatBytesPerRank(math.MaxInt-2, 1); err == nil {
		t.Error("heatBytesPerRank(MaxInt-2, 1): no error")
	}
}
