// Copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE-go file.

package pmath

import "math"

// Exp returns e**x, with math.Exp's special cases: the bits of amd64's
// assembly on a processor with FMA (Shibata's method, SLEEF), whose fused
// steps are math.FMA here, which rounds once on every machine.
func Exp(x float64) float64 {
	const (
		log2e    = 1.4426950408889634073599246810018920 // 1/ln(2)
		ln2U     = 0.69314718055966295651160180568695068359375
		ln2L     = 0.28235290563031577122588448175013436025525412068e-12
		overflow = 7.09782712893384e+02
		c2       = 1.6666666666666666667e-1
		c3       = 4.1666666666666666667e-2
		c4       = 8.3333333333333333333e-3
		c5       = 1.3888888888888888889e-3
		c6       = 1.9841269841269841270e-4
		c7       = 2.4801587301587301587e-5
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x > overflow:
		return math.Inf(1)
	}
	t := x * log2e
	if t < -1100 { // far below the smallest denormal
		return 0
	}
	k := int(math.RoundToEven(t))
	fk := float64(k)
	x = math.FMA(-fk, ln2U, x)
	x = math.FMA(-fk, ln2L, x)
	x *= 0.0625
	p := math.FMA(c7, x, c6)
	p = math.FMA(p, x, c5)
	p = math.FMA(p, x, c4)
	p = math.FMA(p, x, c3)
	p = math.FMA(p, x, c2)
	p = math.FMA(p, x, 0.5)
	p = math.FMA(p, x, 1.0)
	x = float64(x * p)
	x = float64(x * (x + 2))
	x = float64(x * (x + 2))
	x = float64(x * (x + 2))
	x = math.FMA(x, x+2, 1.0)

	// x * 2**k, as the assembly scales it.
	b := k + 0x3ff
	switch {
	case b >= 0x7ff:
		return math.Inf(1)
	case b > 0:
		return x * math.Float64frombits(uint64(b)<<52)
	case b < -52:
		return 0
	}
	x *= math.Float64frombits(uint64(b+0x3fe) << 52)
	return x * math.Float64frombits(1<<52)
}

// Exp2 returns 2**x, with math.Exp2's special cases; exact for integers
// within float64's range.
func Exp2(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		overflow  = 1.0239999999999999e+03
		underflow = -1.0740e+03
	)
	switch {
	case math.IsNaN(x):
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	}
	var k int
	switch {
	case x > 0:
		k = int(x + 0.5)
	case x < 0:
		k = int(x - 0.5)
	}
	t := x - float64(k)
	hi := float64(t * ln2Hi)
	lo := float64(-t * ln2Lo)
	return expmulti(hi, lo, k)
}

// expmulti returns e**r × 2**k where r = hi - lo and |r| ≤ ln(2)/2.
func expmulti(hi, lo float64, k int) float64 {
	const (
		p1 = 1.66666666666666657415e-01  /* 0x3FC55555; 0x55555555 */
		p2 = -2.77777777770155933842e-03 /* 0xBF66C16C; 0x16BEBD93 */
		p3 = 6.61375632143793436117e-05  /* 0x3F11566A; 0xAF25DE2C */
		p4 = -1.65339022054652515390e-06 /* 0xBEBBBD41; 0xC5D26BF1 */
		p5 = 4.13813679705723846039e-08  /* 0x3E663769; 0x72BEA4D0 */
	)
	r := hi - lo
	t := r * r
	c := r - float64(t*poly(t, p1, p2, p3, p4, p5))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// Pow returns x**y, with math.Pow's special cases.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case math.IsNaN(x):
		return x
	case math.IsNaN(y):
		return y
	case x == 0:
		switch {
		case y < 0:
			if math.Signbit(x) && isOddInt(y) {
				return math.Inf(-1)
			}
			return math.Inf(1)
		case y > 0:
			if math.Signbit(x) && isOddInt(y) {
				return x
			}
			return 0
		}
	case math.IsInf(y, 0):
		switch {
		case x == -1:
			return 1
		case (math.Abs(x) < 1) == math.IsInf(y, 1):
			return 0
		default:
			return math.Inf(1)
		}
	case math.IsInf(x, 0):
		if math.IsInf(x, -1) {
			return Pow(1/x, -y)
		}
		switch {
		case y < 0:
			return 0
		case y > 0:
			return math.Inf(1)
		}
	case y == 0.5:
		return math.Sqrt(x)
	case y == -0.5:
		return 1 / math.Sqrt(x)
	}
	yi, yf := math.Modf(math.Abs(y))
	if yf != 0 && x < 0 {
		return invalid()
	}
	if yi >= 1<<63 {
		switch {
		case x == -1:
			return 1
		case (math.Abs(x) < 1) == (y > 0):
			return 0
		default:
			return math.Inf(1)
		}
	}
	a1 := 1.0
	ae := 0
	if yf != 0 {
		if yf > 0.5 {
			yf--
			yi++
		}
		a1 = Exp(yf * Log(x))
	}
	x1, xe := math.Frexp(x)
	for i := int64(yi); i != 0; i >>= 1 {
		if xe < -1<<12 || 1<<12 < xe {
			ae += xe
			break
		}
		if i&1 == 1 {
			a1 = float64(a1 * x1)
			ae += xe
		}
		x1 = float64(x1 * x1)
		xe <<= 1
		if x1 < .5 {
			x1 += x1
			xe--
		}
	}
	if y < 0 {
		a1 = 1 / a1
		ae = -ae
	}
	return math.Ldexp(a1, ae)
}

func isOddInt(x float64) bool {
	if math.Abs(x) >= (1 << 53) {
		return false
	}
	xi, xf := math.Modf(x)
	return xf == 0 && int64(xi)&1 == 1
}
