package aggregate

import (
	"fmt"
	"math"
	"testing"

	"github.com/rankeval/rankeval/stats"
)

// TestStatExactSquares: the spread comes from exact squares. Equal values
// have no spread whatever their squares round to (a system better by 0.1
// on every query has no d_z and an infinite t, not d_z 1.4e8), and values
// whose squares round alike keep theirs.
func TestStatExactSquares(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		sd   float64 // the exact sample sd, rounded
	}{
		{"0.1 twice", []float64{0.1, 0.1}, 0},
		{"0.1 ten times", rep(0.1, 10), 0},
		{"1/3 three times", rep(1.0/3, 3), 0},
		{"0.3 a thousand times", rep(0.3, 1000), 0},
		{"-0.1 five times", rep(-0.1, 5), 0},
		{"1/6 (map) fifty times", rep(1.0/6, 50), 0},
		{"1e-5 four times", rep(1e-5, 4), 0},
		{"1/log2(3) three times", rep(1/math.Log2(3), 3), 0},
		{"1e15 and 1e15+1", []float64{1e15, 1e15 + 1}, math.Sqrt(0.5)},
		{"1e15, +1, +2", []float64{1e15, 1e15 + 1, 1e15 + 2}, 1},
		{"1 and 1+2^-30", []float64{1, 1 + 0x1p-30}, 0x1p-30 * math.Sqrt(0.5)},
		{"3e7 and 3e7+2^-28", []float64{3e7, 3e7 + 0x1p-28}, 0x1p-28 * math.Sqrt(0.5)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var st Stat
			var sm SmallStat
			for _, x := range c.xs {
				st.Add(x)
				sm.Add(x)
			}
			s := st.Summary()
			small := sm.Stat()
			if s2 := small.Summary(); s2 != s && !(math.IsNaN(s2.Lo) && math.IsNaN(s.Lo)) {
				t.Errorf("SmallStat summary %+v, Stat %+v", s2, s)
			}
			if s.Stdev != c.sd {
				t.Fatalf("sd = %.17g, want %.17g", s.Stdev, c.sd)
			}
			e := stats.EffectOf(s)
			p := stats.PairedOf(st.Summary())
			if c.sd == 0 {
				if !math.IsNaN(e.D) || !math.IsNaN(e.Lo) {
					t.Errorf("stats.EffectOf = %+v, want NaN (no spread)", e)
				}
				if !math.IsInf(p.T, int(math.Copysign(1, c.xs[0]))) || p.PT != 0 || p.Lo != p.Mean || p.Hi != p.Mean {
					t.Errorf("paired t = %v, p = %v, interval [%v, %v]: want ±Inf, 0, [%v, %v]", p.T, p.PT, p.Lo, p.Hi, p.Mean, p.Mean)
				}
			}
		})
	}
}

func TestSquare(t *testing.T) {
	for _, v := range []float64{0, 0.1, -1.0 / 3, 1e15 + 1, 0x1p511, 0x1p512, math.MaxFloat64, -math.MaxFloat64, 1e-160, math.Inf(-1)} {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			hi, lo := square(v)
			if hi != v*v || math.IsNaN(lo) || math.IsInf(lo, 0) || hi+lo != hi {
				t.Errorf("square = %v + %v", hi, lo)
			}
		})
	}
}

func rep(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// BenchmarkStatAdd is one query's value into a Stat: the exact square
// costs a fused multiply-add and a second limb addition.
func BenchmarkStatAdd(b *testing.B) {
	var s Stat
	v := 0.123456
	for b.Loop() {
		s.Add(v)
		v += 1e-7
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "adds/s")
}
