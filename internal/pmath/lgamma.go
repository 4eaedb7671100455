// Copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE-go file.

package pmath

import "math"

// Lgamma returns the natural logarithm of Γ(x) for x > 0, as math.Lgamma
// does; +Inf for x = 0 or +Inf, invalid()'s NaN for x < 0, which no
// caller needs (math.Lgamma's reflection there needs Sin).
func Lgamma(x float64) float64 {
	const (
		ymin  = 1.461632144968362245
		two58 = 1 << 58                     // 0x4390000000000000 ~2.8823e+17
		tiny  = 1.0 / (1 << 70)             // 0x3b90000000000000 ~8.47033e-22
		tc    = 1.46163214496836224576e+00  // 0x3FF762D86356BE3F
		tf    = -1.21486290535849611461e-01 // 0xBFBF19B9BCC38A42
		tt    = -3.63867699703950536541e-18 // 0xBC50C7CAA48A971F: -(tail of tf)
	)
	switch {
	case math.IsNaN(x):
		return x
	case x < 0:
		return invalid()
	case math.IsInf(x, 1) || x == 0:
		return math.Inf(1)
	case x < tiny:
		return -Log(x)
	case x == 1 || x == 2:
		return 0
	}
	var lgamma float64
	switch {
	case x < 2: // lgamma(x) = lgamma(x+1) - log(x)
		var y float64
		var i int
		if x <= 0.9 {
			lgamma = -Log(x)
			switch {
			case x >= (ymin - 1 + 0.27): // 0.7316 <= x <=  0.9
				y = 1 - x
				i = 0
			case x >= (ymin - 1 - 0.27): // 0.2316 <= x < 0.7316
				y = x - (tc - 1)
				i = 1
			default: // 0 < x < 0.2316
				y = x
				i = 2
			}
		} else {
			switch {
			case x >= (ymin + 0.27): // 1.7316 <= x < 2
				y = 2 - x
				i = 0
			case x >= (ymin - 0.27): // 1.2316 <= x < 1.7316
				y = x - tc
				i = 1
			default: // 0.9 < x < 1.2316
				y = x - 1
				i = 2
			}
		}
		switch i {
		case 0:
			z := y * y
			p1 := poly(z, lgamA[0], lgamA[2], lgamA[4], lgamA[6], lgamA[8], lgamA[10])
			p2 := float64(z * poly(z, lgamA[1], lgamA[3], lgamA[5], lgamA[7], lgamA[9], lgamA[11]))
			p := float64(y*p1) + p2
			lgamma += (p - float64(0.5*y))
		case 1:
			z := y * y
			w := z * y
			p1 := poly(w, lgamT[0], lgamT[3], lgamT[6], lgamT[9], lgamT[12])
			p2 := poly(w, lgamT[1], lgamT[4], lgamT[7], lgamT[10], lgamT[13])
			p3 := poly(w, lgamT[2], lgamT[5], lgamT[8], lgamT[11], lgamT[14])
			p := float64(z*p1) - (tt - float64(w*(p2+float64(y*p3))))
			lgamma += (tf + p)
		case 2:
			p1 := y * poly(y, lgamU[:]...)
			p2 := poly(y, lgamV[:]...) // lgamV[0] is 1
			lgamma += (float64(-0.5*y) + p1/p2)
		}
	case x < 8: // 2 <= x < 8
		i := int(x)
		y := x - float64(i)
		p := y * poly(y, lgamS[:]...)
		q := poly(y, lgamR[:]...) // lgamR[0] is 1
		lgamma = float64(0.5*y) + p/q
		z := 1.0 // Lgamma(1+s) = Log(s) + Lgamma(s)
		switch i {
		case 7:
			z *= (y + 6)
			fallthrough
		case 6:
			z *= (y + 5)
			fallthrough
		case 5:
			z *= (y + 4)
			fallthrough
		case 4:
			z *= (y + 3)
			fallthrough
		case 3:
			z *= (y + 2)
			lgamma += Log(z)
		}
	case x < two58: // 8 <= x < 2**58
		t := Log(x)
		z := 1 / x
		y := z * z
		w := lgamW[0] + float64(z*poly(y, lgamW[1:]...))
		lgamma = float64((x-0.5)*(t-1)) + w
	default: // 2**58 <= x < Inf
		lgamma = x * (Log(x) - 1)
	}
	return lgamma
}

var lgamA = [...]float64{
	7.72156649015328655494e-02, // 0x3FB3C467E37DB0C8
	3.22467033424113591611e-01, // 0x3FD4A34CC4A60FAD
	6.73523010531292681824e-02, // 0x3FB13E001A5562A7
	2.05808084325167332806e-02, // 0x3F951322AC92547B
	7.38555086081402883957e-03, // 0x3F7E404FB68FEFE8
	2.89051383673415629091e-03, // 0x3F67ADD8CCB7926B
	1.19270763183362067845e-03, // 0x3F538A94116F3F5D
	5.10069792153511336608e-04, // 0x3F40B6C689B99C00
	2.20862790713908385557e-04, // 0x3F2CF2ECED10E54D
	1.08011567247583939954e-04, // 0x3F1C5088987DFB07
	2.52144565451257326939e-05, // 0x3EFA7074428CFA52
	4.48640949618915160150e-05, // 0x3F07858E90A45837
}
var lgamR = [...]float64{
	1.0,                        // placeholder
	1.39200533467621045958e+00, // 0x3FF645A762C4AB74
	7.21935547567138069525e-01, // 0x3FE71A1893D3DCDC
	1.71933865632803078993e-01, // 0x3FC601EDCCFBDF27
	1.86459191715652901344e-02, // 0x3F9317EA742ED475
	7.77942496381893596434e-04, // 0x3F497DDACA41A95B
	7.32668430744625636189e-06, // 0x3EDEBAF7A5B38140
}
var lgamS = [...]float64{
	-7.72156649015328655494e-02, // 0xBFB3C467E37DB0C8
	2.14982415960608852501e-01,  // 0x3FCB848B36E20878
	3.25778796408930981787e-01,  // 0x3FD4D98F4F139F59
	1.46350472652464452805e-01,  // 0x3FC2BB9CBEE5F2F7
	2.66422703033638609560e-02,  // 0x3F9B481C7E939961
	1.84028451407337715652e-03,  // 0x3F5E26B67368F239
	3.19475326584100867617e-05,  // 0x3F00BFECDD17E945
}
var lgamT = [...]float64{
	4.83836122723810047042e-01,  // 0x3FDEF72BC8EE38A2
	-1.47587722994593911752e-01, // 0xBFC2E4278DC6C509
	6.46249402391333854778e-02,  // 0x3FB08B4294D5419B
	-3.27885410759859649565e-02, // 0xBFA0C9A8DF35B713
	1.79706750811820387126e-02,  // 0x3F9266E7970AF9EC
	-1.03142241298341437450e-02, // 0xBF851F9FBA91EC6A
	6.10053870246291332635e-03,  // 0x3F78FCE0E370E344
	-3.68452016781138256760e-03, // 0xBF6E2EFFB3E914D7
	2.25964780900612472250e-03,  // 0x3F6282D32E15C915
	-1.40346469989232843813e-03, // 0xBF56FE8EBF2D1AF1
	8.81081882437654011382e-04,  // 0x3F4CDF0CEF61A8E9
	-5.38595305356740546715e-04, // 0xBF41A6109C73E0EC
	3.15632070903625950361e-04,  // 0x3F34AF6D6C0EBBF7
	-3.12754168375120860518e-04, // 0xBF347F24ECC38C38
	3.35529192635519073543e-04,  // 0x3F35FD3EE8C2D3F4
}
var lgamU = [...]float64{
	-7.72156649015328655494e-02, // 0xBFB3C467E37DB0C8
	6.32827064025093366517e-01,  // 0x3FE4401E8B005DFF
	1.45492250137234768737e+00,  // 0x3FF7475CD119BD6F
	9.77717527963372745603e-01,  // 0x3FEF497644EA8450
	2.28963728064692451092e-01,  // 0x3FCD4EAEF6010924
	1.33810918536787660377e-02,  // 0x3F8B678BBF2BAB09
}
var lgamV = [...]float64{
	1.0,
	2.45597793713041134822e+00, // 0x4003A5D7C2BD619C
	2.12848976379893395361e+00, // 0x40010725A42B18F5
	7.69285150456672783825e-01, // 0x3FE89DFBE45050AF
	1.04222645593369134254e-01, // 0x3FBAAE55D6537C88
	3.21709242282423911810e-03, // 0x3F6A5ABB57D0CF61
}
var lgamW = [...]float64{
	4.18938533204672725052e-01,  // 0x3FDACFE390C97D69
	8.33333333333329678849e-02,  // 0x3FB555555555553B
	-2.77777777728775536470e-03, // 0xBF66C16C16B02E5C
	7.93650558643019558500e-04,  // 0x3F4A019F98CF38B6
	-5.95187557450339963135e-04, // 0xBF4380CB8C0FE741
	8.36339918996282139126e-04,  // 0x3F4B67BA4CDAD5D1
	-1.63092934096575273989e-03, // 0xBF5AB89D0B9E43E4
}
