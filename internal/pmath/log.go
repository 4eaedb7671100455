// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE-go file.

package pmath

import "math"

// Log returns the natural logarithm of x, with math.Log's special cases,
// the bits amd64's assembly computes.
func Log(x float64) float64 {
	const (
		hSqrt2 = 7.07106781186547524401e-01 // sqrt(2)/2
		ln2Hi  = 6.93147180369123816490e-01 // 3fe62e42 fee00000
		ln2Lo  = 1.90821492927058770002e-10 // 3dea39ef 35793c76
		l1     = 6.666666666666735130e-01   // 3FE55555 55555593
		l2     = 3.999999999940941908e-01   // 3FD99999 9997FA04
		l3     = 2.857142874366239149e-01   // 3FD24924 94229359
		l4     = 2.222219843214978396e-01   // 3FCC71C5 1D8E78AF
		l5     = 1.818357216161805012e-01   // 3FC74664 96CB03DE
		l6     = 1.531383769920937332e-01   // 3FC39A09 D078C69F
		l7     = 1.479819860511658591e-01   // 3FC2F112 DF3E5244
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return invalid()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 <= hSqrt2 { // amd64's assembly compares with <=, the pure Go with <
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)

	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * poly(s4, l1, l3, l5, l7)
	t2 := s4 * poly(s4, l2, l4, l6)
	r := float64(t1) + float64(t2)
	hfsq := float64(0.5 * f * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// Log2 returns the binary logarithm of x, exact for powers of two.
func Log2(x float64) float64 {
	frac, exp := math.Frexp(x)
	if frac == 0.5 {
		return float64(exp - 1)
	}
	return float64(Log(frac)*(1/math.Ln2)) + float64(exp)
}

// Log10 returns the decimal logarithm of x.
func Log10(x float64) float64 {
	return Log(x) * (1 / math.Ln10)
}

// Log1p returns the natural logarithm of 1+x, accurate when x is near zero,
// with math.Log1p's special cases.
func Log1p(x float64) float64 {
	const (
		sqrt2M1     = 4.142135623730950488017e-01  // Sqrt(2)-1 = 0x3fda827999fcef34
		sqrt2HalfM1 = -2.928932188134524755992e-01 // Sqrt(2)/2-1 = 0xbfd2bec333018866
		small       = 1.0 / (1 << 29)              // 2**-29 = 0x3e20000000000000
		tiny        = 1.0 / (1 << 54)              // 2**-54
		two53       = 1 << 53                      // 2**53
		ln2Hi       = 6.93147180369123816490e-01   // 3fe62e42fee00000
		ln2Lo       = 1.90821492927058770002e-10   // 3dea39ef35793c76
		lp1         = 6.666666666666735130e-01     // 3FE5555555555593
		lp2         = 3.999999999940941908e-01     // 3FD999999997FA04
		lp3         = 2.857142874366239149e-01     // 3FD2492494229359
		lp4         = 2.222219843214978396e-01     // 3FCC71C51D8E78AF
		lp5         = 1.818357216161805012e-01     // 3FC7466496CB03DE
		lp6         = 1.531383769920937332e-01     // 3FC39A09D078C69F
		lp7         = 1.479819860511658591e-01     // 3FC2F112DF3E5244
	)
	switch {
	case math.IsNaN(x):
		return x
	case x < -1:
		return invalid()
	case x == -1:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return math.Inf(1)
	}
	absx := math.Abs(x)
	var f float64
	var iu uint64
	k := 1
	if absx < sqrt2M1 {
		if absx < small {
			if absx < tiny {
				return x
			}
			return x - float64(x*x*0.5)
		}
		if x > sqrt2HalfM1 {
			k = 0
			f = x
			iu = 1
		}
	}
	var c float64
	if k != 0 {
		var u float64
		if absx < two53 {
			u = 1.0 + x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
			if k > 0 {
				c = 1.0 - (u - x)
			} else {
				c = x - (u - 1.0)
			}
			c /= u
		} else {
			u = x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
			c = 0
		}
		iu &= 0x000fffffffffffff
		if iu < 0x0006a09e667f3bcd {
			u = math.Float64frombits(iu | 0x3ff0000000000000)
		} else {
			k++
			u = math.Float64frombits(iu | 0x3fe0000000000000)
			iu = (0x0010000000000000 - iu) >> 2
		}
		f = u - 1.0
	}
	hfsq := float64(0.5 * f * f)
	fk := float64(k)
	if iu == 0 {
		if f == 0 {
			if k == 0 {
				return 0
			}
			c += float64(fk * ln2Lo)
			return float64(fk*ln2Hi) + c
		}
		r := float64(hfsq * (1.0 - float64(0.66666666666666666*f)))
		if k == 0 {
			return f - r
		}
		return float64(fk*ln2Hi) - ((r - (float64(fk*ln2Lo) + c)) - f)
	}
	s := f / (2.0 + f)
	z := s * s
	r := float64(z * poly(z, lp1, lp2, lp3, lp4, lp5, lp6, lp7))
	if k == 0 {
		return f - (hfsq - float64(s*(hfsq+r)))
	}
	return float64(fk*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + (float64(fk*ln2Lo) + c))) - f)
}

// poly returns c[0] + x*(c[1] + x*(c[2] + ...)), by Horner's rule with
// every product rounded.
func poly(x float64, c ...float64) float64 {
	v := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		v = c[i] + float64(x*v)
	}
	return v
}
