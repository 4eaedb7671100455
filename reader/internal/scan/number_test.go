package scan

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

// FuzzParseNumber: whatever parseNumber accepts, strconv reads as the same
// float64, bit for bit (its short-decimal path must round as strconv
// does), so a score never depends on which path read it.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"3.26", "-4.52864", "12.345678", "0.123456789", "1e5", "-0", "007", ".5", "5.", "1.2.3", "NaN", "-Infinity", "123456789012345678", "0.1000000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := strconv.ParseFloat(s, 64)
		v, ok := ParseNumber([]byte(s))
		if ok && (err != nil && !errors.Is(err, strconv.ErrRange) || math.Float64bits(v) != math.Float64bits(want) && !(v != v && want != want)) {
			t.Fatalf("%q: %v (%x), strconv %v (%x, %v)", s, v, math.Float64bits(v), want, math.Float64bits(want), err)
		}
	})
}

// BenchmarkParseNumber times the scores of typical runs and logs. An
// 8-byte SWAR parse (one load, three multiplies) was no faster than the
// byte loop: 15 against 10 ns for "27", 18 against 13 for "3.26", the same
// within the noise for the longer ones.
func BenchmarkParseNumber(b *testing.B) {
	for _, s := range []string{"3.26", "-4.52864", "12.345678", "0.123456789", "27"} {
		t := []byte(s)
		b.Run(s, func(b *testing.B) {
			var sum float64
			for range b.N {
				v, _ := ParseNumber(t)
				sum += v
			}
			if sum == 1 {
				b.Log(sum)
			}
		})
	}
}

// BenchmarkParseScores parses a run's scores as they come, lengths and
// digits mixed (as gentrec writes them: 0.00 to 99.99), so that the byte
// loop's branches are not learnt from one repeated string. The word at a
// time parse lost here too (2026-11-26: 10.9 against 8.6 ns a score).
func BenchmarkParseScores(b *testing.B) {
	const n = 4096
	buf := make([]byte, 0, 8*n+16)
	var fields [][]byte
	x := uint32(1)
	for range n {
		x = x*1664525 + 1013904223
		start := len(buf)
		buf = strconv.AppendFloat(buf, float64(x>>8%10000)/100, 'f', -1, 64)
		fields = append(fields, buf[start:len(buf):cap(buf)])
		buf = append(buf, ' ')
	}
	out := make([]float64, n)
	for b.Loop() {
		for i, t := range fields {
			out[i], _ = ParseNumber(t)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "scores/s")
}
