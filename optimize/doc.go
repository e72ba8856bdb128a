// Package optimize is SciPy's scipy.optimize in Go for xpmpi: batched
// scalar root finding (Newton, NewtonDist), roots of small dense systems
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
// slices, called once per iteration for all active elements with their
// indices, the hook where a device kernel would go. With fprime it is
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
//     f(root) (one more call);
//   - SciPy's warnings are errors wrapping ErrNoConvergence and
//     ErrZeroDerivative, with the result; where SciPy raises (no element
//     converged) the result is returned too;
//   - where SciPy runs out of iterations its secant roots are the
//     next-to-last iterates; here they are the last.
//
// NewtonDist runs Newton on each rank's block of a dist.Array with no
// communication but one reduction of the counts at the end: the roots are
// the same bits at every rank count.
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
// ErrMaxIter and ErrMaxFun, a failed line search ErrLineSearch.
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
// module does not require. Arrays on a device: the callbacks and the
// iterates are on the host, and a BatchFunc call or a DistSystem call is
// where a kernel would go.
package optimize
