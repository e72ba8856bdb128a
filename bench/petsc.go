//go:build petsc

package bench

import (
	"github.com/xpmpi/xpmpi/mpi"
	"github.com/xpmpi/xpmpi/petsc"
)

// W4 through PETSc: KSP CG without a preconditioner over the Go shell
// operator of petsc.SolvePoisson (one halo exchange and one 5-point
// stencil per multiply, called back from PETSc). The bench starts PETSc if
// the program has not, and then finalizes it after W4: PETSc cannot be
// started again in the process.
func init() {
	started := false // by the bench, which then finalizes it
	petscCG = &petscHook{
		start: func(c mpi.Comm) error {
			if petsc.Initialized() {
				return nil
			}
			started = true
			return petsc.Init(c)
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
			return petsc.Finalize()
		},
	}
}
