// Package optimize is SciPy's scipy.optimize in Go for xpmpi: batched
// scalar root finding (Newton, NewtonDist, and on devices NewtonArray,
// NewtonArrayDist), roots of small dense systems
// (Root), minimization of small problems (Minimize), and, for large
// problems whose unknowns are a dist.Array, a matrix-free Newton-Krylov
// solver (NewtonKrylov) and a distributed L-BFGS (MinimizeDist), with
// SciPy 1.10's algorithms, defaults and contracts as the reference
// (testdata/gen_*.py made the reference values the tests embed).
//
// # Batched scalar equations
//
// Newton is scipy.optimize.newton with an array x0: one scalar equation
// per element (Kepler's equation per orbit, an implicit equation per
// cell). The function and its derivatives are BatchFunc: Go functions over
// slices, called once per iteration for the active elements of a chunk
// with their indices (up to 1024 elements, each chunk solved to the end
// before the next, in the cache), the hook where a device kernel would go. With fprime it is
// Newton's method, with NewtonOptions.FPrime2 Halley's, without fprime the
// secant method, all with SciPy's array formulas and defaults (tol
// 1.48e-8, rtol 0, maxiter 50). What differs from SciPy:
//
//   - each element stops when it converges (SciPy steps every element
//     until all have), and the stopped ones are compacted out of the
//     batch, so they cost nothing more (NewtonOptions.Lockstep keeps
//     SciPy's shape; the bits are the same either way). Each element's
//     root is the one Newton gives it alone, whatever the batch;
//   - the result (NewtonResult) has SciPy's full_output masks (Converged,
//     ZeroDer) and, beyond them, the steps per element and the residual
//     f(root) (one more call per chunk);
//   - SciPy's warnings are errors wrapping ErrNoConvergence and
//     ErrZeroDerivative, with the result; where SciPy raises (no element
//     converged) the result is returned too;
//   - where SciPy runs out of iterations its secant roots are the
//     next-to-last iterates; here they are the last.
//
// NewtonInto is Newton into an existing NewtonResult, whose slices (and
// the chunk's working space) it reuses: a loop of solves allocates
// nothing after the first.
//
// NewtonFDF (and NewtonFDFInto, NewtonDistFDF) is Newton's method with the
// function and its derivative from one callback, a BatchFDF: GSL's fdf,
// SciPy's root_scalar(fprime=True). Where the two share work, it is done
// once per iteration: on Kepler's equation, math.Sincos in place of
// math.Sin and math.Cos made xpmpi bench's W10 Newton about a quarter
// faster. Where the callback gives the values f and fprime give, the
// result is Newton's, bit for bit.
//
// NewtonDist runs Newton on each rank's block of a dist.Array with no
// communication but one reduction of the counts at the end: the roots are
// the same bits at every rank count.
//
// # Batched Newton on a device
//
// NewtonArray is Newton for a backend.Array on any backend (the host, the
// fake device of package backend/fakedev, CUDA): the function and its
// derivatives are ArrayFuncs, functions of the iterate array that compute
// on its device (FuseFunc makes one from a fused expression of package
// kernels/fuse over x and per-element parameter arrays; a kernels.Kernel or
// package backend's operations serve as well: the tests solve Kepler's
// equation with the sine and cosine of the backend's Math, which package
// kernels/fuse lacks). The iterates and the
// per-element bookkeeping (the step, the convergence and zero-derivative
// tests, the status and the iteration count) stay on the device, one fused
// kernel per iteration; the only value read back per iteration is the count
// of unfinished elements, one scalar (recorded as a profiling.ToHost event
// of 8 bytes where the array is not on the host, and counted in
// ArrayNewtonResult.Readbacks). The results (roots, residuals, the masks
// and iterations as int32 arrays) are device arrays. Every element is
// evaluated at every iteration until all have stopped (SciPy's lockstep; a
// stopped element keeps its values), and the arithmetic is Newton's,
// operation for operation: where the ArrayFuncs give the same bits as
// Newton's BatchFuncs, NewtonArray gives Newton's roots, masks, iterations
// and residuals bit for bit (the tests check this on the CPU backend and
// the fake device, with the copies counted). NewtonArrayDist is its form
// over a dist.Array on any backend: each rank solves its block on its
// device, with one reduction of the counts at the end. The CUDA path is the
// fused kernels' CUDA code (compiled with --fmad=false), launched by the
// launcher the program sets with fuse.SetCUDALauncher (package kernels/fuse
// ships none; without one NewtonArray returns fuse's error on CUDA arrays):
// no GPU has run it; it is tested with the fake device only.
//
// # Systems of equations
//
// Root is fsolve and root(method='hybr'): a port of MINPACK's hybrd
// (forward-difference Jacobian) and hybrj (RootOptions.Jac), with SciPy's
// defaults (xtol 1.49012e-8, maxfev 200*(n+1) or 100*(n+1), factor 100,
// epsfcn the machine precision, diag by column norms). It takes SciPy's
// steps: on the tests' systems it makes the same number of calls. MINPACK's
// info codes 2 to 5 are ErrMaxFev, ErrXTolTooSmall, ErrNoProgressJacobian
// and ErrNoProgress (errors.Is); RootResult.Info and Message are SciPy's.
// A starting point, f there or a Jacobian that is not finite stops it with
// ErrNaN (info 6, this package's: MINPACK does not check), and a Jac that
// leaves the matrix with other dimensions panics.
//
// What every solver returns on each kind of bad input (NaN and infinite
// values, panicking callbacks, empty problems, bad bounds, the limits) is
// the table in docs/SCIPY.md, which TestContractMatrix checks.
//
// NewtonKrylov is newton_krylov for a DistSystem, a function of a
// dist.Array: inexact Newton with restarted matrix-free GMRES,
// finite-difference Jacobian-vector products, Eisenstat-Walker forcing and
// a backtracking line search. Every dot product and norm is an exact
// collective reduction (ExactSum's), so every rank count takes the same
// iterations and gets the same bits.
//
// # Minimization
//
// Minimize is minimize(method='BFGS' | 'L-BFGS-B' without bounds |
// 'Nelder-Mead'). Nelder-Mead is a port of SciPy's (the same iterations
// and evaluations); BFGS is SciPy's inverse-Hessian update with a strong
// Wolfe line search of this package (SciPy uses MINPACK-2's: the same
// minimum to gtol, other counts); L-BFGS is MinimizeDist's iteration on a
// slice. Without MinimizeOptions.Grad the gradient is SciPy's forward
// difference. Results carry SciPy's status and message; limits are
// ErrMaxIter and ErrMaxFun, a failed line search ErrLineSearch, and a
// starting point, f or gradient that is not finite ErrNaN (SciPy's "NaN
// result encountered"): no method reports success on a result that is not
// finite.
//
// MinimizeDist is L-BFGS for a DistObjective over a dist.Array: the
// two-loop recursion with exact collective dot products and a strong-Wolfe
// line search, so the iterates are the same at every rank count (sum the
// objective's terms with ExactSum). Bounds (DistMinimizeOptions.Lower,
// Upper) make it a projected L-BFGS: variables held at a bound that the
// gradient pushes against are fixed for the iteration, and the step
// follows the projected path with a backtracking search. It stops on
// SciPy's L-BFGS-B tests (projected gradient at most gtol, relative
// reduction at most ftol, maxiter, maxfun) with its messages, but it is
// not L-BFGS-B's algorithm (no generalized Cauchy point, no subspace
// minimization).
//
// # From SciPy
//
//	newton(f, x0, fprime, tol=, rtol=, maxiter=, fprime2=, full_output=True)
//	    Newton(f, fprime, x0, &NewtonOptions{Tol:, RTol:, MaxIter:, FPrime2:})
//	the same with x0 on a device, f and fprime kernels
//	    NewtonArray(f, fprime, x0, &ArrayNewtonOptions{Tol:, RTol:, MaxIter:, FPrime2:})
//	fsolve(f, x0, fprime=, xtol=, maxfev=, epsfcn=, factor=, diag=)
//	    Root(f, x0, &RootOptions{Jac:, XTol:, MaxFev:, EpsFcn:, Factor:, Diag:})
//	newton_krylov(F, x0, f_tol=, f_rtol=, iter=, method='gmres', inner_maxiter=)
//	    NewtonKrylov(F, x0, &KrylovOptions{FTol:, FRTol:, MaxIter:, InnerMaxIter:})
//	minimize(f, x0, jac=, method='BFGS', options={gtol, maxiter})
//	    Minimize(f, x0, &MinimizeOptions{Grad:, GTol:, MaxIter:})
//	minimize(f, x0, jac=True, method='L-BFGS-B', bounds=, options={maxcor, gtol, ftol, maxiter, maxfun, maxls})
//	    MinimizeDist(f, x0, &DistMinimizeOptions{M:, GTol:, FTol:, MaxIter:, MaxFun:, MaxLS:, Lower:, Upper:})
//
// Functions write into slices they are given (f(x, fx), grad(g, x))
// instead of returning arrays; extra arguments (SciPy's args) are
// closures; Jacobians are gonum's mat.Dense.
//
// # Not done
//
// The other methods of minimize, root and root_scalar (CG, Newton-CG,
// trust regions, SLSQP, COBYLA, lm, brentq and the bracketing methods),
// least_squares and curve_fit, linprog; fsolve's band option (the
// Jacobian is dense) and col_deriv; NewtonKrylov's preconditioners and
// other inner solvers (lgmres, bicgstab); L-BFGS-B's Cauchy point; a
// Jacobian function in NewtonKrylov. gonum's optimize package is not used:
// it imports gonum/stat/distmv, whose golang.org/x/tools dependency the
// module does not require. Arrays on a device: Newton and NewtonDist keep
// the callbacks and the iterates on the host (NewtonArray and
// NewtonArrayDist are their device forms); Root, Minimize, MinimizeDist and
// NewtonKrylov have no device path (a DistSystem call is where a kernel
// would go).
package optimize
