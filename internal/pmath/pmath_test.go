package pmath

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/amd64.txt from the standard library (amd64, GOAMD64=v1, a processor with FMA)")

// function is one of pmath's functions beside the standard library's.
type function struct {
	name string
	p, m func(x float64) float64
	gen  func(r *rand.Rand) float64 // an argument in the range rankeval uses
	// outside, when set, tells the arguments not compared: amd64's
	// assembly Log misreads a subnormal argument (it takes the exponent
	// field as it is), where pmath normalizes it first and is right; and
	// pmath's Lgamma leaves out negative arguments.
	outside func(x float64) bool
}

var functions = []function{
	{"Log", Log, math.Log, positive, isSubnormal},
	{"Log2", Log2, math.Log2, positive, nil},
	{"Log10", Log10, math.Log10, positive, isSubnormal},
	{"Log1p", Log1p, math.Log1p, func(r *rand.Rand) float64 { return math.Expm1(r.Float64()*80 - 40) }, nil},
	{"Expm1", Expm1, math.Expm1, func(r *rand.Rand) float64 { return (r.Float64()*2 - 1) * float64(uint64(1)<<r.IntN(10)) }, nil},
	{"Erfc", Erfc, math.Erfc, func(r *rand.Rand) float64 { return r.Float64()*60 - 30 }, nil},
	{"Exp", Exp, math.Exp, func(r *rand.Rand) float64 { return r.Float64()*1460 - 750 }, nil},
	{"Exp2", Exp2, math.Exp2, func(r *rand.Rand) float64 { return r.Float64()*2100 - 1075 }, nil},
	{"Lgamma", Lgamma, func(x float64) float64 { v, _ := math.Lgamma(x); return v }, positive, func(x float64) bool { return x < 0 || isSubnormal(x) }},
	{"Pow", func(x float64) float64 { return Pow(x, -1.37) }, func(x float64) float64 { return math.Pow(x, -1.37) }, positive, nil},
	{"Pow2", func(x float64) float64 { return Pow(1.0001, x) }, func(x float64) float64 { return math.Pow(1.0001, x) }, func(r *rand.Rand) float64 { return r.Float64()*2e6 - 1e6 }, nil},
}

// positive returns a positive float64 of any magnitude or a small integer
// (rank positions, counts), or a number near 1.
func positive(r *rand.Rand) float64 {
	switch r.IntN(3) {
	case 0:
		return math.Float64frombits(r.Uint64N(0x7ff0000000000000-1) + 1)
	case 1:
		return float64(r.IntN(1<<20) + 1)
	}
	return 1 + (r.Float64()-0.5)/float64(uint64(1)<<r.IntN(50))
}

// specials are arguments every function is checked at.
var specials = []float64{
	0, math.Copysign(0, -1), 1, 2, 0.5, -1, -0.5, 3, 7.5, 8, 1e-300, 5e-324, 1e300,
	math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(),
	math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0), math.Nextafter(math.Sqrt2/2, 1),
	709.78, 709.8, -745, -745.2, -708.4, 1023.9, 1024, -1074, -1075, 0.9, 1.2316, 1.7316, 0.2316, 0.7316,
	1 << 58, 1 << 53, 1e-5, 0.00001, 1e-22, -0.2928, 0.4142,
}

// arguments returns the arguments f is checked at: the specials and 1,200
// drawn from its range, the same on every run.
func arguments(f function) []float64 {
	r := rand.New(rand.NewPCG(1, uint64(len(f.name))))
	xs := append([]float64(nil), specials...)
	for range 1200 {
		xs = append(xs, f.gen(r))
	}
	if f.outside != nil {
		xs = slices.DeleteFunc(xs, f.outside)
	}
	return xs
}

// TestAgainstAMD64 holds every function to the bits that the standard
// library computes on amd64 (GOAMD64=v1, a processor with FMA), recorded in
// testdata/amd64.txt, on whatever machine the test runs.
func TestAgainstAMD64(t *testing.T) {
	path := filepath.Join("testdata", "amd64.txt")
	if *update {
		writeGolden(t, path)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byName := map[string]function{}
	for _, fn := range functions {
		byName[fn.name] = fn
	}
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for sc.Scan() {
		var name string
		var xb, yb uint64
		if _, err := fmt.Sscanf(sc.Text(), "%s %x %x", &name, &xb, &yb); err != nil {
			t.Fatalf("%s: %q: %v", path, sc.Text(), err)
		}
		fn, ok := byName[name]
		if !ok {
			t.Fatalf("%s: unknown function %q", path, name)
		}
		x := math.Float64frombits(xb)
		got := fn.p(x)
		n++
		if !sameBits(got, math.Float64frombits(yb)) {
			if bad++; bad <= 20 {
				t.Errorf("%s(%v) = %v (%#x), amd64 gives %v (%#x)", name, x, got, math.Float64bits(got), math.Float64frombits(yb), yb)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000*len(functions) {
		t.Fatalf("%s holds %d values, want at least %d", path, n, 1000*len(functions))
	}
	if bad > 0 {
		t.Errorf("%d of %d values differ", bad, n)
	}
}

func isSubnormal(x float64) bool {
	return x != 0 && math.Abs(x) < 0x1p-1022
}

// TestSubnormalLog holds Log of a subnormal to the value of its normalized
// form, where amd64's assembly is wrong.
func TestSubnormalLog(t *testing.T) {
	for _, x := range []float64{5e-324, 1e-310, 2.2e-308} {
		want := Log(x*0x1p60) - 60*math.Ln2
		if got := Log(x); math.Abs(got-want) > 1e-12 {
			t.Errorf("Log(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestLgammaNegative(t *testing.T) {
	for _, x := range []float64{-1, -0.5, -1e-300, math.Inf(-1)} {
		if got := Lgamma(x); !math.IsNaN(got) {
			t.Errorf("Lgamma(%v) = %v, want NaN", x, got)
		}
	}
}

// sameBits reports whether a and b are the same value: the same bits, or
// both NaN (a NaN's sign and payload are the machine's, not the function's).
func sameBits(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func writeGolden(t *testing.T, path string) {
	t.Helper()
	if !stdlibIsReference() {
		t.Fatal("-update needs amd64 built with GOAMD64=v1 on a processor with FMA: the standard library's values elsewhere are not the reference")
	}
	var b strings.Builder
	for _, fn := range functions {
		for _, x := range arguments(fn) {
			fmt.Fprintf(&b, "%s %016x %016x\n", fn.name, math.Float64bits(x), math.Float64bits(fn.m(x)))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStdlib compares every function with the standard library at 100,000
// more arguments each, where the standard library is the reference.
func TestStdlib(t *testing.T) {
	if !stdlibIsReference() {
		t.Skip("the standard library is the reference on amd64 (GOAMD64=v1) with FMA only")
	}
	for _, fn := range functions {
		t.Run(fn.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(fn.name)), 7))
			bad := 0
			for range 100000 {
				x := fn.gen(r)
				if fn.outside != nil && fn.outside(x) {
					continue
				}
				if got, want := fn.p(x), fn.m(x); !sameBits(got, want) {
					if bad++; bad <= 5 {
						t.Errorf("%s(%v) = %v, math gives %v", fn.name, x, got, want)
					}
				}
			}
		})
	}
}

func TestLog2Exact(t *testing.T) {
	for e := -1074; e <= 1023; e++ {
		if got := Log2(math.Ldexp(1, e)); got != float64(e) {
			t.Fatalf("Log2(2^%d) = %v", e, got)
		}
	}
}

func TestExp2Exact(t *testing.T) {
	for e := -1074; e <= 1023; e++ {
		if got := Exp2(float64(e)); got != math.Ldexp(1, e) {
			t.Fatalf("Exp2(%d) = %v", e, got)
		}
	}
}

func TestPoly(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		c    []float64
		want float64
	}{
		{2, []float64{1}, 1},
		{2, []float64{1, 3}, 7},
		{2, []float64{1, 3, 5}, 27},
		{0.1, []float64{1, 1, 1}, 1.11},
	} {
		t.Run(strconv.Itoa(len(tc.c)), func(t *testing.T) {
			if got := poly(tc.x, tc.c...); got != tc.want {
				t.Errorf("poly(%v, %v) = %v, want %v", tc.x, tc.c, got, tc.want)
			}
		})
	}
}

// TestInvalid: an argument outside a function's domain gives amd64's NaN
// of an invalid operation (C's "-nan") on every machine; a NaN argument is
// returned as it is.
func TestInvalid(t *testing.T) {
	in := math.Float64frombits(0x7ff8000000000001) // a "nan" read from input
	for _, tc := range []struct {
		name string
		got  float64
		want uint64
	}{
		{"Log(-1)", Log(-1), 0xfff8000000000000},
		{"Log2(-1)", Log2(-1), 0xfff8000000000000},
		{"Log10(-2)", Log10(-2), 0xfff8000000000000},
		{"Log1p(-2)", Log1p(-2), 0xfff8000000000000},
		{"Lgamma(-1)", Lgamma(-1), 0xfff8000000000000},
		{"Pow(-2, 0.5)", Pow(-2, 0.3), 0xfff8000000000000},
		{"Log(nan)", Log(in), 0x7ff8000000000001},
		{"Log1p(nan)", Log1p(in), 0x7ff8000000000001},
		{"Exp(nan)", Exp(in), 0x7ff8000000000001},
		{"Pow(nan, 2)", Pow(in, 2), 0x7ff8000000000001},
		{"Erfc(nan)", Erfc(in), 0x7ff8000000000001},
		{"Lgamma(nan)", Lgamma(in), 0x7ff8000000000001},
	} {
		if b := math.Float64bits(tc.got); b != tc.want {
			t.Errorf("%s = %#x, want %#x", tc.name, b, tc.want)
		}
	}
}

// TestCLong: C's (long) as amd64 computes it, on every machine.
func TestCLong(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want int64
	}{
		{2.9, 2}, {-2.9, -2}, {0, 0}, {-0.5, 0},
		{9223372036854774784, 9223372036854774784}, {-9223372036854775808, math.MinInt64},
		{9223372036854775808, math.MinInt64}, {1e300, math.MinInt64}, {-1e300, math.MinInt64},
		{math.Inf(1), math.MinInt64}, {math.Inf(-1), math.MinInt64}, {math.NaN(), math.MinInt64},
	} {
		t.Run(fmt.Sprint(tc.x), func(t *testing.T) {
			if got := CLong(tc.x); got != tc.want {
				t.Fatalf("CLong(%v) = %d, want %d", tc.x, got, tc.want)
			}
		})
	}
}
