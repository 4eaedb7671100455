package aggregate

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/rankeval/rankeval/stats"
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
// (encode.go); small-stat, boots, perms, weights and slice-weights are in
// encode_parts.go. Trailing nil
// slices are not written: a slice exists only once a query of it was added.

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
	if pm := a.Perm; (l.Test != stats.TestT) != (pm != nil) || pm != nil && (pm.Test != l.Test || pm.B != l.Permutations ||
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
