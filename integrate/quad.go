package integrate

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Quadrature sentinels. A QuadResult's Err wraps one of them (test with
// errors.Is); its Ier holds QUADPACK's code, as scipy.integrate.quad's
// full_output reports it.
var (
	// ErrMaxSubdivisions: the limit on subintervals was reached (ier 1).
	ErrMaxSubdivisions = errors.New("integrate: the maximum number of subdivisions was reached")
	// ErrRoundoff: roundoff error kept the tolerance from being met (ier 2).
	ErrRoundoff = errors.New("integrate: roundoff error prevents the requested tolerance")
	// ErrBadIntegrand: the integrand behaves extremely badly at some point of
	// the interval, which could not be subdivided further (ier 3).
	ErrBadIntegrand = errors.New("integrate: extremely bad integrand behavior")
	// ErrNoConvergence: the extrapolation table did not converge, roundoff
	// in it is the likely cause (ier 4).
	ErrNoConvergence = errors.New("integrate: the algorithm does not converge")
	// ErrDivergent: the integral is probably divergent or converges too
	// slowly (ier 5).
	ErrDivergent = errors.New("integrate: the integral is probably divergent or slowly convergent")
	// ErrNonFinite: the integrand returned NaN or ±Inf (QUADPACK does not
	// check; Quad stops at the first such value, ier 7).
	ErrNonFinite = errors.New("integrate: the integrand returned a value that is not finite")
)

const (
	epmach = 0x1p-52         // QUADPACK's d1mach(4)
	uflow  = 0x1p-1022       // d1mach(1)
	oflow  = math.MaxFloat64 // d1mach(2)
	limexp = 50              // the extrapolation table's length
)

// QuadOptions are the tolerances and limits of Quad. The zero value (or
// nil) means SciPy's defaults: AbsTol and RelTol 1.49e-8, Limit 50.
type QuadOptions struct {
	// AbsTol and RelTol: the estimate is accepted when its error is at
	// most max(AbsTol, RelTol*|integral|). A negative value means 0 (zero
	// itself means the default, as everywhere in the options).
	AbsTol, RelTol float64
	// Limit is the most subintervals the adaptive algorithm makes.
	Limit int
	// Points are breakpoints inside a finite interval where the integrand
	// is singular or discontinuous (quad's points): with them, Quad runs
	// QUADPACK's qagp, which starts from the partition they make and
	// extrapolates in the levels of bisection. Points outside (a, b) and
	// repeated ones are dropped, as SciPy does. At most Limit-1 points.
	Points []float64
}

func (o *QuadOptions) values() (epsabs, epsrel float64, limit int) {
	epsabs, epsrel, limit = 1.49e-8, 1.49e-8, 50
	if o == nil {
		return
	}
	if o.AbsTol != 0 {
		epsabs = math.Max(o.AbsTol, 0)
	}
	if o.RelTol != 0 {
		epsrel = math.Max(o.RelTol, 0)
	}
	if o.Limit != 0 {
		limit = o.Limit
	}
	if limit < 1 {
		panic(fmt.Sprintf("integrate: Limit %d: at least one subinterval", limit))
	}
	if epsabs <= 0 && epsrel < math.Max(50*epmach, 0.5e-28) {
		panic(fmt.Sprintf("integrate: AbsTol %g and RelTol %g: QUADPACK needs AbsTol > 0 or RelTol >= %g", epsabs, epsrel, 50*epmach))
	}
	return
}

// QuadResult is what Quad returns: QUADPACK's result, abserr, neval, last
// and ier.
type QuadResult struct {
	Value  float64 // the estimate of the integral
	AbsErr float64 // the estimate of |integral - Value|
	Evals  int     // the number of integrand evaluations
	// Intervals is the number of subintervals of the final partition.
	Intervals int
	// Ier is QUADPACK's code: 0 success, 1-5 as the sentinels say, 7 a
	// value that is not finite.
	Ier int
	// Err is nil on success, else an error wrapping one of the sentinels
	// (Quad returns it too).
	Err error
}

// ierErr maps QUADPACK's final ier to the sentinels.
func ierErr(ier int) error {
	switch ier {
	case 0:
		return nil
	case 1:
		return ErrMaxSubdivisions
	case 2:
		return ErrRoundoff
	case 3:
		return ErrBadIntegrand
	case 4:
		return ErrNoConvergence
	case 5:
		return ErrDivergent
	default:
		return ErrNonFinite
	}
}

// Quad integrates f from a to b, as scipy.integrate.quad does: QUADPACK's
// qags (21-point Gauss-Kronrod, bisection of the subinterval with the
// largest error, Wynn's epsilon algorithm to extrapolate) on a finite
// interval, and qagi (the substitution x = a + (1-t)/t onto (0, 1], 15-point
// rule) where a or b is infinite. b < a gives minus the integral from b to
// a.
//
// On failure the result still holds the best estimate and its error, and
// the returned error (also in the result's Err) wraps ErrMaxSubdivisions,
// ErrRoundoff, ErrBadIntegrand, ErrNoConvergence, ErrDivergent or
// ErrNonFinite; SciPy warns in these cases and returns the same estimate.
// A NaN bound or bad options panic.
func Quad(f func(x float64) float64, a, b float64, opts *QuadOptions) (QuadResult, error) {
	epsabs, epsrel, limit := opts.values()
	if math.IsNaN(a) || math.IsNaN(b) {
		panic(fmt.Sprintf("integrate: Quad from %g to %g", a, b))
	}
	p := newProblem(a, b)
	if opts != nil && opts.Points != nil {
		p.setPoints(opts.Points, limit)
	}
	s := newQags(p, epsabs, epsrel, limit)
	var x, y []float64
	var res []ruleResult
	for !s.done {
		ivs := s.want()
		res = res[:0]
		for _, iv := range ivs {
			x = p.nodes(x[:0], iv.a, iv.b)
			y = eval1(f, x, y)
			res = append(res, p.apply(iv.a, iv.b, x, y))
		}
		s.give(res)
	}
	r := s.quadResult()
	return r, r.Err
}

func eval1(f func(float64) float64, x, y []float64) []float64 {
	y = append(y[:0], x...)
	for i, xi := range x {
		y[i] = f(xi)
	}
	return y
}

// problem is one integral: the rule, and for an infinite interval the
// transformation of qagi.
type problem struct {
	flip     bool    // b < a: the integral is from b to a, negated
	a, b     float64 // the bounds of the interval the rule sees
	inf      int     // 0 finite; 1 [bound, +inf); -1 (-inf, bound]; 2 both
	bound    float64 // qagi's bound
	rule     *gkRule
	perPoint int  // integrand evaluations per node
	empty    bool // a == b at infinity: 0, without evaluations
	// pts are qagp's breakpoints, a and b included, ascending (nil: qags).
	pts []float64
}

func newProblem(a, b float64) problem {
	p := problem{a: a, b: b, rule: &gk21, perPoint: 1}
	if b < a {
		p.flip, p.a, p.b = true, b, a
	}
	lo, hi := p.a, p.b
	if lo == hi && math.IsInf(lo, 0) {
		p.a, p.b, p.empty = 0, 0, true
		return p
	}
	switch {
	case !math.IsInf(lo, -1) && !math.IsInf(hi, 1):
		return p
	case math.IsInf(hi, 1) && !math.IsInf(lo, -1):
		p.inf, p.bound = 1, lo
	case math.IsInf(hi, 1) && math.IsInf(lo, -1):
		p.inf, p.bound, p.perPoint = 2, 0, 2
	default:
		p.inf, p.bound = -1, hi
	}
	p.a, p.b, p.rule = 0, 1, &gk15
	return p
}

// setPoints makes p a qagp problem with the breakpoints of pts that lie
// strictly inside the interval.
func (p *problem) setPoints(pts []float64, limit int) {
	if p.inf != 0 || p.empty {
		panic("integrate: Points need a finite interval")
	}
	inner := []float64{p.a}
	sorted := append([]float64(nil), pts...)
	sort.Float64s(sorted)
	for i, x := range sorted {
		if math.IsNaN(x) {
			panic("integrate: a NaN point")
		}
		if x > p.a && x < p.b && (i == 0 || x != sorted[i-1]) {
			inner = append(inner, x)
		}
	}
	inner = append(inner, p.b)
	if limit < len(inner)-1 {
		panic(fmt.Sprintf("integrate: Limit %d is less than the %d subintervals the points make", limit, len(inner)-1))
	}
	p.pts = inner
}

// nodes appends the points where the integrand is needed for the rule on
// [a, b] (in the rule's variable): for node i of the rule, perPoint values.
func (p *problem) nodes(x []float64, a, b float64) []float64 {
	r := p.rule
	centr := 0.5 * (a + b)
	hlgth := 0.5 * (b - a)
	for i := range r.xgk {
		var t1, t2 float64
		if i == len(r.xgk)-1 {
			t1, t2 = centr, centr
		} else {
			absc := hlgth * r.xgk[i]
			t1, t2 = centr-absc, centr+absc
		}
		for k, t := range [2]float64{t1, t2} {
			if i == len(r.xgk)-1 && k == 1 {
				break
			}
			if p.inf == 0 {
				x = append(x, t)
				continue
			}
			dinf := float64(min(1, p.inf))
			u := p.bound + dinf*(1-t)/t
			x = append(x, u)
			if p.inf == 2 {
				x = append(x, -u)
			}
		}
	}
	return x
}

// gkRule is a Gauss-Kronrod pair: xgk holds the Kronrod nodes in (0, 1)
// of the half interval, the center last; wgk the Kronrod weights; wg the
// Gauss weights of the same nodes (0 where a node is Kronrod's only).
type gkRule struct {
	xgk, wgk, wg []float64
}

var gk21 = gkRule{
	xgk: []float64{
		0.995657163025808080735527280689003,
		0.973906528517171720077964012084452,
		0.930157491355708226001207180059508,
		0.865063366688984510732096688423493,
		0.780817726586416897063717578345042,
		0.679409568299024406234327365114874,
		0.562757134668604683339000099272694,
		0.433395394129247190799265943165784,
		0.294392862701460198131126603103866,
		0.148874338981631210884826001129720,
		0,
	},
	wgk: []float64{
		0.011694638867371874278064396062192,
		0.032558162307964727478818972459390,
		0.054755896574351996031381300244580,
		0.075039674810919952767043140916190,
		0.093125454583697605535065465083366,
		0.109387158802297641899210590325805,
		0.123491976262065851077958109831074,
		0.134709217311473325928054001771707,
		0.142775938577060080797094273138717,
		0.147739104901338491374841515972068,
		0.149445554002916905664936468389821,
	},
	wg: []float64{
		0, 0.066671344308688137593568809893332,
		0, 0.149451349150580593145776339657697,
		0, 0.219086362515982043995534934228163,
		0, 0.269266719309996355091226921569469,
		0, 0.295524224714752870173892994651338,
		0,
	},
}

var gk15 = gkRule{
	xgk: []float64{
		0.991455371120812639206854697526329,
		0.949107912342758524526189684047851,
		0.864864423359769072789712788640926,
		0.741531185599394439863864773280788,
		0.586087235467691130294144845693013,
		0.405845151377397166906606412076961,
		0.207784955007898467600689403773245,
		0,
	},
	wgk: []float64{
		0.022935322010529224963732008058970,
		0.063092092629978553290700663189204,
		0.104790010322250183839876322541518,
		0.140653259715525918745189590510238,
		0.169004726639267902826583426598550,
		0.190350578064785409913256402421014,
		0.204432940075298892414161999234649,
		0.209482141084727828012999174891714,
	},
	wg: []float64{
		0, 0.129484966168869693270611432679082,
		0, 0.279705391489276667901467771423780,
		0, 0.381830050505118944950369775488975,
		0, 0.417959183673469387755102040816327,
	},
}

// ruleResult is one application of the rule (QUADPACK's qk21/qk15i
// outputs).
type ruleResult struct {
	result, abserr, resabs, resasc float64
	bad                            bool // a value was not finite
	badX                           float64
}

// apply combines the integrand values y at p.nodes(a, b) into the rule's
// estimate on [a, b], as qk21 (finite) and qk15i (transformed) do.
func (p *problem) apply(a, b float64, x, y []float64) ruleResult {
	r := p.rule
	nc := len(r.xgk) - 1
	centr := 0.5 * (a + b)
	hlgth := 0.5 * (b - a)
	var out ruleResult
	// The values of the rule's function at the nodes: for qagi the
	// integrand's values summed (both tails) and divided by t^2.
	val := func(j int, t float64) float64 {
		k := j * p.perPoint
		v := y[k]
		if !isFinite(v) && !out.bad {
			out.bad, out.badX = true, x[k]
		}
		if p.perPoint == 2 {
			if !isFinite(y[k+1]) && !out.bad {
				out.bad, out.badX = true, x[k+1]
			}
			v += y[k+1]
		}
		if p.inf != 0 {
			v = (v / t) / t
		}
		return v
	}
	fc := val(2*nc, centr)
	resg := r.wg[nc] * fc
	resk := r.wgk[nc] * fc
	resabs := math.Abs(resk)
	var fv1, fv2 [11]float64
	// The order of the sums is the Fortran's, for its rounding: qk15i
	// takes the nodes in order, qk21 the Gauss nodes (odd indices here)
	// first and then Kronrod's own, starting resg from 0 (the center is
	// no node of the 10-point Gauss rule). The extrapolation amplifies a
	// rounding difference of the subintervals' sums: summed in index
	// order, log(x)/sqrt(x) on [0, 1] at 1e-12 came out as
	// -3.9999999999999414 where SciPy gives -4.0000000000000853.
	sum := func(j int, gauss bool) {
		absc := hlgth * r.xgk[j]
		f1 := val(2*j, centr-absc)
		f2 := val(2*j+1, centr+absc)
		fv1[j], fv2[j] = f1, f2
		fsum := f1 + f2
		if gauss {
			resg += r.wg[j] * fsum
		}
		resk += r.wgk[j] * fsum
		resabs += r.wgk[j] * (math.Abs(f1) + math.Abs(f2))
	}
	if nc == 10 {
		resg = 0
		for j := 1; j < nc; j += 2 {
			sum(j, true)
		}
		for j := 0; j < nc; j += 2 {
			sum(j, false)
		}
	} else {
		for j := 0; j < nc; j++ {
			sum(j, true)
		}
	}
	reskh := resk * 0.5
	resasc := r.wgk[nc] * math.Abs(fc-reskh)
	for j := 0; j < nc; j++ {
		resasc += r.wgk[j] * (math.Abs(fv1[j]-reskh) + math.Abs(fv2[j]-reskh))
	}
	dh := math.Abs(hlgth)
	out.result = resk * hlgth
	out.resabs = resabs * dh
	out.resasc = resasc * dh
	out.abserr = math.Abs((resk - resg) * hlgth)
	if out.resasc != 0 && out.abserr != 0 {
		out.abserr = out.resasc * math.Min(1, math.Pow(200*out.abserr/out.resasc, 1.5))
	}
	if out.resabs > uflow/(50*epmach) {
		out.abserr = math.Max(epmach*50*out.resabs, out.abserr)
	}
	return out
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
