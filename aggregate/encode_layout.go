package aggregate

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/rankeval/rankeval/stats"
)

// The layout of a saved analysis (its shape, written first; the grammar
// is in encode_analysis.go), and what a layout costs: the least bytes an
// encoding of it can take, checked before a decoder allocates, and the
// bytes of its replicate sums, bounded before a run starts.

// maxDim bounds every dimension of a decoded layout, so that none can ask
// for an absurd allocation; a real layout is far below it.
const maxDim = 1 << 24

// Equal reports whether l and o describe the same aggregate; only
// analyses of equal layouts merge.
func (l *Layout) Equal(o *Layout) bool {
	if l == nil || o == nil {
		return l == o
	}
	return l.Metrics == o.Metrics && l.Systems == o.Systems && l.Bootstrap == o.Bootstrap &&
		l.Hist == o.Hist && slices.Equal(l.Core, o.Core) && l.Compare == o.Compare &&
		l.Weights == o.Weights && slices.Equal(l.Ratio, o.Ratio)
}

func (l *Layout) check() error {
	switch {
	case l.Systems < 1 || l.Systems > maxDim:
		return fmt.Errorf("layout: %d systems: %w", l.Systems, ErrLayout)
	case l.Metrics < len(l.Core) || l.Metrics > maxDim:
		return fmt.Errorf("layout: %d metrics, %d core: %w", l.Metrics, len(l.Core), ErrLayout)
	case l.Bootstrap < 0 || l.Bootstrap > maxDim:
		return fmt.Errorf("layout: %d bootstrap replicates: %w", l.Bootstrap, ErrLayout)
	case l.Test > stats.TestTukey || (l.Test == stats.TestT) != (l.Permutations == 0) || l.Permutations < 0 || l.Permutations > maxDim ||
		l.Test == stats.TestT && l.Seed != 0:
		return fmt.Errorf("layout: test %v of %d permutations: %w", l.Test, l.Permutations, ErrLayout)
	}
	for m, r := range l.Core {
		if r < RangeUnit || r > RangeOpen {
			return fmt.Errorf("layout: core metric %d: unknown range %d: %w", m, r, ErrLayout)
		}
	}
	if l.Ratio != nil && (len(l.Ratio) != len(l.Core) || !l.Weights || !slices.Contains(l.Ratio, true)) {
		return fmt.Errorf("layout: ratio metrics without click weights, or not one flag per core metric: %w", ErrLayout)
	}
	return nil
}

// AppendBinary appends l's encoding to b. It fails (ErrLayout) on a
// layout no analysis can have: no system, more core metrics than metrics,
// an unknown range.
func (l *Layout) AppendBinary(b []byte) ([]byte, error) {
	if err := l.check(); err != nil {
		return b, err
	}
	b = append(b, encodingVersion)
	b = binary.AppendUvarint(b, uint64(l.Metrics))
	b = binary.AppendUvarint(b, uint64(len(l.Core)))
	for _, r := range l.Core {
		b = append(b, byte(r))
	}
	b = binary.AppendUvarint(b, uint64(l.Systems))
	b = binary.AppendUvarint(b, uint64(l.Bootstrap))
	var flags byte
	if l.Hist {
		flags |= 1
	}
	if l.AllPairs {
		flags |= 2
	}
	if l.Test != stats.TestT {
		flags |= 4
	}
	if l.Weights {
		flags |= 8
	}
	if l.Ratio != nil {
		flags |= 16
	}
	b = append(b, flags)
	if l.Test != stats.TestT {
		b = append(b, byte(l.Test))
		b = binary.AppendUvarint(b, uint64(l.Permutations))
		b = binary.AppendUvarint(b, l.Seed)
	}
	if l.Ratio != nil {
		bits := make([]byte, (len(l.Ratio)+7)/8)
		for m, r := range l.Ratio {
			if r {
				bits[m/8] |= 1 << (m % 8)
			}
		}
		b = append(b, bits...)
	}
	return b, nil
}

// MarshalBinary encodes l (see AppendBinary).
func (l *Layout) MarshalBinary() ([]byte, error) { return l.AppendBinary(nil) }

// UnmarshalBinary replaces l with the layout data encodes.
func (l *Layout) UnmarshalBinary(data []byte) error {
	d := dec{b: data}
	var out Layout
	out.decode(&d)
	if d.err == nil && len(d.b) != 0 {
		d.fail("layout: %d bytes after the end", len(d.b))
	}
	if d.err != nil {
		return d.err
	}
	*l = out
	return nil
}

func (l *Layout) decode(d *dec) {
	if v := d.u8("layout: version"); v != encodingVersion && d.err == nil {
		d.fail("layout: unknown version %d", v)
	}
	l.Metrics = int(d.uvarint("layout: metrics", maxDim))
	nc := d.uvarint("layout: core metrics", uint64(l.Metrics))
	if !d.need(nc, "layout: core ranges") {
		return
	}
	l.Core = make([]Range, nc)
	for m := range l.Core {
		r := d.u8("layout: range")
		if r > byte(RangeOpen) {
			d.fail("layout: core metric %d: unknown range %d", m, r)
			return
		}
		l.Core[m] = Range(r)
	}
	l.Systems = int(d.uvarint("layout: systems", maxDim))
	l.Bootstrap = int(d.uvarint("layout: bootstrap", maxDim))
	switch f := d.u8("layout: flags"); {
	case d.err != nil:
	case f > 31 || f&16 != 0 && f&8 == 0:
		d.fail("layout: bad flags %d", f)
	default:
		l.Hist, l.AllPairs, l.Weights = f&1 != 0, f&2 != 0, f&8 != 0
		if f&4 != 0 {
			if t := stats.Test(d.u8("layout: test")); d.err == nil && (t == stats.TestRandom || t == stats.TestTukey) {
				l.Test = t
			} else if d.err == nil {
				d.fail("layout: unknown test %d", t)
			}
			l.Permutations = int(d.uvarint("layout: permutations", maxDim))
			l.Seed = d.uvarint("layout: seed", math.MaxUint64)
			if d.err == nil && l.Permutations == 0 {
				d.fail("layout: a randomization test of no replicate")
			}
		}
		if nb := (len(l.Core) + 7) / 8; f&16 != 0 && d.need(uint64(nb), "layout: ratio bits") {
			bits := d.b[:nb]
			d.b = d.b[nb:]
			l.Ratio = make([]bool, len(l.Core))
			for m := range l.Ratio {
				l.Ratio[m] = bits[m/8]&(1<<(m%8)) != 0
			}
			if rem := len(l.Core) % 8; rem != 0 && bits[nb-1]>>rem != 0 || !slices.Contains(l.Ratio, true) {
				d.fail("layout: bad ratio bits")
			}
		}
	}
	if d.err == nil && l.Systems < 1 {
		d.fail("layout: no system")
	}
}

func satMul(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}

func satAdd(a, b uint64) uint64 {
	if s, c := bits.Add64(a, b, 0); c == 0 {
		return s
	}
	return math.MaxUint64
}

func histBins(r Range) int {
	if r == RangeOpen {
		return openBins
	}
	return unitBins
}

// minBytes is the shortest encoding of an analysis of l after the layout:
// checked against the input before NewAnalysis allocates for l.
func (l *Layout) minBytes() uint64 {
	S, M, C, P := uint64(l.Systems), uint64(l.Metrics), uint64(len(l.Core)), l.numPairs()
	n := satMul(S, satAdd(7, satMul(M, minStatBytes))) // sets (6 bytes of header) and missing
	n = satAdd(n, satMul(satMul(P, C), minStatBytes))
	if l.Hist {
		n = satAdd(n, satMul(S, satMul(C, unitBins)))
	}
	if l.Bootstrap > 0 {
		B, K := uint64(l.Bootstrap), l.bootMeans()
		n = satAdd(n, satAdd(satMul(B, satAdd(1, satMul(K, 9))), 1))
	}
	if l.Test != stats.TestT {
		n = satAdd(n, satMul(satAdd(uint64(l.Permutations), 1), satMul(l.permMeans(), 9)))
	}
	if l.Weights {
		// per system a stat, a clipped count and an empty sum (3 bytes) per
		// ratio metric; per pair an empty sum per ratio metric
		R := uint64(len(l.ratios()))
		n = satAdd(n, satAdd(satMul(S, satAdd(minStatBytes+1, satMul(R, 3))), satMul(satMul(P, R), 3)))
	}
	return satAdd(n, 1) // the number of slices
}

// bootMeans is the number of means the bootstrap keeps: every core metric
// of every system and difference, and the systems' weights for a ratio.
func (l *Layout) bootMeans() uint64 {
	return satAdd(satMul(satAdd(uint64(l.Systems), l.numPairs()), uint64(len(l.Core))), uint64(l.bootExtra()))
}

// ReplicateBytes is the memory of the replicate sums of an analysis of l:
// the bootstrap's and the randomization tests', 16 bytes a sum; and the
// bootstrap's weight of undefined values, 8 bytes a sum, which the first
// undefined value allocates (leaving it out let 1.5GiB pass a 1GiB bound).
func (l *Layout) ReplicateBytes() int64 {
	n := satMul(satMul(uint64(l.Bootstrap), l.bootMeans()), 24)
	if l.Test != stats.TestT {
		n = satAdd(n, satMul(satMul(uint64(l.Permutations)+1, l.permMeans()), 16))
	}
	return int64(min(n, math.MaxInt64))
}

// numPairs is len(l.Pairs()), saturated for a layout being decoded.
func (l *Layout) numPairs() uint64 {
	S := uint64(l.Systems)
	if S == 0 {
		return 0
	}
	if l.AllPairs {
		return satMul(S, S-1) / 2
	}
	return S - 1
}

// permMeans is the number of means the randomization test keeps a sum of:
// one per pair and core metric, or per system and core metric for Tukey.
func (l *Layout) permMeans() uint64 {
	if l.Test == stats.TestTukey {
		return satMul(uint64(l.Systems), uint64(len(l.Core)))
	}
	return satMul(l.numPairs(), uint64(len(l.Core)))
}

// minSliceBytes is the shortest encoding of a present slice, its flag
// included.
func (l *Layout) minSliceBytes() uint64 {
	S, C := uint64(l.Systems), uint64(len(l.Core))
	n := satAdd(1+4*S, satMul(satMul(satAdd(S, l.numPairs()), C), minSmallStatBytes))
	if l.Weights {
		// a small stat a system, an empty small (1 byte) per ratio metric
		// of each system and pair
		R := uint64(len(l.ratios()))
		n = satAdd(n, satAdd(satMul(S, minSmallStatBytes), satMul(satAdd(S, l.numPairs()), R)))
	}
	return n
}
