// Command w7formats times W7's array (docs/PERFORMANCE.md) written and read
// in each file format of xpmpi at the job's rank count: the raw .npy file
// (dist.Save, dist.LoadInto), HDF5 (h5.Save, h5.LoadInto: one contiguous
// dataset that rank 0 creates and every rank writes its part of, as h5's
// writers do) and Zarr v2 (zarr.Save,
// zarr.LoadInto: uncompressed, chunks aligned to the ranks' blocks), and
// prints one line per format and direction with the median of --reps runs
// in GB/s. Every write includes the read-back that checks it, as the
// formats' writers always do; every read is into row blocks of the same
// rank count. bench/w7formats/h5py_w7.py does the same with h5py's MPI
// build, and run.sh runs both at 1 and 2 ranks. Build it with -tags
// mpi,hdf5 for the HDF5 rows (without them the HDF5 rows say why they are
// missing).
//
// The array is W7's: float64 values idx%1024/1024, of --n elements (W7's
// full size is 1<<26, 512 MiB; --small's 1<<20).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "github.com/xpmpi/xpmpi/backend/cpu" // the CPU backend
	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/h5"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/zarr"
)

func main() {
	n := flag.Int("n", 1<<26, "elements of the array (W7: 1<<26; --small: 1<<20)")
	reps := flag.Int("reps", 5, "runs of each format; the median is printed")
	dir := flag.String("dir", os.TempDir(), "directory for the files")
	flag.Parse()
	os.Exit(mpi.Main(func(world mpi.Comm) error { return run(world, *n, *reps, *dir) }))
}

// timed returns the slowest rank's seconds for f, which every rank calls.
func timed(c mpi.Comm, f func() error) (float64, error) {
	c.Barrier()
	t := time.Now()
	err := f()
	s := time.Since(t).Seconds()
	if err != nil {
		return 0, err
	}
	return mpi.AllreduceValue(c, s, mpi.Max)
}

func run(c mpi.Comm, n, reps int, base string) error {
	var dir string
	var err error
	if c.Rank() == 0 {
		dir, err = os.MkdirTemp(base, "xpmpi-w7f-")
	}
	if err := mpi.Agree(c, err); err != nil {
		return err
	}
	b := make([]byte, 4096)
	copy(b, dir)
	if err := mpi.BcastBytes(c, b, 0); err != nil {
		return err
	}
	dir = strings.TrimRight(string(b), "\x00")
	if c.Rank() == 0 {
		defer os.RemoveAll(dir)
	}
	x, err := dist.FromFunc(c, []int{n}, func(idx []int) float64 { return float64(idx[0]%1024) / 1024 })
	if err != nil {
		return err
	}
	defer x.Free()
	y, err := dist.Full(c, []int{n}, -1.0)
	if err != nil {
		return err
	}
	defer y.Free()
	want, err := dist.Sum(x)
	if err != nil {
		return err
	}
	type format struct {
		name        string
		write, read func() error
	}
	npyPath, h5Path, zPath := filepath.Join(dir, "w7.npy"), filepath.Join(dir, "w7.h5"), filepath.Join(dir, "w7.zarr")
	formats := []format{
		{".npy", func() error { return dist.Save(x, npyPath) }, func() error { return dist.LoadInto(y, npyPath) }},
		{"HDF5", func() error { return h5.Save(x, h5Path, "x", h5.Truncate()) }, func() error { return h5.LoadInto(y, h5Path, "x") }},
		{"Zarr", func() error { return zarr.Save(x, zPath, "", zarr.Uncompressed()) }, func() error { return zarr.LoadInto(y, zPath, "") }},
	}
	bytes := float64(n) * 8
	if c.Rank() == 0 {
		fmt.Printf("w7formats: %d float64 (%d MiB), %d ranks, median of %d, GB/s (slowest rank)\n", n, n*8>>20, c.Size(), reps)
	}
	// The formats in turn within each run, so that a machine whose load
	// changes slows each alike.
	ws, rs := make([][]float64, len(formats)), make([][]float64, len(formats))
	ferr := make([]error, len(formats))
	for i := 0; i < reps; i++ {
		for k, f := range formats {
			if ferr[k] != nil {
				continue
			}
			w, err := timed(c, f.write)
			if err != nil {
				ferr[k] = err
				continue
			}
			dist.Fill(y, -1)
			r, err := timed(c, f.read)
			if err != nil {
				ferr[k] = err
				continue
			}
			got, err := dist.Sum(y)
			if err != nil || got != want {
				ferr[k] = fmt.Errorf("%s: read back a sum of %v, want %v (%v)", f.name, got, want, err)
				continue
			}
			ws[k], rs[k] = append(ws[k], bytes/w/1e9), append(rs[k], bytes/r/1e9)
		}
	}
	for k, f := range formats {
		if c.Rank() != 0 {
			continue
		}
		if ferr[k] != nil {
			fmt.Printf("%-5s write  -  read  -  (%v)\n", f.name, ferr[k])
			continue
		}
		fmt.Printf("%-5s write %7.3f  read %7.3f\n", f.name, median(ws[k]), median(rs[k]))
	}
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
