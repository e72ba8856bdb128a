package heat

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/internal/exactsum"
	"github.com/xpmpi/xpmpi/internal/serialloop"
	"github.com/xpmpi/xpmpi/mpi/mpitest"
	"github.com/xpmpi/xpmpi/profiling"
	"github.com/xpmpi/xpmpi/profiling/proftest"
	"github.com/xpmpi/xpmpi/solvers"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

func TestMatchesSerialLoop(t *testing.T) {
	world := mpitest.World(t)
	for _, c := range []struct{ n, iters int }{{1, 3}, {2, 5}, {3, 7}, {5, 0}, {17, 40}, {64, 100}, {129, 60}} {
		res, err := Solve(world, Config{N: c.n, Iters: c.iters, Gather: true})
		if err != nil {
			t.Fatal(err)
		}
		want := serialloop.Heat(c.n, c.iters)
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

func TestRejectsBadSizes(t *testing.T) {
	world := mpitest.World(t)
	if _, err := Solve(world, Config{N: 0, Iters: 1}); err == nil {
		t.Fatal("n = 0: no error")
	}
	if _, err := Solve(world, Config{N: 4, Iters: -1}); err == nil {
		t.Fatal("iters = -1: no error")
	}
}

func TestHotLoopMovesNothing(t *testing.T) {
	world := mpitest.World(t)
	proftest.NoTransfers(t, func() {
		if _, err := Solve(world, Config{N: 40, Iters: 20}); err != nil {
			t.Error(err)
		}
	})
}

func TestTraffic(t *testing.T) {
	world := mpitest.World(t)
	tr := profiling.CountTraffic()
	n, iters := 40, 10
	if _, err := Solve(world, Config{N: n, Iters: iters}); err != nil {
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

func TestRestart(t *testing.T) {
	world := mpitest.World(t)
	dir := filepath.Join(mpitest.TempDir(t, world), "ck")
	n := 23
	full, err := Solve(world, Config{N: n, Iters: 30})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(world, Config{N: n, Iters: 20, Checkpoint: dir, Every: 7}); err != nil {
		t.Fatal(err)
	}
	// The last checkpoint is the one at the end (20), after those at 7 and 14.
	res, err := Solve(world, Config{N: n, Iters: 30, Restart: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checksum != full.Checksum {
		t.Fatalf("restarted checksum %.17g, uninterrupted %.17g", res.Checksum, full.Checksum)
	}
	if _, err := Solve(world, Config{N: n + 1, Iters: 30, Restart: dir}); err == nil {
		t.Fatal("restart with another n: no error")
	}
	if _, err := Solve(world, Config{N: n, Iters: 10, Restart: dir}); err == nil || !strings.Contains(err.Error(), "heat: Iters 10: the checkpoint") {
		t.Fatalf("restart past Iters: %v", err)
	}
	// No checkpoint: the error names the field and keeps dist's kind.
	_, err = Solve(world, Config{N: n, Iters: 10, Restart: dir + "-none"})
	if !errors.Is(err, dist.ErrNoCheckpoint) || !strings.HasPrefix(err.Error(), "heat: Restart "+dir+"-none: ") {
		t.Fatalf("restart from nothing: %v", err)
	}
}

// TestGridRestart saves the field on a process grid and on row blocks and
// restarts each on the other and on every grid of the ranks: the same
// layout gives the uninterrupted run's checksum bit for bit, another one
// within the order of summation.
func TestGridRestart(t *testing.T) {
	world := mpitest.World(t)
	p := world.Size()
	n := 13
	layouts := []Config{{}, {Grid: true}, {Grid: true, Dims: [2]int{1, p}}, {Grid: true, Dims: [2]int{p, 1}}}
	full := make([]Result, len(layouts))
	for i, l := range layouts {
		l.N, l.Iters = n, 12
		var err error
		if full[i], err = Solve(world, l); err != nil {
			t.Fatal(err)
		}
	}
	for i, from := range layouts {
		dir := filepath.Join(mpitest.TempDir(t, world), fmt.Sprint("ck", i))
		from.N, from.Iters, from.Checkpoint, from.Every = n, 7, dir, 5
		if _, err := Solve(world, from); err != nil {
			t.Fatalf("checkpoint on %+v: %v", from, err)
		}
		for j, to := range layouts {
			to.N, to.Iters, to.Restart = n, 12, dir
			res, err := Solve(world, to)
			if err != nil {
				t.Fatalf("restart of %+v on %+v: %v", from, to, err)
			}
			want := full[j].Checksum
			if d := math.Abs(res.Checksum - want); (i == j && d != 0) || d > 1e-12*math.Abs(want) {
				t.Errorf("saved on %v %v, restarted on %v %v at %d ranks: checksum %.17g, uninterrupted %.17g",
					from.Grid, from.Dims, to.Grid, to.Dims, p, res.Checksum, want)
			}
		}
	}
}

func TestConfigCheck(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{N: 16, Iters: 3}, ""},
		{Config{N: 16, Iters: 3, Checkpoint: "ck", Every: 2}, ""},
		{Config{N: 0, Iters: 3}, "heat: N 0: want at least 1"},
		{Config{N: 16, Iters: -1}, "heat: Iters -1: want 0 or more"},
		{Config{N: 16, Iters: 3, Every: 2}, "heat: Every 2 without Checkpoint: say where to save"},
		{Config{N: 16, Iters: 3, Checkpoint: "ck", Every: -2}, "heat: Every -2: want a positive number"},
		{Config{N: 4294967294, Iters: 3}, "heat: N 4294967294: dist: shape"},
		{Config{N: math.MaxInt, Iters: 3}, "too large"},
	} {
		err := c.cfg.Check()
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.cfg, err)
			}
			continue
		}
		var ce *solvers.ConfigError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a *solvers.ConfigError saying %q", c.cfg, err, c.want)
		}
		if strings.Contains(c.want, "too large") && !errors.Is(err, dist.ErrTooLarge) {
			t.Errorf("%+v: %v does not wrap dist.ErrTooLarge", c.cfg, err)
		}
	}
}

func TestBytesPerRank(t *testing.T) {
	// 10 rows over 3 ranks: 4 on the first; 3*4+4 rows of 12 float64.
	if b, err := BytesPerRank(10, 3); err != nil || b != 16*12*8 {
		t.Errorf("BytesPerRank(10, 3) = %d, %v, want %d", b, err, 16*12*8)
	}
	if b, err := BytesPerRank(9, 3); err != nil || b != 13*11*8 {
		t.Errorf("BytesPerRank(9, 3) = %d, %v, want %d", b, err, 13*11*8)
	}
	if _, err := BytesPerRank(math.MaxInt-2, 1); err == nil {
		t.Error("BytesPerRank(MaxInt-2, 1): no error")
	}
}

// TestChecksumsUnchanged pins the checksum of `xpmpi run heat2d --n 67
// --iters 150` to the bit: the same at every rank count, since the field
// is (the stencil is elementwise) and the checksum is dist.SumRepro. (With
// dist.Sum it was 389.38968031164984 at 1 rank, ...4990 at 2, ...4980 at 3
// and 4.) It is also the correctly rounded exact sum of the gathered
// field (internal/exactsum, what Python's math.fsum gives).
func TestChecksumsUnchanged(t *testing.T) {
	c := mpitest.World(t)
	const want = 389.38968031164995
	res, err := Solve(c, Config{N: 67, Iters: 150, Gather: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checksum != want {
		t.Errorf("on %d ranks: checksum %.17g, want %.17g", c.Size(), res.Checksum, want)
	}
	if c.Rank() == 0 {
		var ex exactsum.Sum
		for _, v := range res.Field {
			ex.Add(v)
		}
		if ex.Value() != want {
			t.Errorf("exact sum of the field %.17g, want %.17g", ex.Value(), want)
		}
	}
}

// TestGridMatchesRowBlocks: on a 2-D process grid the checksum is the row
// blocks' one to 1e-12 (the order of summation differs), and so is the
// gathered field, for the balanced grid (2x1 at 2 and 3 ranks, 2x2 at 4),
// a 1xp grid, a px1 grid and half-chosen dims.
func TestGridMatchesRowBlocks(t *testing.T) {
	world := mpitest.World(t)
	p := world.Size()
	for _, c := range []struct{ n, iters int }{{1, 3}, {2, 5}, {5, 7}, {17, 40}, {64, 60}} {
		if testing.Short() && c.iters > 7 {
			continue // six solves of tens of exchanges: the full suite runs them
		}
		rows, err := Solve(world, Config{N: c.n, Iters: c.iters, Gather: true})
		if err != nil {
			t.Fatal(err)
		}
		want := serialloop.Heat(c.n, c.iters)
		for _, dims := range [][2]int{{0, 0}, {1, p}, {p, 1}, {0, 1}, {1, 0}} {
			res, err := Solve(world, Config{N: c.n, Iters: c.iters, Gather: true, Grid: true, Dims: dims})
			if err != nil {
				t.Fatal(err)
			}
			for _, ref := range []float64{rows.Checksum, want} {
				if d := math.Abs(res.Checksum - ref); d > 1e-12*math.Abs(ref) || (ref == 0 && res.Checksum != 0) {
					t.Fatalf("n=%d iters=%d on %d ranks, grid %v: checksum %.17g, want %.17g", c.n, c.iters, p, dims, res.Checksum, ref)
				}
			}
			if world.Rank() != 0 {
				continue
			}
			if len(res.Field) != len(rows.Field) || !slices.Equal(res.FieldShape, rows.FieldShape) {
				t.Fatalf("grid %v: gathered %d values of shape %v, want %d of %v", dims, len(res.Field), res.FieldShape, len(rows.Field), rows.FieldShape)
			}
			for i, v := range res.Field {
				if d := math.Abs(v - rows.Field[i]); d > 1e-13 {
					t.Fatalf("grid %v: field[%d] = %.17g, row blocks %.17g", dims, i, v, rows.Field[i])
				}
			}
		}
	}
}

func TestGridConfig(t *testing.T) {
	world := mpitest.World(t)
	p := world.Size()
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{N: 4, Dims: [2]int{1, 1}}, "Dims"},
		{Config{N: 4, Grid: true, Dims: [2]int{-1, 0}}, "Dims"},
		{Config{N: 4, Grid: true, Dims: [2]int{p + 1, 0}}, "Dims"},
		{Config{N: 4, Grid: true, Dims: [2]int{p, 2}}, "Dims"},
		// 4 x 10^6 x 10^6 float64 over p ranks is terabytes per rank.
		{Config{N: 1000000, Grid: true}, "N"},
	} {
		_, err := Solve(world, c.cfg)
		var ce *solvers.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%+v: %v, want a ConfigError about %s", c.cfg, err, c.field)
		}
		if c.field == "N" && !errors.Is(err, dist.ErrTooLarge) {
			t.Errorf("%+v: %v does not wrap dist.ErrTooLarge", c.cfg, err)
		}
	}
}
