package optimize

import "math"

// A port of the MINPACK routines (Argonne National Laboratory, 1980:
// Garbow, Hillstrom and More) that hybrd and hybrj use, with the Fortran's
// order of operations, so that Root takes SciPy's steps. Matrices are
// column-major (a[i+j*n] is a(i,j)); r is the upper triangle packed by rows.

// dpmpar1 and dpmpar3 are MINPACK's dpmpar(1) and dpmpar(3) for IEEE
// machines: the data statements' decimal values, which SciPy's copy uses,
// not exactly 2^-52 and the largest float64.
const (
	dpmpar1 = 2.22044604926e-16
	dpmpar3 = 1.79769313485e+308
)

// enorm is the Euclidean norm of x, with sums of squares for small,
// intermediate and large components so that nothing overflows.
func enorm(x []float64) float64 {
	const rdwarf, rgiant = 3.834e-20, 1.304e19
	var s1, s2, s3, x1max, x3max float64
	agiant := rgiant / float64(len(x))
	for _, v := range x {
		xabs := math.Abs(v)
		switch {
		case xabs > rdwarf && xabs < agiant:
			s2 += xabs * xabs
		case xabs <= rdwarf:
			if xabs > x3max {
				t := x3max / xabs
				s3 = 1 + s3*t*t
				x3max = xabs
			} else if xabs != 0 {
				t := xabs / x3max
				s3 += t * t
			}
		default:
			if xabs > x1max {
				t := x1max / xabs
				s1 = 1 + s1*t*t
				x1max = xabs
			} else {
				t := xabs / x1max
				s1 += t * t
			}
		}
	}
	switch {
	case s1 != 0:
		return x1max * math.Sqrt(s1+(s2/x1max)/x1max)
	case s2 != 0:
		if s2 >= x3max {
			return math.Sqrt(s2 * (1 + (x3max/s2)*(x3max*s3)))
		}
		return math.Sqrt(x3max * ((s2 / x3max) + (x3max * s3)))
	}
	return x3max * math.Sqrt(s3)
}

// qrfac is MINPACK's qrfac without pivoting for an n by n matrix a:
// Householder transformations reduce a to R; on return the strict upper
// triangle of a holds R's, rdiag its diagonal, the lower trapezoid the
// factored form of Q, and acnorm the norms of a's columns.
func qrfac(n int, a, rdiag, acnorm []float64) {
	for j := 0; j < n; j++ {
		acnorm[j] = enorm(a[j*n : j*n+n])
		rdiag[j] = acnorm[j]
	}
	for j := 0; j < n; j++ {
		col := a[j*n : j*n+n]
		ajnorm := enorm(col[j:])
		if ajnorm != 0 {
			if col[j] < 0 {
				ajnorm = -ajnorm
			}
			for i := j; i < n; i++ {
				col[i] = col[i] / ajnorm
			}
			col[j] = col[j] + 1
			for k := j + 1; k < n; k++ {
				ck := a[k*n : k*n+n]
				sum := 0.0
				for i := j; i < n; i++ {
					sum = sum + col[i]*ck[i]
				}
				temp := sum / col[j]
				for i := j; i < n; i++ {
					ck[i] = ck[i] - temp*col[i]
				}
			}
		}
		rdiag[j] = -ajnorm
	}
}

// qform accumulates the n by n orthogonal matrix Q in q from the factored
// form qrfac left there.
func qform(n int, q, wa []float64) {
	for j := 1; j < n; j++ {
		for i := 0; i < j; i++ {
			q[i+j*n] = 0
		}
	}
	for k := n - 1; k >= 0; k-- {
		for i := k; i < n; i++ {
			wa[i] = q[i+k*n]
			q[i+k*n] = 0
		}
		q[k+k*n] = 1
		if wa[k] == 0 {
			continue
		}
		for j := k; j < n; j++ {
			c := q[j*n : j*n+n]
			sum := 0.0
			for i := k; i < n; i++ {
				sum = sum + c[i]*wa[i]
			}
			temp := sum / wa[k]
			for i := k; i < n; i++ {
				c[i] = c[i] - temp*wa[i]
			}
		}
	}
}

// dogleg computes the convex combination x of the Gauss-Newton and scaled
// gradient directions that minimizes |R x - qtb| with |diag*x| at most
// delta (r upper triangular, packed by rows).
func dogleg(n int, r, diag, qtb []float64, delta float64, x, wa1, wa2 []float64) {
	// The Gauss-Newton direction (1-based indices, as the Fortran).
	jj := n*(n+1)/2 + 1
	for k := 1; k <= n; k++ {
		j := n - k + 1
		jj -= k
		l := jj + 1
		sum := 0.0
		for i := j + 1; i <= n; i++ {
			sum = sum + r[l-1]*x[i-1]
			l++
		}
		temp := r[jj-1]
		if temp == 0 {
			l = j
			for i := 1; i <= j; i++ {
				temp = math.Max(temp, math.Abs(r[l-1]))
				l += n - i
			}
			temp = dpmpar1 * temp
			if temp == 0 {
				temp = dpmpar1
			}
		}
		x[j-1] = (qtb[j-1] - sum) / temp
	}
	for j := 0; j < n; j++ {
		wa1[j] = 0
		wa2[j] = diag[j] * x[j]
	}
	qnorm := enorm(wa2)
	if qnorm <= delta {
		return
	}
	// The scaled gradient direction.
	l := 0
	for j := 0; j < n; j++ {
		temp := qtb[j]
		for i := j; i < n; i++ {
			wa1[i] = wa1[i] + r[l]*temp
			l++
		}
		wa1[j] = wa1[j] / diag[j]
	}
	gnorm := enorm(wa1)
	sgnorm := 0.0
	alpha := delta / qnorm
	if gnorm != 0 {
		for j := 0; j < n; j++ {
			wa1[j] = (wa1[j] / gnorm) / diag[j]
		}
		l = 0
		for j := 0; j < n; j++ {
			sum := 0.0
			for i := j; i < n; i++ {
				sum = sum + r[l]*wa1[i]
				l++
			}
			wa2[j] = sum
		}
		temp := enorm(wa2)
		sgnorm = (gnorm / temp) / temp
		alpha = 0
		if sgnorm < delta {
			// The point along the dogleg where the quadratic is least.
			bnorm := enorm(qtb)
			temp = (bnorm / gnorm) * (bnorm / qnorm) * (sgnorm / delta)
			dq, sd := delta/qnorm, sgnorm/delta
			temp = temp - dq*(sd*sd) + math.Sqrt((temp-dq)*(temp-dq)+(1-dq*dq)*(1-sd*sd))
			alpha = (dq * (1 - sd*sd)) / temp
		}
	}
	temp := (1 - alpha) * math.Min(sgnorm, delta)
	for j := 0; j < n; j++ {
		x[j] = temp*wa1[j] + alpha*x[j]
	}
}

// givens returns MINPACK's rotation that eliminates b against a: cos,
// sin, and tau, the number from which r1mpyq recovers it.
func givens(a, b float64) (cos, sin, tau float64) {
	const p5, p25 = 0.5, 0.25
	if math.Abs(a) >= math.Abs(b) {
		tan := b / a
		cos = p5 / math.Sqrt(p25+p25*tan*tan)
		sin = cos * tan
		return cos, sin, sin
	}
	cotan := a / b
	sin = p5 / math.Sqrt(p25+p25*cotan*cotan)
	cos = sin * cotan
	tau = 1
	if math.Abs(cos)*dpmpar3 > 1 {
		tau = 1 / cos
	}
	return cos, sin, tau
}

// r1updt is MINPACK's r1updt for an n by n lower triangular s (R
// transposed, packed by columns: R packed by rows): it finds an orthogonal
// Q such that (s + u v^T) Q is again lower triangular, returns in v and w
// the information of Q's rotations, and reports whether a diagonal element
// of the result is zero. Indices are 1-based, as the Fortran's.
func r1updt(n int, s, u, v, w []float64) (sing bool) {
	m := n
	jj := (n*(2*m-n+1))/2 - (m - n)
	l := jj
	for i := n; i <= m; i++ {
		w[i-1] = s[l-1]
		l++
	}
	// Rotate v into a multiple of the n-th unit vector, introducing a
	// spike into w.
	for j := n - 1; j >= 1; j-- {
		jj -= m - j + 1
		w[j-1] = 0
		if v[j-1] == 0 {
			continue
		}
		cos, sin, tau := givens(v[n-1], v[j-1])
		v[n-1] = sin*v[j-1] + cos*v[n-1]
		v[j-1] = tau
		l = jj
		for i := j; i <= m; i++ {
			temp := cos*s[l-1] - sin*w[i-1]
			w[i-1] = sin*s[l-1] + cos*w[i-1]
			s[l-1] = temp
			l++
		}
	}
	for i := 1; i <= m; i++ {
		w[i-1] = w[i-1] + v[n-1]*u[i-1]
	}
	// Eliminate the spike.
	for j := 1; j <= n-1; j++ {
		if w[j-1] != 0 {
			cos, sin, tau := givens(s[jj-1], w[j-1])
			l = jj
			for i := j; i <= m; i++ {
				temp := cos*s[l-1] + sin*w[i-1]
				w[i-1] = -sin*s[l-1] + cos*w[i-1]
				s[l-1] = temp
				l++
			}
			w[j-1] = tau
		}
		if s[jj-1] == 0 {
			sing = true
		}
		jj += m - j + 1
	}
	l = jj
	for i := n; i <= m; i++ {
		s[l-1] = w[i-1]
		l++
	}
	if s[jj-1] == 0 {
		sing = true
	}
	return sing
}

// rotation recovers a rotation from r1updt's number.
func rotation(t float64) (cos, sin float64) {
	if math.Abs(t) > 1 {
		cos = 1 / t
		return cos, math.Sqrt(1 - cos*cos)
	}
	return math.Sqrt(1 - t*t), t
}

// r1mpyq replaces the m by n matrix a (column-major, leading dimension
// lda) by a Q, Q the product of the rotations r1updt described in v and w.
func r1mpyq(m, n int, a []float64, lda int, v, w []float64) {
	for j := n - 1; j >= 1; j-- {
		cos, sin := rotation(v[j-1])
		for i := 0; i < m; i++ {
			aj, an := &a[i+(j-1)*lda], &a[i+(n-1)*lda]
			temp := cos**aj - sin**an
			*an = sin**aj + cos**an
			*aj = temp
		}
	}
	for j := 1; j <= n-1; j++ {
		cos, sin := rotation(w[j-1])
		for i := 0; i < m; i++ {
			aj, an := &a[i+(j-1)*lda], &a[i+(n-1)*lda]
			temp := cos**aj + sin**an
			*an = -sin**aj + cos**an
			*aj = temp
		}
	}
}
