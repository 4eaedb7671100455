package aggregate

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// A run's complete aggregate saved as bytes and merged later with no loss:
// the days of a rolling window merge into exactly the bytes one run over
// the window gives. The form is canonical like Set's (equal aggregates,
// equal bytes, whatever order of adds and merges made them) and holds
// only what cannot be derived: the layout, then the sums and counts. The
// bootstrap's scales follow from the layout's ranges; scratch space is
// rebuilt.
//
//	analysis = version layout set×S missing×S diff-stat×P·C
//	           [hist-count×S·C·bins] [boots] [perms] [weights]
//	           n-slices (0 | 1 slice)×n
//	layout   = version metrics n-core range-byte×n-core systems bootstrap flags
//	           [test-byte permutations seed] [ratio-bits]
//	slice    = rows×S queries×S empty×S missing×S small-stat×S·C small-stat×P·C
//	           [slice-weights]
//	weights  = (stat clipped sum×R)×S sum×P·R
//	slice-weights = (small-stat small×R)×S small×P·R
//
// flags: bit 0 histograms, bit 1 all pairs, bit 2 a randomization test
// (then its byte, 1 or 2, and uvarints), bit 3 click weights (the weights
// parts are there), bit 4 ratio metrics (then ratio-bits: a bit per core
// metric, bit m%8 of byte m/8, set for a ratio; R is how many are set).
// P is the number of pairs: S-1, or S(S-1)/2 with all pairs.
// Counts are uvarints; set and stat are Set's and Stat's encodings
// (encode.go); small-stat and boots are in encode_parts.go. Trailing nil
// slices are not written: a slice exists only once a query of it was added.

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
	case l.Test > TestTukey || (l.Test == TestT) != (l.Permutations == 0) || l.Permutations < 0 || l.Permutations > maxDim ||
		l.Test == TestT && l.Seed != 0:
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
	if l.Test != TestT {
		flags |= 4
	}
	if l.Weights {
		flags |= 8
	}
	if l.Ratio != nil {
		flags |= 16
	}
	b = append(b, flags)
	if l.Test != TestT {
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
			if t := Test(d.u8("layout: test")); d.err == nil && (t == TestRandom || t == TestTukey) {
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
	if l.Test != TestT {
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
	if l.Test != TestT {
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
	if l.Test == TestTukey {
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

// check reports an analysis whose parts do not have its layout's shape
// (one put together by hand), which would encode into garbage.
func (a *Analysis) check() error {
	l := a.L
	if l == nil {
		return fmt.Errorf("analysis without a layout: %w", ErrLayout)
	}
	if err := l.check(); err != nil {
		return err
	}
	S, C := l.Systems, len(l.Core)
	bad := func(what string) error {
		return fmt.Errorf("analysis: %s does not match the layout: %w", what, ErrLayout)
	}
	P := len(l.Pairs())
	if len(a.Sys) != S || len(a.Missing) != S || len(a.Diff) != P {
		return bad("systems")
	}
	for _, set := range a.Sys {
		if set == nil || len(set.Stats) != l.Metrics {
			return bad("metrics")
		}
		if set.Rows < 0 || set.Queries < 0 || set.Empty < 0 || set.Dropped < 0 {
			return bad("negative count")
		}
		for i := range set.Stats {
			if set.Stats[i].N < 0 {
				return bad("negative count")
			}
		}
	}
	for _, d := range a.Diff {
		if len(d) != C {
			return bad("comparisons")
		}
		for i := range d {
			if d[i].N < 0 {
				return bad("negative count")
			}
		}
	}
	if l.Hist != (a.Hist != nil) || a.Hist != nil && len(a.Hist) != S {
		return bad("histograms")
	}
	for _, hs := range a.Hist {
		if len(hs) != C {
			return bad("histograms")
		}
		for m, h := range hs {
			if h.Range != l.Core[m] || len(h.Counts) != histBins(h.Range) {
				return bad("histogram")
			}
		}
	}
	if bs := a.Boot; (l.Bootstrap > 0) != (bs != nil) || bs != nil && (bs.B != l.Bootstrap ||
		uint64(bs.K) != l.bootMeans() || len(bs.lo) != bs.B*bs.K || len(bs.hi) != bs.B*bs.K || len(bs.total) != bs.B ||
		bs.miss != nil && len(bs.miss) != bs.B*bs.K) {
		return bad("bootstrap")
	}
	if pm := a.Perm; (l.Test != TestT) != (pm != nil) || pm != nil && (pm.Test != l.Test || pm.B != l.Permutations ||
		pm.Seed != l.Seed || uint64(pm.K) != l.permMeans() || len(pm.lo) != (pm.B+1)*pm.K || len(pm.hi) != len(pm.lo)) {
		return bad("randomization test")
	}
	R := len(l.ratios())
	if w := a.W; l.Weights != (w != nil) || w != nil && (len(w.Sys) != S || len(w.Pair) != P) {
		return bad("click weights")
	}
	if a.W != nil {
		for _, ws := range a.W.Sys {
			if len(ws.Cross) != R || ws.W.N < 0 || ws.Clipped < 0 {
				return bad("click weights")
			}
		}
		for _, c := range a.W.Pair {
			if len(c) != R {
				return bad("click weights")
			}
		}
	}
	for _, sl := range a.Slices {
		if sl == nil {
			continue
		}
		if len(sl.Rows) != S || len(sl.Queries) != S || len(sl.Empty) != S || len(sl.Missing) != S ||
			len(sl.Stats) != S || len(sl.Diff) != P {
			return bad("slice")
		}
		if w := sl.W; l.Weights != (w != nil) || w != nil && (len(w.W) != S || len(w.Cross) != S || len(w.Pair) != P) {
			return bad("slice")
		}
		if sl.W != nil {
			for _, c := range append(slices.Clip(sl.W.Cross), sl.W.Pair...) {
				if len(c) != R {
					return bad("slice")
				}
			}
		}
		for _, st := range append(slices.Clip(sl.Stats), sl.Diff...) {
			if len(st) != C {
				return bad("slice")
			}
		}
	}
	if what := a.counts(); what != "" {
		return fmt.Errorf("analysis: %s beyond the number of queries: %w", what, ErrLayout)
	}
	return nil
}

// counts reports the first count that exceeds the number it is part of:
// a metric defined, a query empty or missing, a comparison made in more
// queries than there are. No adds and merges make one; a damaged input
// can. Encoding checks it too, so that no analysis saves into bytes that do
// not load.
func (a *Analysis) counts() string {
	for s, set := range a.Sys {
		if set.Empty > set.Queries || a.Missing[s] < 0 || a.Missing[s] > set.Queries {
			return "system query counts"
		}
		for m := range set.Stats {
			if set.Stats[m].N > set.Queries {
				return "system metric count"
			}
		}
		if a.W != nil && a.W.Sys[s].W.N > set.Queries {
			return "click weight count"
		}
	}
	pairs := a.L.Pairs()
	for p, ds := range a.Diff {
		for m := range ds {
			if ds[m].N > a.Sys[pairs[p][0]].Queries || ds[m].N > a.Sys[pairs[p][1]].Queries {
				return "comparison count"
			}
		}
	}
	for _, sl := range a.Slices {
		if sl == nil {
			continue
		}
		for s, q := range sl.Queries {
			if sl.Rows[s] < 0 || q < 0 || sl.Empty[s] < 0 || sl.Missing[s] < 0 || sl.Empty[s] > q || sl.Missing[s] > q {
				return "slice query counts"
			}
			for m := range sl.Stats[s] {
				if n := sl.Stats[s][m].N; n < 0 || n > q {
					return "slice metric count"
				}
			}
			if sl.W != nil && (sl.W.W[s].N < 0 || sl.W.W[s].N > q) {
				return "slice click weight count"
			}
		}
		for p, ds := range sl.Diff {
			for m := range ds {
				if n := ds[m].N; n < 0 || n > sl.Queries[pairs[p][0]] || n > sl.Queries[pairs[p][1]] {
					return "slice comparison count"
				}
			}
		}
	}
	return ""
}

// AppendBinary appends a's encoding, its layout included, to b. Equal
// aggregates encode to equal bytes. It fails (ErrLayout) only for an
// analysis that NewAnalysis did not make: no layout, or parts of another
// shape.
func (a *Analysis) AppendBinary(b []byte) ([]byte, error) {
	if err := a.check(); err != nil {
		return b, err
	}
	e := enc{b: append(b, encodingVersion)}
	e.b, _ = a.L.AppendBinary(e.b)
	for _, set := range a.Sys {
		e.b, _ = set.AppendBinary(e.b)
	}
	for _, m := range a.Missing {
		e.count(m, "missing count")
	}
	for _, d := range a.Diff {
		for m := range d {
			e.b, _ = d[m].AppendBinary(e.b)
		}
	}
	for _, hs := range a.Hist {
		for _, h := range hs {
			for _, c := range h.Counts {
				e.count(c, "histogram count")
			}
		}
	}
	if a.Boot != nil {
		a.Boot.appendBinary(&e)
	}
	if a.Perm != nil {
		a.Perm.appendBinary(&e)
	}
	if a.W != nil {
		a.W.appendBinary(&e)
	}
	n := len(a.Slices)
	for n > 0 && a.Slices[n-1] == nil {
		n--
	}
	e.b = binary.AppendUvarint(e.b, uint64(n))
	for _, sl := range a.Slices[:n] {
		if sl == nil {
			e.b = append(e.b, 0)
			continue
		}
		e.b = append(e.b, 1)
		sl.appendBinary(&e)
	}
	if e.bad != "" {
		return b, fmt.Errorf("analysis: negative %s: %w", e.bad, ErrLayout)
	}
	return e.b, nil
}

// MarshalBinary encodes a (see AppendBinary).
func (a *Analysis) MarshalBinary() ([]byte, error) { return a.AppendBinary(nil) }

// UnmarshalBinary replaces a with the aggregate data encodes, its layout
// included. Anything but an encoding AppendBinary wrote, truncated or
// damaged, gives an error wrapping ErrEncoding; a damage that still reads
// as a well-formed aggregate (a changed digit) is for the caller's
// checksum to catch.
func (a *Analysis) UnmarshalBinary(data []byte) error {
	d := dec{b: data}
	if v := d.u8("analysis: version"); v != encodingVersion && d.err == nil {
		d.fail("analysis: unknown version %d", v)
	}
	l := new(Layout)
	l.decode(&d)
	if !d.need(l.minBytes(), "analysis: the layout's aggregate") {
		return d.err
	}
	out := NewAnalysis(l)
	var err error
	for s, set := range out.Sys {
		if d.b, err = set.decode(d.b, l.Metrics); err != nil {
			return fmt.Errorf("analysis: system %d: %w", s, err)
		}
	}
	for s := range out.Missing {
		out.Missing[s] = d.count("analysis: missing count")
	}
	for p, ds := range out.Diff {
		for m := range ds {
			if d.err != nil {
				break
			}
			if d.b, err = ds[m].decode(d.b); err != nil {
				return fmt.Errorf("analysis: comparison %d, metric %d: %w", p, m, err)
			}
		}
	}
	for _, hs := range out.Hist {
		for _, h := range hs {
			for i := range h.Counts {
				h.Counts[i] = d.count("analysis: histogram count")
			}
		}
	}
	if out.Boot != nil {
		out.Boot.decode(&d)
	}
	if out.Perm != nil {
		out.Perm.decode(&d)
	}
	if out.W != nil {
		out.W.decode(&d)
	}
	n := d.uvarint("analysis: slices", uint64(len(d.b)))
	out.Slices = make([]*Slice, n)
	var sl slab
	for i := range out.Slices {
		switch f := d.u8("analysis: slice flag"); {
		case d.err != nil:
		case f > 1:
			d.fail("slice %d: bad flag %d", i, f)
		case f == 0 && i == len(out.Slices)-1:
			d.fail("slice %d: the last slice is absent", i)
		case f == 1 && d.need(l.minSliceBytes()-1, "slice"):
			out.Slices[i] = out.newSlice()
			out.Slices[i].decode(&d, &sl)
			d.wrap("slice %d", i)
		}
		if d.err != nil {
			return d.err
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("analysis: %d bytes after the end", len(d.b))
	}
	if what := out.counts(); d.err == nil && what != "" {
		d.fail("analysis: %s beyond the number of queries", what)
	}
	if d.err != nil {
		return d.err
	}
	*a = *out
	return nil
}

func (sl *Slice) appendBinary(e *enc) {
	for _, c := range [...][]int64{sl.Rows, sl.Queries, sl.Empty, sl.Missing} {
		for _, v := range c {
			e.count(v, "slice count")
		}
	}
	for _, sts := range [...][][]SmallStat{sl.Stats, sl.Diff} {
		for _, st := range sts {
			for m := range st {
				st[m].appendBinary(e)
			}
		}
	}
	if sl.W != nil {
		sl.W.appendBinary(e)
	}
}

func (sl *Slice) decode(d *dec, sb *slab) {
	for _, c := range [...][]int64{sl.Rows, sl.Queries, sl.Empty, sl.Missing} {
		for s := range c {
			c[s] = d.count("count")
		}
	}
	for _, sts := range [...][][]SmallStat{sl.Stats, sl.Diff} {
		for _, st := range sts {
			for m := range st {
				st[m].decode(d, sb)
			}
		}
	}
	if sl.W != nil {
		sl.W.decode(d, sb)
	}
}
