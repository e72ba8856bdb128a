package optimize

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/xpmpi/xpmpi/dist"
	"github.com/xpmpi/xpmpi/mpi"
)

// DistSystem is a system of equations whose unknowns are a distributed
// array: it writes F(x) into fx, an array with x's layout. It is
// collective (every rank calls it, so it may exchange halos), and must
// compute each element the same way at every rank count for the iterates
// to be the same. An error on any rank is returned on every rank.
type DistSystem func(x, fx *dist.Array[float64]) error

// KrylovOptions are the settings of NewtonKrylov. The zero value (or nil)
// gives the defaults.
type KrylovOptions struct {
	// FTol: converged when max|F(x)| <= FTol (SciPy's f_tol with its
	// maximum norm); default eps^(1/3) = 6.06e-6, SciPy's. FRTol, if
	// set, also accepts max|F| <= FRTol*max|F(x0)| (f_rtol).
	FTol, FRTol float64
	// MaxIter is the most Newton iterations; default 100.
	MaxIter int
	// Restart is GMRES's restart length (the Krylov basis kept), default
	// 20; InnerMaxIter the most GMRES iterations per Newton step, default
	// 40 (SciPy's inner_maxiter is 20).
	Restart, InnerMaxIter int
	// EtaMax bounds the forcing term (the relative tolerance of each
	// linear solve, Eisenstat and Walker's choice 2 with gamma 0.9 and
	// alpha 2, as SciPy's 'eta' rule); default 0.9.
	EtaMax float64
	// RDiff is the relative finite-difference step of the Jacobian-vector
	// products J v = (F(x + h v) - F(x))/h, h = RDiff*max(1, |x|)/|v|;
	// default sqrt(eps).
	RDiff float64
	// MaxBacktrack is the most halvings of the step in the line search;
	// default 20.
	MaxBacktrack int
	// MaxFev stops it with ErrMaxFun at the first Newton iteration that
	// begins with at least MaxFev evaluations of F made (so one
	// iteration's InnerMaxIter+MaxBacktrack+2 may pass it). Default 0:
	// none beyond MaxIter's bound of MaxIter*(InnerMaxIter+MaxBacktrack+2)+1
	// (SciPy's newton_krylov has none).
	MaxFev int
}

// KrylovResult is the outcome of NewtonKrylov, the same on every rank.
type KrylovResult struct {
	// X is the solution found, a new array with x0's layout that the
	// caller frees.
	X *dist.Array[float64]
	// FMax is max|F(X)|, FNorm its Euclidean norm.
	FMax, FNorm float64
	// NIt counts the Newton iterations, NLinear the GMRES iterations
	// over all of them, NFev the evaluations of F (the Jacobian-vector
	// products included).
	NIt, NLinear, NFev int
	// Converged is whether FTol (or FRTol) was met.
	Converged bool
}

// NewtonKrylov solves F(x) = 0 for a large system whose unknowns are a
// distributed array: Newton's method where each linear system J d = -F is
// solved inexactly by restarted GMRES (modified Gram-Schmidt, Givens
// rotations) with finite-difference Jacobian-vector products, so no
// Jacobian is ever formed (matrix-free), to a relative tolerance set by
// Eisenstat and Walker's forcing term; the step is then shortened by
// backtracking until |F| decreases by a factor 1 - 1e-4 s (Armijo on
// the norm of F). scipy.optimize.newton_krylov with method='gmres' is the
// model; the details (forcing, line search) are this package's.
//
// Every dot product and norm is a collective reduction that is exact
// (the rounded products summed without rounding), so every rank count
// takes the same steps, and the same number of iterations, with the same
// bits, as long as F computes each element the same way at every rank
// count.
//
// It is collective. x0 (on the host) is not modified. The error is nil
// when it converged, and otherwise wraps ErrMaxIter, ErrMaxFun,
// ErrLineSearch or ErrNaN (F not finite) with the result, or is F's or a
// reduction's error.
func NewtonKrylov(f DistSystem, x0 *dist.Array[float64], opts *KrylovOptions) (*KrylovResult, error) {
	var o KrylovOptions
	if opts != nil {
		o = *opts
	}
	if o.FTol < 0 || o.FRTol < 0 || o.MaxIter < 0 || o.Restart < 0 || o.InnerMaxIter < 0 || o.EtaMax < 0 || o.EtaMax >= 1 || o.RDiff < 0 || o.MaxBacktrack < 0 || o.MaxFev < 0 {
		panic(fmt.Sprintf("optimize: NewtonKrylov with options %+v", o))
	}
	if o.FTol == 0 {
		o.FTol = math.Cbrt(0x1p-52)
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Restart == 0 {
		o.Restart = 20
	}
	if o.InnerMaxIter == 0 {
		o.InnerMaxIter = 40
	}
	if o.EtaMax == 0 {
		o.EtaMax = 0.9
	}
	if o.RDiff == 0 {
		o.RDiff = math.Sqrt(0x1p-52)
	}
	if o.MaxBacktrack == 0 {
		o.MaxBacktrack = 20
	}
	p := newArrayPool(x0)
	defer p.free()
	nk := &newtonKrylov{f: f, o: &o, p: p, comm: x0.Comm(), reduce: distributed(x0)}
	res, x, err := nk.run(x0.LocalData())
	if res != nil && x != nil {
		res.X = p.take(x)
	}
	return res, err
}

// arrayPool makes arrays with one layout and hands out their local blocks
// as plain vectors, remembering which array each belongs to.
type arrayPool struct {
	like   *dist.Array[float64]
	arrays map[*float64]*dist.Array[float64]
}

func newArrayPool(like *dist.Array[float64]) *arrayPool {
	return &arrayPool{like: like, arrays: map[*float64]*dist.Array[float64]{}}
}

// alloc makes a new array (collective) and returns its block; an empty
// block gets a slice of capacity 1 of its own, so that it has an address.
func (p *arrayPool) alloc() ([]float64, error) {
	a, err := dist.ZerosLike(p.like)
	if err != nil {
		return nil, err
	}
	v := a.LocalData()
	if len(v) == 0 {
		v = make([]float64, 0, 1)
	}
	p.arrays[unsafe.SliceData(v)] = a
	return v, nil
}

func (p *arrayPool) array(v []float64) *dist.Array[float64] {
	a, ok := p.arrays[unsafe.SliceData(v)]
	if !ok {
		panic("optimize: internal error: a buffer that is no array")
	}
	return a
}

// take removes v's array from the pool (so that free leaves it) and
// returns it.
func (p *arrayPool) take(v []float64) *dist.Array[float64] {
	a := p.array(v)
	delete(p.arrays, unsafe.SliceData(v))
	return a
}

func (p *arrayPool) free() {
	for _, a := range p.arrays {
		a.Free()
	}
}

type newtonKrylov struct {
	f      DistSystem
	o      *KrylovOptions
	p      *arrayPool
	comm   mpi.Comm
	reduce bool
	nfev   int
}

func (s *newtonKrylov) eval(x, fx []float64) error {
	s.nfev++
	return mpi.Agree(s.comm, s.f(s.p.array(x), s.p.array(fx)))
}

func (s *newtonKrylov) dot(x, y []float64) (float64, error) {
	return dotLocal(s.comm, s.reduce, x, y)
}

func (s *newtonKrylov) norm(x []float64) (float64, error) {
	v, err := s.dot(x, x)
	return math.Sqrt(v), err
}

func (s *newtonKrylov) maxAbs(x []float64) (float64, error) {
	m, nan := 0.0, 0.0
	for _, v := range x {
		if math.IsNaN(v) {
			nan = 1
		}
		m = math.Max(m, math.Abs(v))
	}
	if s.reduce {
		buf := []float64{m, nan}
		if err := mpi.AllreduceInPlace(s.comm, buf, mpi.Max); err != nil {
			return 0, err
		}
		m, nan = buf[0], buf[1]
	}
	if nan > 0 {
		return math.NaN(), nil
	}
	return m, nil
}

func (s *newtonKrylov) run(x0 []float64) (*KrylovResult, []float64, error) {
	o := s.o
	m := o.Restart
	// Vectors: x, F(x), the trial point and its F, the step, the
	// residual, the Jacobian-vector product, and the Krylov basis.
	vecs := make([][]float64, 7+m+1)
	for i := range vecs {
		v, err := s.p.alloc()
		if err != nil {
			return nil, nil, err
		}
		vecs[i] = v
	}
	x, fx, xt, ft, d, r, w := vecs[0], vecs[1], vecs[2], vecs[3], vecs[4], vecs[5], vecs[6]
	basis := vecs[7:]
	copy(x, x0)
	if err := s.eval(x, fx); err != nil {
		return nil, nil, err
	}
	res := &KrylovResult{}
	fmax, err := s.maxAbs(fx)
	if err != nil {
		return nil, nil, err
	}
	fnorm, err := s.norm(fx)
	if err != nil {
		return nil, nil, err
	}
	tol := o.FTol
	if o.FRTol > 0 {
		tol = math.Max(tol, o.FRTol*fmax)
	}
	const gamma, alphaEW, c1 = 0.9, 2.0, 1e-4
	eta, fnormPrev := 0.5, 0.0
	h := make([][]float64, m+1) // Hessenberg matrix, h[i][j]
	for i := range h {
		h[i] = make([]float64, m)
	}
	cs, sn, g, y := make([]float64, m), make([]float64, m), make([]float64, m+1), make([]float64, m)
	var stopErr error
	for {
		if fmax <= tol {
			res.Converged = true
			break
		}
		if !isFiniteF(fmax) {
			stopErr = fmt.Errorf("%w: F is not finite (max|F| = %g)", ErrNaN, fmax)
			break
		}
		if res.NIt >= o.MaxIter {
			stopErr = fmt.Errorf("%w: %d Newton iterations, max|F| = %g", ErrMaxIter, res.NIt, fmax)
			break
		}
		if o.MaxFev > 0 && s.nfev >= o.MaxFev {
			stopErr = fmt.Errorf("%w: %d evaluations of F, max|F| = %g", ErrMaxFun, s.nfev, fmax)
			break
		}
		// The forcing term.
		if res.NIt > 0 {
			r := fnorm / fnormPrev
			e := gamma * math.Pow(r, alphaEW)
			if safe := gamma * math.Pow(eta, alphaEW); safe > 0.1 {
				e = math.Max(e, safe)
			}
			eta = math.Min(e, o.EtaMax)
		}
		xnorm, err := s.norm(x)
		if err != nil {
			return nil, nil, err
		}
		// J v by forward differences (|v| = 1 for the basis).
		jv := func(v, out []float64, vnorm float64) error {
			step := o.RDiff * math.Max(1, xnorm) / vnorm
			for i := range xt {
				xt[i] = x[i] + step*v[i]
			}
			if err := s.eval(xt, ft); err != nil {
				return err
			}
			for i := range out {
				out[i] = (ft[i] - fx[i]) / step
			}
			return nil
		}
		// GMRES(m) on J d = -F from d = 0.
		for i := range d {
			d[i] = 0
			r[i] = -fx[i]
		}
		lintol := eta * fnorm
		beta := fnorm
		inner := 0
		for beta > lintol && inner < o.InnerMaxIter {
			for i := range r {
				basis[0][i] = r[i] / beta
			}
			for i := range g {
				g[i] = 0
			}
			g[0] = beta
			k := 0
			for k < m && inner < o.InnerMaxIter {
				if err := jv(basis[k], w, 1); err != nil {
					return nil, nil, err
				}
				inner++
				for i := 0; i <= k; i++ {
					hik, err := s.dot(w, basis[i])
					if err != nil {
						return nil, nil, err
					}
					h[i][k] = hik
					for j := range w {
						w[j] -= hik * basis[i][j]
					}
				}
				wn, err := s.norm(w)
				if err != nil {
					return nil, nil, err
				}
				h[k+1][k] = wn
				if wn != 0 {
					for j := range w {
						basis[k+1][j] = w[j] / wn
					}
				}
				for i := 0; i < k; i++ {
					a, b := h[i][k], h[i+1][k]
					h[i][k] = cs[i]*a + sn[i]*b
					h[i+1][k] = -sn[i]*a + cs[i]*b
				}
				den := math.Hypot(h[k][k], h[k+1][k])
				if den == 0 {
					cs[k], sn[k] = 1, 0
				} else {
					cs[k], sn[k] = h[k][k]/den, h[k+1][k]/den
				}
				h[k][k] = den
				h[k+1][k] = 0
				g[k+1] = -sn[k] * g[k]
				g[k] = cs[k] * g[k]
				k++
				if math.Abs(g[k]) <= lintol || wn == 0 {
					break
				}
			}
			// d += V y with H y = g.
			for i := k - 1; i >= 0; i-- {
				v := g[i]
				for j := i + 1; j < k; j++ {
					v -= h[i][j] * y[j]
				}
				y[i] = 0
				if h[i][i] != 0 {
					y[i] = v / h[i][i]
				}
			}
			for i := 0; i < k; i++ {
				for j := range d {
					d[j] += y[i] * basis[i][j]
				}
			}
			res.NLinear += k
			if math.Abs(g[k]) <= lintol || inner >= o.InnerMaxIter {
				break
			}
			// Restart from the true residual -F - J d.
			dn, err := s.norm(d)
			if err != nil {
				return nil, nil, err
			}
			if dn == 0 {
				break
			}
			if err := jv(d, w, dn); err != nil {
				return nil, nil, err
			}
			for i := range r {
				r[i] = -fx[i] - w[i]
			}
			if beta, err = s.norm(r); err != nil {
				return nil, nil, err
			}
		}
		// Backtracking on |F|.
		lam, accepted := 1.0, false
		var fnormNew float64
		for bt := 0; bt <= o.MaxBacktrack; bt++ {
			for i := range xt {
				xt[i] = x[i] + lam*d[i]
			}
			if err := s.eval(xt, ft); err != nil {
				return nil, nil, err
			}
			if fnormNew, err = s.norm(ft); err != nil {
				return nil, nil, err
			}
			if fnormNew <= (1-c1*lam)*fnorm {
				accepted = true
				break
			}
			lam *= 0.5
		}
		if !accepted {
			stopErr = fmt.Errorf("%w: no decrease of |F| along the Newton direction (max|F| = %g)", ErrLineSearch, fmax)
			break
		}
		x, xt = xt, x
		fx, ft = ft, fx
		fnormPrev, fnorm = fnorm, fnormNew
		if fmax, err = s.maxAbs(fx); err != nil {
			return nil, nil, err
		}
		res.NIt++
	}
	res.FMax, res.FNorm, res.NFev = fmax, fnorm, s.nfev
	return res, x, stopErr
}
