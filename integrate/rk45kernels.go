package integrate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xpmpi/xpmpi/backend"
	"github.com/xpmpi/xpmpi/kernels"
)

// The kernels of SolveIVPBatchArray, registered in kernels.Default (so
// that `xpmpi kernels --compile` compiles them and kerneltest's parity
// runs them). Each has one thread per system (a grid-stride loop over the
// systems, the system's values in a loop), a host implementation that is
// the lockstep batch's arithmetic (batch.go) for one system, and CUDA
// source that does the same operations in the same order (compiled with
// --fmad=false, so without contractions into multiply-adds).
//
// State layout (n systems of d values): y, ynew and yold hold n*d values,
// system after system; k holds the seven stages, stage j at j*n*d; t, h,
// habs, tnew and ts hold one value per system; st holds rk45Fields int64
// per system (rk45St... below).

// The fields of a system's int64 record in st.
const (
	rk45StStatus   = iota // rk45Running, rk45Done or a failure
	rk45StFresh           // the next step starts from an accepted one (or the start)
	rk45StRejected        // the step was rejected since the last acceptance
	rk45StIasti           // Hairer's stiffness counters
	rk45StNonsti
	rk45StSteps   // accepted steps
	rk45StRejects // rejected steps
	rk45StStiff   // the stiffness test fired (1)
	rk45Fields
)

// A system's status in st.
const (
	rk45Running   = 0
	rk45Done      = 1
	rk45TooSmall  = 2
	rk45NonFinite = 3
	rk45Stiff     = 4
	rk45MaxSteps  = 5
)

// rk45Source is the CUDA source of the three kernels; the constants of
// pow.go are written in hexadecimal, so that they are the host's bits.
var rk45Source = func() string {
	hex := func(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }
	lit := func(vs []float64) string {
		s := make([]string, len(vs))
		for i, v := range vs {
			s[i] = hex(v)
		}
		return strings.Join(s, ", ")
	}
	var a []float64
	for _, row := range dpA {
		a = append(a, row[:]...)
	}
	r := strings.NewReplacer(
		"@FIFTH@", lit(fifthRootInv[:]),
		"@C@", lit(dpC[:]),
		"@A@", lit(a),
		"@B@", lit(dpB[:]),
		"@E@", lit(dpE[:]),
		"@SAFETY@", hex(safety), "@MINF@", hex(minFactor), "@MAXF@", hex(maxFactor),
		"@STIFFB@", hex(stiffBound), "@STIFFN@", strconv.Itoa(stiffSteps),
		"@NF@", strconv.Itoa(rk45Fields))
	return r.Replace(rk45CUDA)
}()

const rk45CUDA = `
#define RK45_NF @NF@
#define RK45_INF __longlong_as_double(0x7ff0000000000000LL)

__device__ static const double rk45_fifth[5] = {@FIFTH@};
__device__ static const double rk45_c[6] = {@C@};
__device__ static const double rk45_a[30] = {@A@};
__device__ static const double rk45_b[6] = {@B@};
__device__ static const double rk45_e[7] = {@E@};

// Go's max of floats: NaN if either is.
__device__ static double rk45_max(double a, double b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
__device__ static double rk45_min(double a, double b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }

// powMinusFifth of integrate/pow.go.
__device__ static double rk45_powm5(double x)
{
	if (!(x >= 0x1p-1000 && x <= 0x1p1000)) {
		return pow(x, -0.2);
	}
	unsigned long long b = (unsigned long long)__double_as_longlong(x);
	int e = (int)(b >> 52) - 1023 + 1005;
	int q = e / 5 - 201, r = e % 5;
	double m = __longlong_as_double((long long)((b & ((1ULL << 52) - 1)) | (1023ULL << 52)));
	double m2 = m * m;
	double y = (1.4333795578200612 - 0.8355689744042396 * m) +
		m2 * ((0.6306800658551629 - 0.29677370160695377 * m) + m2 * (0.07656749556067803 - 0.008290818997921164 * m));
	double y2 = y * y;
	double c = 1 - m * (y2 * y2 * y);
	y += y * (c * (0.2 + c * (0.12 + c * 0.088)));
	return y * rk45_fifth[r] * __longlong_as_double((long long)((unsigned long long)(1023 - q) << 52));
}

// rk45_init: mode 0 computes d0, d1 and h0 of Hairer's initial step (into
// sc[s], sc[n+s] = d1, sc[s] = h0), the point y + h0*direction*f0 (ynew)
// and its time (ts); mode 1 computes d2 from f there (k1) into sc[2n+s].
extern "C" __global__ void rk45_init(long long n, long long d, int mode, double t0, double direction,
	const double *atol, const double *rtol, const double *y, const double *f0, const double *k1,
	double *sc, double *ts, double *ynew)
{
	for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += (long long)gridDim.x * blockDim.x) {
		const double *ys = y + s * d, *fs = f0 + s * d;
		if (mode == 0) {
			double s0 = 0, s1 = 0;
			for (long long c = 0; c < d; c++) {
				double e = ys[c] / (atol[c] + fabs(ys[c]) * rtol[c]);
				s0 += e * e;
			}
			for (long long c = 0; c < d; c++) {
				double e = fs[c] / (atol[c] + fabs(ys[c]) * rtol[c]);
				s1 += e * e;
			}
			double d0 = sqrt(s0 / (double)d), d1 = sqrt(s1 / (double)d);
			double h0 = 0.01 * d0 / d1;
			if (d0 < 1e-5 || d1 < 1e-5) {
				h0 = 1e-6;
			}
			sc[s] = h0;
			sc[n + s] = d1;
			ts[s] = t0 + h0 * direction;
			for (long long c = 0; c < d; c++) {
				ynew[s * d + c] = ys[c] + h0 * direction * fs[c];
			}
		} else {
			const double *ks = k1 + s * d;
			double s2 = 0;
			for (long long c = 0; c < d; c++) {
				double e = (ks[c] - fs[c]) / (atol[c] + fabs(ys[c]) * rtol[c]);
				s2 += e * e;
			}
			sc[2 * n + s] = sqrt(s2 / (double)d) / sc[s];
		}
	}
}

// rk45_stage: the argument of stage 1 <= stage <= 5 of every system's
// attempt (ynew, at time ts), or with stage 6 the new state (ynew, with the
// last stage's argument kept in yold).
extern "C" __global__ void rk45_stage(long long n, long long d, int stage,
	const double *t, const double *h, const double *y, const double *k, double *ynew, double *yold, double *ts)
{
	long long nv = n * d;
	for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += (long long)gridDim.x * blockDim.x) {
		double hs = h[s];
		if (stage < 6) {
			ts[s] = t[s] + rk45_c[stage] * hs;
			for (long long i = s * d; i < (s + 1) * d; i++) {
				double dy = 0;
				for (int j = 0; j < stage; j++) {
					dy += k[j * nv + i] * rk45_a[stage * 5 + j];
				}
				ynew[i] = y[i] + dy * hs;
			}
		} else {
			for (long long i = s * d; i < (s + 1) * d; i++) {
				yold[i] = ynew[i];
				double dy = 0;
				for (int j = 0; j < 6; j++) {
					dy += k[j * nv + i] * rk45_b[j];
				}
				ynew[i] = y[i] + hs * dy;
			}
		}
	}
}

// rk45_control: with mode 1 the end of every running system's attempt
// (error test, acceptance or rejection, the new step size, the stiffness
// test, the stop), then with modes 0 and 1 the start of the next attempt
// (h, habs, tnew); mode 0 first makes every system a fresh one (the
// start); left[0] gets the number of systems still running.
extern "C" __global__ void rk45_control(long long n, long long d, int mode, double tbound, double direction,
	double maxstep, long long maxsteps, int ignorestiff, const double *atol, const double *rtol,
	double *t, double *habs, double *h, double *tnew, double *stiffat,
	double *y, const double *ynew, const double *yold, double *k, long long *st, long long *left)
{
	long long nv = n * d;
	unsigned long long running = 0;
	for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < n; s += (long long)gridDim.x * blockDim.x) {
		long long *r = st + s * RK45_NF;
		if (mode == 0) {
			// The start: a fresh system.
			for (int j = 0; j < RK45_NF; j++) {
				r[j] = 0;
			}
			r[1] = 1;
			stiffat[s] = 0;
		}
		if (mode == 1 && r[0] == 0) {
			double sum = 0;
			for (long long c = 0; c < d; c++) {
				long long i = s * d + c;
				double sc = atol[c] + rk45_max(fabs(y[i]), fabs(ynew[i])) * rtol[c];
				double e = 0;
				for (int j = 0; j < 7; j++) {
					e += k[j * nv + i] * rk45_e[j];
				}
				double v = e * h[s] / sc;
				sum += v * v;
			}
			double errnorm = d == 0 ? 0 : sqrt(sum / (double)d);
			bool stop = false;
			if (!(errnorm < 1)) {
				if (errnorm != errnorm) {
					r[0] = 3;
					stop = true;
				} else {
					habs[s] *= rk45_max(@MINF@, @SAFETY@ * rk45_powm5(errnorm));
					r[2] = 1;
					r[6]++;
				}
			} else {
				double factor = @MAXF@;
				if (errnorm != 0) {
					factor = rk45_min(@MAXF@, @SAFETY@ * rk45_powm5(errnorm));
				}
				if (r[2]) {
					factor = rk45_min(1, factor);
				}
				habs[s] *= factor;
				r[5]++;
				double num = 0, den = 0;
				for (long long i = s * d; i < (s + 1) * d; i++) {
					double x = k[6 * nv + i] - k[5 * nv + i];
					num += x * x;
				}
				for (long long i = s * d; i < (s + 1) * d; i++) {
					double x = ynew[i] - yold[i];
					den += x * x;
				}
				if (den > 0 && fabs(h[s]) * sqrt(num / den) > @STIFFB@) {
					r[4] = 0;
					r[3]++;
					if (r[3] == @STIFFN@ && !r[7]) {
						r[7] = 1;
						stiffat[s] = tnew[s];
					}
				} else {
					r[4]++;
					if (r[4] == 6) {
						r[3] = 0;
					}
				}
				for (long long i = s * d; i < (s + 1) * d; i++) {
					y[i] = ynew[i];
					k[i] = k[6 * nv + i];
				}
				t[s] = tnew[s];
				r[1] = 1;
				if (t[s] == tbound) {
					r[0] = 1;
					stop = true;
				} else if (r[7] && !ignorestiff) {
					r[0] = 4;
					stop = true;
				} else if (maxsteps > 0 && r[5] >= maxsteps) {
					r[0] = 5;
					stop = true;
				}
			}
			if (stop) {
				h[s] = 0;
				tnew[s] = t[s];
			}
		}
		// The start of the next attempt.
		if (r[0] != 0) {
			h[s] = 0;
			tnew[s] = t[s];
			continue;
		}
		double ts = t[s];
		double minstep = 10 * fabs(nextafter(ts, direction * RK45_INF) - ts);
		if (r[1]) {
			if (habs[s] > maxstep) {
				habs[s] = maxstep;
			} else if (habs[s] < minstep) {
				habs[s] = minstep;
			}
			r[1] = 0;
			r[2] = 0;
		}
		if (habs[s] < minstep) {
			r[0] = 2;
			h[s] = 0;
			tnew[s] = ts;
			continue;
		}
		double tn = ts + habs[s] * direction;
		if (direction * (tn - tbound) > 0) {
			tn = tbound;
		}
		h[s] = tn - ts;
		habs[s] = fabs(h[s]);
		tnew[s] = tn;
		running++;
	}
	// The count of running systems: a sum over the block in a tree in
	// shared memory (any block size up to 1024), one atomic add per block
	// (integers: the same total in any order).
	__shared__ unsigned long long part[1024];
	part[threadIdx.x] = running;
	__syncthreads();
	for (unsigned int w = 1; w < blockDim.x; w *= 2) {
		if (threadIdx.x % (2 * w) == 0 && threadIdx.x + w < blockDim.x) {
			part[threadIdx.x] += part[threadIdx.x + w];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0 && part[0] != 0) {
		atomicAdd((unsigned long long *)left, part[0]);
	}
}
`

// rk45InitHost is rk45_init on the host: initialSteps' arithmetic.
func rk45InitHost(c *kernels.HostCall) error {
	n, d, mode := kernels.IntAt(c, 0), kernels.IntAt(c, 1), kernels.ScalarAt[int32](c, 2)
	t0, direction := kernels.ScalarAt[float64](c, 3), kernels.ScalarAt[float64](c, 4)
	atol, rtol := kernels.In[float64](c, 5), kernels.In[float64](c, 6)
	y, f0, k1 := kernels.In[float64](c, 7), kernels.In[float64](c, 8), kernels.In[float64](c, 9)
	sc := kernels.Out[float64](c, 10)
	if err := rk45Check(c, n, d, len(atol), len(rtol), len(y), len(f0), len(k1)); err != nil {
		return err
	}
	if len(sc) < 3*n {
		return fmt.Errorf("sc holds %d values for %d systems", len(sc), n)
	}
	if mode == 0 {
		ts, ynew := kernels.Out[float64](c, 11), kernels.Out[float64](c, 12)
		if len(ts) < n || len(ynew) < n*d {
			return fmt.Errorf("ts or ynew too short for %d systems of %d values", n, d)
		}
		for s := 0; s < n; s++ {
			ys, fs := y[s*d:(s+1)*d], f0[s*d:(s+1)*d]
			var s0, s1 float64
			for i := range ys {
				e := ys[i] / (atol[i] + math.Abs(ys[i])*rtol[i])
				s0 += e * e
			}
			for i := range ys {
				e := fs[i] / (atol[i] + math.Abs(ys[i])*rtol[i])
				s1 += e * e
			}
			d0, d1 := math.Sqrt(s0/float64(d)), math.Sqrt(s1/float64(d))
			h0 := 0.01 * d0 / d1
			if d0 < 1e-5 || d1 < 1e-5 {
				h0 = 1e-6
			}
			sc[s], sc[n+s] = h0, d1
			ts[s] = t0 + h0*direction
			for i := range ys {
				ynew[s*d+i] = ys[i] + h0*direction*fs[i]
			}
		}
		return nil
	}
	for s := 0; s < n; s++ {
		var s2 float64
		for i := s * d; i < (s+1)*d; i++ {
			e := (k1[i] - f0[i]) / (atol[i-s*d] + math.Abs(y[i])*rtol[i-s*d])
			s2 += e * e
		}
		sc[2*n+s] = math.Sqrt(s2/float64(d)) / sc[s]
	}
	return nil
}

// rk45Check checks the lengths of a call's tolerances (d) and state arrays
// (n*d).
func rk45Check(c *kernels.HostCall, n, d, atol, rtol int, states ...int) error {
	if n < 0 || d < 0 || atol < d || rtol < d {
		return fmt.Errorf("%d systems of %d values with %d and %d tolerances", n, d, atol, rtol)
	}
	for _, l := range states {
		if l < n*d {
			return fmt.Errorf("a state of %d values for %d systems of %d values", l, n, d)
		}
	}
	return nil
}

// rk45StageHost is rk45_stage on the host: batch.stages' arithmetic.
func rk45StageHost(c *kernels.HostCall) error {
	n, d, stage := kernels.IntAt(c, 0), kernels.IntAt(c, 1), int(kernels.ScalarAt[int32](c, 2))
	t, h, y, k := kernels.In[float64](c, 3), kernels.In[float64](c, 4), kernels.In[float64](c, 5), kernels.In[float64](c, 6)
	ynew, yold, ts := kernels.Out[float64](c, 7), kernels.Out[float64](c, 8), kernels.Out[float64](c, 9)
	if err := rk45Check(c, n, d, d, d, len(y), len(ynew), len(yold), len(k)/7); err != nil {
		return err
	}
	if stage < 1 || stage > 6 || len(t) < n || len(h) < n || len(ts) < n {
		return fmt.Errorf("stage %d with %d, %d and %d times for %d systems", stage, len(t), len(h), len(ts), n)
	}
	nv := n * d
	for s := 0; s < n; s++ {
		hs := h[s]
		if stage < 6 {
			ts[s] = t[s] + dpC[stage]*hs
			a := &dpA[stage]
			for i := s * d; i < (s+1)*d; i++ {
				var dy float64
				for j := 0; j < stage; j++ {
					dy += k[j*nv+i] * a[j]
				}
				ynew[i] = y[i] + dy*hs
			}
			continue
		}
		for i := s * d; i < (s+1)*d; i++ {
			yold[i] = ynew[i]
			var dy float64
			for j := 0; j < 6; j++ {
				dy += k[j*nv+i] * dpB[j]
			}
			ynew[i] = y[i] + hs*dy
		}
	}
	return nil
}

// rk45ControlHost is rk45_control on the host: batch.finish's and
// batch.begin's arithmetic and decisions for each system.
func rk45ControlHost(c *kernels.HostCall) error {
	n, d, mode := kernels.IntAt(c, 0), kernels.IntAt(c, 1), kernels.ScalarAt[int32](c, 2)
	tBound, direction, maxStep := kernels.ScalarAt[float64](c, 3), kernels.ScalarAt[float64](c, 4), kernels.ScalarAt[float64](c, 5)
	maxSteps, ignoreStiff := int64(kernels.IntAt(c, 6)), kernels.ScalarAt[int32](c, 7) != 0
	atol, rtol := kernels.In[float64](c, 8), kernels.In[float64](c, 9)
	t, hAbs, h, tNew, stiffAt := kernels.Out[float64](c, 10), kernels.Out[float64](c, 11), kernels.Out[float64](c, 12), kernels.Out[float64](c, 13), kernels.Out[float64](c, 14)
	y, yNew, yOld, k := kernels.Out[float64](c, 15), kernels.In[float64](c, 16), kernels.In[float64](c, 17), kernels.Out[float64](c, 18)
	st, left := kernels.Out[int64](c, 19), kernels.Out[int64](c, 20)
	if err := rk45Check(c, n, d, len(atol), len(rtol), len(y), len(yNew), len(yOld), len(k)/7); err != nil {
		return err
	}
	for _, l := range [...]int{len(t), len(hAbs), len(h), len(tNew), len(stiffAt), len(st) / rk45Fields} {
		if l < n {
			return fmt.Errorf("a per-system array of %d values for %d systems", l, n)
		}
	}
	if len(left) < 1 {
		return fmt.Errorf("no count array")
	}
	nv := n * d
	var running int64
	for s := 0; s < n; s++ {
		r := st[s*rk45Fields : (s+1)*rk45Fields]
		if mode == 0 {
			// The start: a fresh system (batch.load).
			clear(r)
			r[rk45StFresh], stiffAt[s] = 1, 0
		}
		if mode == 1 && r[rk45StStatus] == rk45Running {
			var sum float64
			for i := s * d; i < (s+1)*d; i++ {
				sc := atol[i-s*d] + max(math.Abs(y[i]), math.Abs(yNew[i]))*rtol[i-s*d]
				var e float64
				for j := 0; j < 7; j++ {
					e += k[j*nv+i] * dpE[j]
				}
				v := e * h[s] / sc
				sum += v * v
			}
			var errNorm float64
			if d > 0 {
				errNorm = math.Sqrt(sum / float64(d))
			}
			stop := false
			if !(errNorm < 1) {
				if math.IsNaN(errNorm) {
					r[rk45StStatus], stop = rk45NonFinite, true
				} else {
					hAbs[s] *= rejectFactor(errNorm)
					r[rk45StRejected] = 1
					r[rk45StRejects]++
				}
			} else {
				hAbs[s] *= acceptFactor(errNorm, r[rk45StRejected] != 0)
				r[rk45StSteps]++
				// Hairer's stiffness test.
				var num, den float64
				for i := s * d; i < (s+1)*d; i++ {
					x := k[6*nv+i] - k[5*nv+i]
					num += x * x
				}
				for i := s * d; i < (s+1)*d; i++ {
					x := yNew[i] - yOld[i]
					den += x * x
				}
				if den > 0 && math.Abs(h[s])*math.Sqrt(num/den) > stiffBound {
					r[rk45StNonsti] = 0
					r[rk45StIasti]++
					if r[rk45StIasti] == stiffSteps && r[rk45StStiff] == 0 {
						r[rk45StStiff], stiffAt[s] = 1, tNew[s]
					}
				} else {
					r[rk45StNonsti]++
					if r[rk45StNonsti] == 6 {
						r[rk45StIasti] = 0
					}
				}
				for i := s * d; i < (s+1)*d; i++ {
					y[i] = yNew[i]
					k[i] = k[6*nv+i]
				}
				t[s] = tNew[s]
				r[rk45StFresh] = 1
				switch {
				case t[s] == tBound:
					r[rk45StStatus], stop = rk45Done, true
				case r[rk45StStiff] != 0 && !ignoreStiff:
					r[rk45StStatus], stop = rk45Stiff, true
				case maxSteps > 0 && r[rk45StSteps] >= maxSteps:
					r[rk45StStatus], stop = rk45MaxSteps, true
				}
			}
			if stop {
				h[s], tNew[s] = 0, t[s]
			}
		}
		// The start of the next attempt (batch.begin).
		if r[rk45StStatus] != rk45Running {
			h[s], tNew[s] = 0, t[s]
			continue
		}
		ts := t[s]
		minStep := 10 * math.Abs(math.Nextafter(ts, direction*math.Inf(1))-ts)
		if r[rk45StFresh] != 0 {
			if hAbs[s] > maxStep {
				hAbs[s] = maxStep
			} else if hAbs[s] < minStep {
				hAbs[s] = minStep
			}
			r[rk45StFresh], r[rk45StRejected] = 0, 0
		}
		if hAbs[s] < minStep {
			r[rk45StStatus] = rk45TooSmall
			h[s], tNew[s] = 0, ts
			continue
		}
		tn := ts + hAbs[s]*direction
		if direction*(tn-tBound) > 0 {
			tn = tBound
		}
		h[s] = tn - ts
		hAbs[s] = math.Abs(h[s])
		tNew[s] = tn
		running++
	}
	left[0] += running
	return nil
}

// The kernels, registered in kernels.Default.
var (
	rk45InitKernel = kernels.MustNew(kernels.Spec{
		Name:   "rk45_init",
		Doc:    "Hairer's initial step of many RK45 systems (integrate.SolveIVPBatchArray)",
		CUDA:   rk45Source,
		Host:   rk45InitHost,
		Parity: rk45Cases("init"),
	})
	rk45StageKernel = kernels.MustNew(kernels.Spec{
		Name:   "rk45_stage",
		Doc:    "a Dormand-Prince stage's argument for many systems (integrate.SolveIVPBatchArray)",
		CUDA:   rk45Source,
		Host:   rk45StageHost,
		Parity: rk45Cases("stage"),
	})
	rk45ControlKernel = kernels.MustNew(kernels.Spec{
		Name:   "rk45_control",
		Doc:    "RK45 error control, acceptance and next step of many systems (integrate.SolveIVPBatchArray)",
		CUDA:   rk45Source,
		Host:   rk45ControlHost,
		Parity: rk45Cases("control"),
	})
)

func init() {
	kernels.MustRegister(rk45InitKernel)
	kernels.MustRegister(rk45StageKernel)
	kernels.MustRegister(rk45ControlKernel)
}

// rk45Cases are the parity cases of a kernel: systems of 3 values (an odd
// count of them), of 1, an empty batch and systems of no values, with
// states and stages whose steps are accepted, rejected, too small, at the
// end, non-finite and stiff.
func rk45Cases(kernel string) []kernels.ParityCase {
	mk := func(name string, n, d int) kernels.ParityCase {
		return kernels.ParityCase{Name: name, Make: func(b backend.Backend, _ backend.DType) ([]kernels.Arg, kernels.Config, error) {
			return rk45CaseArgs(kernel, b, n, d)
		}}
	}
	return []kernels.ParityCase{mk("37 systems of 3", 37, 3), mk("300 systems of 1", 300, 1), mk("no systems", 0, 2), mk("5 systems of 0", 5, 0)}
}

// rk45CaseArgs makes a parity case's arguments: deterministic values of
// all signs and scales, with a NaN, steps at the end of the interval and
// steps under the minimum.
func rk45CaseArgs(kernel string, b backend.Backend, n, d int) ([]kernels.Arg, kernels.Config, error) {
	var err error
	seed := uint64(12345)
	rnd := func() float64 { // a small LCG: the same values on both sides
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(seed>>11) / (1 << 53)
	}
	arr := func(m int, f func(i int) float64) *backend.Array[float64] {
		vs := make([]float64, m)
		for i := range vs {
			vs[i] = f(i)
		}
		if err != nil {
			return nil
		}
		var a *backend.Array[float64]
		a, err = kernels.NewArray[float64](b, vs)
		return a
	}
	nv := n * d
	atol := arr(d, func(int) float64 { return 1e-6 * (1 + rnd()) })
	rtol := arr(d, func(int) float64 { return 1e-3 * (1 + rnd()) })
	y := arr(nv, func(i int) float64 {
		if i == nv/2 && nv > 4 {
			return math.NaN()
		}
		return (rnd() - 0.5) * math.Pow(10, float64(i%5)-2)
	})
	// The stages are near one another, so that some errors are small.
	base := make([]float64, nv)
	for i := range base {
		base[i] = (rnd() - 0.5) * 4
	}
	k := arr(7*nv, func(i int) float64 {
		scale := 1e-4 * math.Pow(10, float64((i%nv)%4))
		return base[i%nv] * (1 + scale*(rnd()-0.5))
	})
	ynew := arr(nv, func(i int) float64 { return (rnd() - 0.5) * 2 })
	yold := arr(nv, func(i int) float64 { return (rnd() - 0.5) * 2 })
	t := arr(n, func(i int) float64 { return rnd() * 5 })
	h := arr(n, func(i int) float64 { return math.Pow(10, -float64(i%6)) * rnd() })
	ts := arr(n, func(int) float64 { return 0 })
	if err != nil {
		return nil, kernels.Config{}, err
	}
	cfg := kernels.Config{N: n}
	switch kernel {
	case "init":
		sc := arr(3*n, func(i int) float64 { return 0.5 + rnd() })
		return []kernels.Arg{kernels.Int(n), kernels.Int(d), kernels.Scalar(int32(n % 2)), kernels.Float(0.25), kernels.Float(-1),
			kernels.Array(atol), kernels.Array(rtol), kernels.Array(y), kernels.Array(ynew), kernels.Array(yold),
			kernels.Array(sc), kernels.Array(ts), kernels.Array(h)}, cfg, err
	case "stage":
		return []kernels.Arg{kernels.Int(n), kernels.Int(d), kernels.Scalar(int32(1 + n%6)),
			kernels.Array(t), kernels.Array(h), kernels.Array(y), kernels.Array(k), kernels.Array(ynew), kernels.Array(yold), kernels.Array(ts)}, cfg, err
	}
	tNew := arr(n, func(i int) float64 {
		if i%7 == 3 {
			return 6 // the end
		}
		return rnd() * 6
	})
	hAbs := arr(n, func(i int) float64 {
		if i%11 == 5 {
			return 1e-300 // under the minimum step
		}
		return rnd() * 2
	})
	stiffAt := arr(n, func(int) float64 { return 0 })
	left, e := backend.NewOn[int64](b, 1)
	if e != nil {
		return nil, cfg, e
	}
	stv := make([]int64, n*rk45Fields)
	for s := 0; s < n; s++ {
		r := stv[s*rk45Fields:]
		r[rk45StStatus] = int64(s % 9 / 8) // a few stopped
		r[rk45StFresh] = int64(s % 2)
		r[rk45StRejected] = int64(s % 3 / 2)
		r[rk45StIasti] = int64(s % 16)
		r[rk45StNonsti] = int64(s % 6)
		r[rk45StSteps] = int64(s % 13)
	}
	st, e := backend.NewOn[int64](b, len(stv))
	if e == nil {
		e = backend.CopyFromHostSlice(st, stv)
	}
	if e != nil {
		return nil, cfg, e
	}
	return []kernels.Arg{kernels.Int(n), kernels.Int(d), kernels.Scalar(int32(n % 2)), kernels.Float(6), kernels.Float(1), kernels.Float(1.5),
		kernels.Int(12), kernels.Scalar(int32(n % 2)), kernels.Array(atol), kernels.Array(rtol),
		kernels.Array(t), kernels.Array(hAbs), kernels.Array(h), kernels.Array(tNew), kernels.Array(stiffAt),
		kernels.Array(y), kernels.Array(ynew), kernels.Array(yold), kernels.Array(k), kernels.Array(st), kernels.Array(left)}, cfg, err
}
