//go:build petsc

package bench

import (
	"errors"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/petsc"
)

// W2 and W4 through PETSc. W2: VecDot of two Vecs made by petsc.NewVec
// over xpmpi's own arrays (no copy), the local BLAS dot and PETSc's
// MPI_Allreduce. W4: KSP CG without a preconditioner over the Go shell
// operator of petsc.SolvePoisson (one halo exchange and one 5-point
// stencil per multiply, called back from PETSc). The bench starts PETSc if
// the program has not, and then finalizes it after the last workload that
// uses it: PETSc cannot be started again in the process.
func init() {
	started := false // by the bench, which then finalizes it
	petscHooks = &petscHook{
		start: func(c mpi.Comm) error {
			if petsc.Initialized() {
				return nil
			}
			started = true
			return petsc.Init(c)
		},
		dot: func(x, y *dist.Array[float64], dots int, timed func(func() error) (float64, error)) (Sample, error) {
			vx, err := petsc.NewVec(x)
			if err != nil {
				return Sample{}, err
			}
			vy, err := petsc.NewVec(y)
			if err != nil {
				return Sample{}, errors.Join(err, vx.Destroy())
			}
			var d float64
			secs, err := timed(func() error {
				for k := 0; k < dots; k++ {
					var err error
					if d, err = vx.Dot(vy); err != nil {
						return err
					}
				}
				return nil
			})
			err = errors.Join(err, vx.Destroy(), vy.Destroy())
			return Sample{Seconds: secs, Checksum: d, OK: true}, err
		},
		solve: func(c mpi.Comm, n int, tol float64) (Sample, error) {
			res, x, err := petsc.SolvePoisson(c, petsc.PoissonConfig{N: n, Tol: tol, Prefix: "bench_"})
			if err != nil {
				return Sample{}, err
			}
			x.Free()
			s := Sample{Seconds: res.Seconds, Checksum: res.Checksum, OK: res.Reason.Converged()}
			s.Extra = [4]float64{float64(res.Iterations), res.RelRes, res.PerIter}
			return s, nil
		},
		stop: func() error {
			if !started {
				return nil // the program started PETSc and finalizes it
			}
			started = false
			return petsc.Finalize()
		},
	}
}
