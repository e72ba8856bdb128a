// Package integrate is SciPy's scipy.integrate in Go: adaptive quadrature
// (Quad, QuadBatch) and initial value problems (SolveIVP, SolveIVPBatch,
// SolveIVPIndexed, SolveIVPBatchArray, SolveIVPBatchDist, SolveIVPDist),
// with SciPy 1.10's algorithms, defaults and contracts, and batched and
// distributed forms that SciPy does not have.
//
// # Quadrature
//
// Quad is scipy.integrate.quad without weights or args: QUADPACK's qags on
// a finite interval (21-point Gauss-Kronrod, global error control by
// bisection of the subinterval with the largest error, Wynn's epsilon
// algorithm for endpoint singularities), qagp with breakpoints
// (QuadOptions.Points, quad's points) and qagi on an infinite or
// semi-infinite one (x = a + (1-t)/t, 15-point rule). It is a port of the
// Fortran: on the tests' integrands (testdata/gen_quad.py) it makes the
// same subintervals and evaluations as SciPy and returns its values to
// 1e-13. SciPy's epsabs, epsrel and limit
// are QuadOptions.AbsTol, RelTol and Limit (defaults 1.49e-8, 1.49e-8, 50);
// full_output's neval, last and ier are QuadResult.Evals, Intervals and
// Ier. Where SciPy warns, Quad returns the estimate and an error wrapping
// ErrMaxSubdivisions, ErrRoundoff, ErrBadIntegrand, ErrNoConvergence or
// ErrDivergent (test with errors.Is); an integrand value that is NaN or
// infinite stops it with ErrNonFinite (SciPy does not check).
//
// QuadBatch integrates many problems (intervals or parameters) at once with
// one call of the integrand per round for the nodes of every unfinished
// problem. QuadBatchArray is its device form: each round the nodes and
// their problem indices go to a backend's device in one copy each, one
// call of an ArrayBatchFunc (a fused kernel of package kernels/fuse, a
// kernels.Kernel) evaluates them all there, and the values come back in
// one copy; the bookkeeping stays on the host and is QuadBatch's, so the
// results are QuadBatch's bit for bit where the integrand's bits are the
// same (tested on the fake device of package backend/fakedev, with the
// copies counted; no GPU has run it).
//
// # Initial value problems
//
// SolveIVP is scipy.integrate.solve_ivp (the name says what it is: the
// modern interface with an interval, methods, events and a status; odeint's
// automatic stiffness switching is its Auto method). The right-hand side
// writes into a slice (f(t, y, dydt)) instead of returning an array, and
// the result's Y[k] is the state at T[k] (SciPy's y transposed).
//
//   - RK45: Dormand-Prince 5(4) with SciPy's step control (Hairer's initial
//     step, safety 0.9, factors 0.2 to 10) and its free fourth-order dense
//     output; on SciPy's problems it takes exactly SciPy's steps. Hairer's
//     stiffness test (DOPRI5's: h*|lambda| above 3.25 on 15 steps) runs on
//     every step; when it fires RK45 stops with ErrStiff and sets the
//     result's Stiff, as DOPRI5 does, unless IgnoreStiffness.
//   - Radau: SciPy's Radau IIA of order 5 (simplified Newton on the
//     collocation system, with a given Jacobian or forward differences,
//     LU factors reused while the iteration converges fast, an embedded
//     third-order error estimate, Gustafsson's step-size prediction). Radau
//     rather than BDF: it is one method of fixed order 5 that is L-stable
//     at every step, simple enough to port exactly (with a given Jacobian
//     it takes SciPy's steps: 201 on Robertson, 287 against 286 on Van der
//     Pol), while BDF's variable order and its step changes by
//     interpolation are more to port and to test. In SciPy it takes fewer
//     steps than BDF (287 and 201 against 526 and 368) but more
//     evaluations (2857 and 1718 against 1810 and 1034).
//   - Auto (the default): start with RK45, switch to Radau when the
//     stiffness test fires, and back to RK45 when 15 Radau steps in a row
//     are within RK45's stability bound (h times the infinity norm of the
//     Jacobian at most 3.25), as LSODA switches between Adams and BDF; the
//     result lists the switches.
//
// RelTol and AbsTol (defaults 1e-3 and 1e-6) may be given per component
// (RelTols, AbsTols); TEval, MaxStep, FirstStep, Dense (dense_output=True:
// the result's Sol) and Events (a sign change of a function, recorded or
// terminal, with a direction, located by Brent's method on the dense output
// with SciPy's tolerances) are as in SciPy. odeint(f, y0, t) is SolveIVP(f,
// t[0], t[len(t)-1], y0, &IVPOptions{TEval: t, RelTol: 1.49012e-8, AbsTol:
// 1.49012e-8}) with the default Auto method. NFev counts every call of f: SciPy counts a vectorized finite-difference
// Jacobian as one, so Radau without Jac reports more here. IVPOptions.MaxFev
// (default DefaultMaxFev, 10^7; SciPy has none) bounds those calls,
// rejected steps included, with ErrMaxFev; a state, derivative or Jacobian
// that is not finite stops every method with ErrNonFiniteState. What each
// solver returns on each kind of bad input is the table in docs/SCIPY.md,
// which TestContractMatrix checks.
//
// SolveIVPBatch integrates many independent small systems of one size,
// state as one flat slice, one call of f per evaluation for all of them,
// each system with its own step size and acceptance (correct first: every
// system gets exactly the steps and bits SolveIVP gives it alone). RK45
// runs in lockstep over plain arrays, for any number of systems; Auto,
// Radau and events run SolveIVP's code per system as coroutines whose
// evaluations are gathered into the one call. SolveIVPIndexed is the same
// with a right-hand side that is told which systems it evaluates (an
// IndexedODEFunc, as optimize.BatchFunc): its RK45 works through the
// systems a few hundred at a time, in the caches, a finished system's
// place going to the next one, with the same bits per system; on the CPU
// it is the fast form (xpmpi bench's W10).
//
// SolveIVPBatchArray is that RK45 batch with the state on a device (a
// backend.Array of nsys*dim values: the host, the fake device of
// backend/fakedev, CUDA) and the right-hand side an ArrayODEFunc that
// computes there (a kernels.Kernel, a fused expression of kernels/fuse):
// every attempted step is six calls of it for all systems, six launches
// of the kernel rk45_stage (the stages' arguments) and one of
// rk45_control (each system's error test, acceptance, new step size,
// stiffness test and stop), kernels of the kernels catalog with one
// thread per system, a host implementation and CUDA source; the host
// reads back one number per step, the count of systems still running.
// The arithmetic is the lockstep batch's, in the same order (no
// multiply-adds, powMinusFifth in both), so every system gets
// SolveIVPBatch's steps and bits: tested on the CPU backend, the fake
// device, and backend/cuda's fake driver running the CUDA source compiled
// as C++; no GPU has run it. SolveIVPBatchDist is the same over a dist
// array of shape (nsys, dim) split by systems: each rank integrates its
// block on its own, one allreduce counts the failures at the end, and the
// bits are the same at every rank count.
//
// SolveIVPDist integrates one large system whose state is a dist.Array (a
// method of lines) with RK45. The error norm is reduced across ranks
// exactly, in integer bins, so the steps and the results are the same, bit
// for bit, at every rank count.
//
// # Not done
//
// quad's weight functions (qawo, qawf, qaws, qawc) and complex
// integrands; dblquad, tplquad, nquad and the fixed-order rules
// (fixed_quad, romberg, simpson); RK23, DOP853, BDF and LSODA themselves;
// sparse Jacobians and the adaptation of num_jac's difference steps; a
// Jacobian function in the batch (it uses finite differences); events,
// Dense and an implicit method in the distributed form (a stiff problem
// stops there with ErrStiff); on a device, everything but QuadBatchArray's
// node evaluation and SolveIVPBatchArray's RK45: the bookkeeping of
// QuadBatchArray, and the callbacks and the state of SolveIVP,
// SolveIVPBatch, SolveIVPIndexed and SolveIVPDist, are on the host;
// SolveIVPBatchArray has no TEval, events, dense output or Radau, and its
// initial steps end on the host (Hairer's choice takes a math.Pow, whose
// bits a GPU's pow need not give: n values there and back, once).
package integrate
