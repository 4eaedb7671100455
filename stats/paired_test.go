package stats

import (
	"math"
	"testing"
)

func TestPairedOf(t *testing.T) {
	// differences 1, 2, 3, 4, 5: mean 3, sd sqrt(2.5), t = 3/(sd/sqrt 5)
	p := PairedOf(summaryOf(1, 2, 3, 4, 5))
	tstat := 3 / (math.Sqrt(2.5) / math.Sqrt(5))
	if p.N != 5 || p.Mean != 3 || math.Abs(p.P-TTwoSided(tstat, 4)) > 1e-15 {
		t.Fatalf("paired %+v", p)
	}
	// mpmath: I_{4/(4+t²)}(2, 1/2) at t = 4.2426406871 is 0.01323559956368268952
	if math.Abs(p.P-0.01323559956368268952) > 1e-16 {
		t.Fatalf("p = %v, want 0.01323559956368268952", p.P)
	}
	half := 2.7764451051977987 * math.Sqrt(2.5) / math.Sqrt(5) // qt(0.975, 4)
	if math.Abs(p.Lo-(3-half)) > 1e-9 || math.Abs(p.Hi-(3+half)) > 1e-9 {
		t.Fatalf("CI [%v, %v], want 3 ± %v", p.Lo, p.Hi, half)
	}
	if p := PairedOf(summaryOf(0.25, 0.25)); p.P != 0 || p.Lo != 0.25 || p.Hi != 0.25 {
		t.Fatalf("constant nonzero difference: %+v", p)
	}
	if p := PairedOf(summaryOf(0, 0)); p.P != 1 {
		t.Fatalf("zero difference: p = %v", p.P)
	}
}
