// Package state saves a run's complete result, so that runs can be merged
// later without reading their logs again: the summary of merged daily
// states is the summary of one run over all the days' logs, when each
// query id belongs to one state (a query split between two states counts
// as two). A state holds
// the run's options and metrics (what must match for a merge), the inputs
// it read with a digest of each input's queries (so that a merge refuses
// two states made from one input), the values of every slice, and the
// exact aggregate (every
// metric's sums for every system, slice and paired difference, the
// bootstrap's replicate sums, the report's histograms). docs/state-format.md
// describes the file for readers in other languages.
package state

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/internal/binread"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/stats"
	"github.com/rankeval/rankeval/summary"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrNotState: the file does not start as a state file.
	ErrNotState = errors.New("not a rankeval state file")
	// ErrDamaged: a state file that is truncated, corrupted, of an
	// unknown version, or holding what no rankeval run writes (a crafted
	// file with a valid checksum).
	ErrDamaged = errors.New("damaged rankeval state file")
	// ErrMismatch: states made under different options, which do not merge.
	ErrMismatch = errors.New("states made under different options")
	// ErrSharedInput: states made from one input, whose queries a merge
	// would count twice.
	ErrSharedInput = errors.New("states made from one input")
	// ErrKind: a state of another kind than the one expected (a run's
	// where a propensity state is, or the other way round).
	ErrKind = errors.New("states of two kinds")
)

// Magic starts every state file; Version is the layout this package writes.
// It reads that and every earlier version, forever: version 1 is version 2
// without the inputs' digests.
const (
	Magic   = "RANKEVAL-STATE\x00"
	Version = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// State is a run's complete result.
type State struct {
	Run       *summary.Run
	Agg       *aggregate.Analysis
	SliceKeys [][]string // the values of slice i of Agg
	// Digests are the inputs the state was made from, each with the
	// digest of its queries, in the order of compareDigests (SourcesOf);
	// a merged state holds all of its parts'. An input without a query
	// is not among them: it adds nothing to count twice.
	Digests []InputDigest
	// Undigested: some of the state was made by a rankeval that recorded
	// no digests (a version-1 state, or a merge of one); what that part
	// was made from is unknown, and no merge can check it.
	Undigested bool
}

// InputDigest is an input a state was made from: its name as the run
// named it (a path; NAME=PATH for a file of a --system log) and the
// aggregate.Digest of the queries whose first row it holds. Two inputs of
// one digest hold the same queries with the same figures, whatever their
// paths or formats: the same day's log.
type InputDigest struct {
	Input  string
	Digest aggregate.Digest
}

func compareDigests(a, b InputDigest) int {
	if c := a.Digest.Compare(b.Digest); c != 0 {
		return c
	}
	return strings.Compare(a.Input, b.Input)
}

// SourcesOf lists the inputs of a run with their digests d, in State's
// order: input i is named names[i] ("input #i" past their end, which no
// run makes), as a header holds it (headerName). Inputs without a query
// are left out.
func SourcesOf(names []string, d *aggregate.InputDigests) []InputDigest {
	var out []InputDigest
	for i, x := range d.D {
		if x.IsZero() {
			continue
		}
		name := fmt.Sprintf("input #%d", i)
		if i < len(names) {
			name = headerName(names[i])
		}
		out = append(out, InputDigest{Input: name, Digest: x})
	}
	slices.SortFunc(out, compareDigests)
	return out
}

// headerName is an input's name as a header holds it: JSON carries text,
// so the bytes of a path that are not UTF-8 are U+FFFD, which reads back
// as written (the header a reader expects is the one it rewrites).
func headerName(name string) string { return strings.ToValidUTF8(name, "\uFFFD") }

// Shared returns an input of a and one of b that have one digest (the
// same input, perhaps under other names), and false when they have none:
// states made from one input do not merge.
func Shared(a, b *State) (InputDigest, InputDigest, bool) { return sharedDigest(a.Digests, b.Digests) }

// sharedDigest returns an input of a and one of b (each in the order of
// compareDigests) that have one digest, and false when they have none.
func sharedDigest(a, b []InputDigest) (InputDigest, InputDigest, bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := a[i].Digest.Compare(b[j].Digest); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			return a[i], b[j], true
		}
	}
	return InputDigest{}, InputDigest{}, false
}

// AppendBinary appends the state file's bytes: Magic, the version, the
// header (JSON), the slice keys, the aggregate, and a CRC-32C of all that.
// Slices are written in the order of their keys' bytes (SliceKey), not in
// the order a run met them: equal states encode to equal bytes, whatever
// order the logs or the merged states came in.
func (s *State) AppendBinary(b []byte) ([]byte, error) {
	start := len(b)
	b = append(b, Magic...)
	b = binary.AppendUvarint(b, Version)
	h, err := json.Marshal(headerOf(s.Run, s.Digests, s.Undigested))
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	order, err := s.sliceOrder()
	if err != nil {
		return nil, err
	}
	agg := *s.Agg
	agg.Slices = make([]*aggregate.Slice, len(order))
	b = binary.AppendUvarint(b, uint64(len(order)))
	for to, from := range order {
		for _, v := range s.SliceKeys[from] {
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
		if from < len(s.Agg.Slices) {
			agg.Slices[to] = s.Agg.Slices[from]
		}
	}
	aggBytes, err := agg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(aggBytes)))
	b = append(b, aggBytes...)
	return seal(b, start), nil
}

// seal ends the state file begun at b[start:] (Magic, version, ...) with
// the CRC-32C of its bytes.
func seal(b []byte, start int) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// open checks a state file's frame: Magic, a version this package reads
// (1 to PropensityVersion), and the checksum, before anything else is
// trusted. It returns the version and a reader of what follows it.
func open(data []byte) (uint64, *binread.Reader, error) {
	if !bytes.HasPrefix(data, []byte(Magic)) {
		return 0, nil, ErrNotState
	}
	if len(data) < len(Magic)+4 {
		return 0, nil, fmt.Errorf("%w: truncated", ErrDamaged)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	d := binread.New(body[len(Magic):], ErrDamaged)
	v := d.Uvarint()
	if d.Err() == nil && (v < 1 || v > PropensityVersion) {
		return 0, nil, fmt.Errorf("%w: version %d; this rankeval reads versions 1 to %d (a newer rankeval wrote it?)", ErrDamaged, v, PropensityVersion)
	}
	if crc32.Checksum(body, castagnoli) != sum {
		return 0, nil, fmt.Errorf("%w: checksum mismatch (truncated or corrupted)", ErrDamaged)
	}
	if d.Err() != nil {
		return 0, nil, d.Err()
	}
	return v, d, nil
}

// sliceOrder lists the slices in the order of their keys' bytes; two
// slices of one key are an error (a merge would give either).
func (s *State) sliceOrder() ([]int, error) {
	keys := make([]string, len(s.SliceKeys))
	order := make([]int, len(s.SliceKeys))
	for i, key := range s.SliceKeys {
		if len(key) != len(s.Run.Slices) {
			return nil, fmt.Errorf("state: slice key %d has %d values for %d slice columns", i, len(key), len(s.Run.Slices))
		}
		keys[i], order[i] = SliceKey(key), i
	}
	slices.SortFunc(order, func(i, j int) int { return strings.Compare(keys[i], keys[j]) })
	for p := 1; p < len(order); p++ {
		if keys[order[p]] == keys[order[p-1]] {
			return nil, fmt.Errorf("state: slice %q twice", s.SliceKeys[order[p]])
		}
	}
	return order, nil
}

// Decode reads a state file's bytes. Every field is checked before it is
// used, and every count against the bytes left before it sizes anything:
// a file can make Decode allocate in proportion to its own length, never
// more.
func Decode(data []byte) (*State, error) {
	v, d, err := open(data)
	if err != nil {
		return nil, err
	}
	if v > Version {
		return nil, fmt.Errorf("%w: a propensity state (rankeval propensities --state), not a run's", ErrKind)
	}
	hb := d.Bytes()
	if d.Err() != nil {
		return nil, d.Err()
	}
	run, layout, digests, undigested, err := decodeHeader(hb, v)
	if errors.Is(err, stats.ErrFewReplicates) { // an older rankeval's state, not damaged
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrDamaged, err)
	}
	n, keys, err := keySection(d, len(run.Slices))
	if err != nil {
		return nil, fmt.Errorf("%w: slice keys: %v", ErrDamaged, err)
	}
	aggBytes := d.Bytes()
	if d.Err() != nil {
		return nil, d.Err()
	}
	if len(d.Rest()) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the aggregate", ErrDamaged, len(d.Rest()))
	}
	s := &State{Run: run, Agg: new(aggregate.Analysis), Digests: digests, Undigested: undigested || v == 1}
	if err := s.Agg.UnmarshalBinary(aggBytes); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if err := s.check(layout, n); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if s.SliceKeys, err = readKeys(keys, n, len(run.Slices)); err != nil {
		return nil, fmt.Errorf("%w: slice keys: %v", ErrDamaged, err)
	}
	return s, nil
}

// keySection steps over the slice keys: a count n, then n keys of cols
// values, each a length and its bytes. It allocates nothing; the keys are
// made (readKeys) once the aggregate has figures for n slices, which it
// holds only if the file has the bytes for them.
func keySection(d *binread.Reader, cols int) (int, []byte, error) {
	n := d.Uvarint()
	switch {
	case d.Err() != nil:
		return 0, nil, d.Err()
	case n == 0:
		return 0, nil, nil
	case cols == 0:
		return 0, nil, fmt.Errorf("%d keys for no slice column", n)
	case n > uint64(len(d.Rest())/cols): // a value takes a byte at least
		return 0, nil, fmt.Errorf("%d keys of %d values each: more than the %d bytes left hold", n, cols, len(d.Rest()))
	}
	start := d.Rest()
	for range int(n) * cols {
		if d.Bytes(); d.Err() != nil {
			return 0, nil, d.Err()
		}
	}
	return int(n), start[:len(start)-len(d.Rest())], nil
}

// readKeys makes the n slice keys of a key section. A key seen twice is
// refused: the slices of a run are distinct, and a merge would add the
// second to either, as the order of the states falls.
func readKeys(b []byte, n, cols int) ([][]string, error) {
	if n == 0 {
		return nil, nil
	}
	d := binread.New(b, ErrDamaged)
	vals := make([]string, n*cols)
	keys := make([][]string, n)
	seen := make(map[string]int, n)
	for i := range keys {
		key := vals[i*cols : (i+1)*cols : (i+1)*cols]
		for c := range key {
			key[c] = string(d.Bytes())
		}
		k := SliceKey(key)
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("key %d %q repeats key %d", i, key, j)
		}
		seen[k], keys[i] = i, key
	}
	return keys, d.Err()
}

// check verifies that the aggregate has the layout the header's run
// makes, and figures for each of the n slice keys.
func (s *State) check(want *aggregate.Layout, n int) error {
	if l := s.Agg.L; !l.Equal(want) {
		return fmt.Errorf("the aggregate's layout (%d metrics, %d core, %d systems, %d replicates, histograms %v) does not fit the header (%d, %d, %d, %d, %v)",
			l.Metrics, len(l.Core), l.Systems, l.Bootstrap, l.Hist, want.Metrics, len(want.Core), want.Systems, want.Bootstrap, want.Hist)
	}
	if len(s.Agg.Slices) != n {
		return fmt.Errorf("%d slices for %d slice keys", len(s.Agg.Slices), n)
	}
	for i, sl := range s.Agg.Slices {
		if sl == nil {
			return fmt.Errorf("slice %d has no figures", i)
		}
	}
	var ranges []aggregate.Range
	for _, m := range s.Run.Evaluated() {
		ranges = append(ranges, pipeline.RangeOf(m))
	}
	if err := s.Agg.Check(ranges); err != nil {
		return err
	}
	for m, mt := range s.Run.Metrics {
		if mt.Teams() {
			if err := s.Agg.CheckOutcomes(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// orDefault is a header field's value as a mismatch names it: a field
// left out (at its default, as in a state made before it existed) is "the
// default".
func orDefault(v json.RawMessage) string {
	if v == nil {
		return "the default"
	}
	return string(v)
}

// Mismatch names the first difference between what two states hold that
// stops them merging ("" when they merge): the metrics, then each option.
// The correction is none: it adjusts p-values when a summary is printed,
// from sums it does not change, and the merge chooses one.
func Mismatch(a, b *State) string {
	ha, hb := headerOf(a.Run, nil, false), headerOf(b.Run, nil, false)
	ha.Inputs, hb.Inputs = nil, nil
	ha.Labels, hb.Labels = "", "" // what the rows were, not how they were read
	ha.Correction, hb.Correction = "", ""
	if !slices.Equal(ha.Metrics, hb.Metrics) {
		return fmt.Sprintf("metrics %s against %s", joinNames(hb.Metrics), joinNames(ha.Metrics))
	}
	ja, _ := json.Marshal(ha)
	jb, _ := json.Marshal(hb)
	if k, va, vb := firstField(ja, jb); k != "" {
		return fmt.Sprintf("%s %s against %s", k, orDefault(vb), orDefault(va))
	}
	if !a.Agg.L.Equal(b.Agg.L) {
		return "their aggregates' layouts"
	}
	return ""
}

// Merge adds o into s; both must have been checked with Mismatch. Slices
// are matched by their values; o's inputs follow s's, and s holds both
// states' digests. States made from one input (Shared) are refused
// (ErrSharedInput), changing nothing: its queries would count twice.
func (s *State) Merge(o *State) error {
	if x, y, ok := Shared(s, o); ok {
		return fmt.Errorf("%q and %q have the digest %s: %w", x.Input, y.Input, x.Digest, ErrSharedInput)
	}
	index := map[string]int{}
	for i, key := range s.SliceKeys {
		index[SliceKey(key)] = i
	}
	mapping := make([]int, len(o.SliceKeys))
	for i, key := range o.SliceKeys {
		j, ok := index[SliceKey(key)]
		if !ok {
			j = len(s.SliceKeys)
			s.SliceKeys = append(s.SliceKeys, key)
			index[SliceKey(key)] = j
		}
		mapping[i] = j
	}
	if err := s.Agg.MergeMapped(o.Agg, mapping); err != nil {
		return err
	}
	s.Run.Inputs = append(s.Run.Inputs, o.Run.Inputs...)
	s.Digests = append(s.Digests, o.Digests...)
	slices.SortFunc(s.Digests, compareDigests)
	s.Undigested = s.Undigested || o.Undigested
	// any graded label makes the whole graded; else any binary, binary
	if s.Run.Labels != "graded" && o.Run.Labels != "" {
		s.Run.Labels = o.Run.Labels
	}
	return nil
}

// SliceKey is a slice's values as one map key, length-prefixed so no two
// keys collide; merges match slices by it.
func SliceKey(key []string) string {
	var b []byte
	for _, v := range key {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return string(b)
}
