package stats

import (
	"math"
	"testing"
)

// TestPoissonWeights checks the draws have Poisson(1)'s mean, variance
// and P(0), and are a pure function of (hash, replicate).
func TestPoissonWeights(t *testing.T) {
	w := make([]uint8, 1000)
	var n, sum, sq, zeros float64
	for q := range 2000 {
		BootstrapWeights(QueryHash([]byte{byte(q), byte(q >> 8), 'x'}), w)
		for _, v := range w {
			n++
			sum += float64(v)
			sq += float64(v) * float64(v)
			if v == 0 {
				zeros++
			}
		}
	}
	mean, vr := sum/n, sq/n-(sum/n)*(sum/n)
	if math.Abs(mean-1) > 0.005 || math.Abs(vr-1) > 0.01 || math.Abs(zeros/n-math.Exp(-1)) > 0.002 {
		t.Fatalf("mean %v var %v P(0) %v; want 1, 1, %v", mean, vr, zeros/n, math.Exp(-1))
	}
	a, b := make([]uint8, 50), make([]uint8, 50)
	BootstrapWeights(QueryHash([]byte("q1")), a)
	BootstrapWeights(QueryHash([]byte("q1")), b)
	if string(a) != string(b) {
		t.Fatal("weights differ between calls")
	}
	if QueryHash([]byte("q0000001")) != 0x519734439e4fd519 {
		t.Fatalf("QueryHash changed (%#x): every published bootstrap interval would move", QueryHash([]byte("q0000001")))
	}
	if poissonThr[poissonLen-1] != math.MaxUint64 || poissonThr[0] != 6786177901268885274 {
		t.Fatalf("thresholds: %v", poissonThr)
	}
}

func TestQuantile7(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	lo, hi := PercentileCI95(xs)
	if lo != 1.25 || hi != 10.75 {
		t.Fatalf("CI [%v, %v], want [1.25, 10.75] (numpy.percentile)", lo, hi)
	}
}
