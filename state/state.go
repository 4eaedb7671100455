// Package state saves a run's complete result, so that runs can be merged
// later without reading their logs again: the summary of merged daily
// states is the summary of one run over all the days' logs, when each
// query id belongs to one state (a query split between two states counts
// as two). A state holds
// the run's options and metrics (what must match for a merge), the inputs
// it read, the values of every slice, and the exact aggregate (every
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

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/internal/binread"
	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/summary"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrNotState: the file does not start as a state file.
	ErrNotState = errors.New("not a rankeval state file")
	// ErrDamaged: a state file that is truncated, corrupted or of an
	// unknown version.
	ErrDamaged = errors.New("damaged rankeval state file")
	// ErrMismatch: states made under different options, which do not merge.
	ErrMismatch = errors.New("states made under different options")
)

// Magic starts every state file; Version is the layout this package writes
// and reads (a reader of this version accepts it forever).
const (
	Magic   = "RANKEVAL-STATE\x00"
	Version = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// State is a run's complete result.
type State struct {
	Run       *summary.Run
	Agg       *aggregate.Analysis
	SliceKeys [][]string // the values of slice i of Agg
}

// header is the part of a state that says what it holds: everything that
// must be equal for two states to merge, then the inputs. Its JSON is the
// file's header, fields in this order.
type header struct {
	Metrics      []string `json:"metrics"`
	Curves       bool     `json:"curves"`
	Ties         string   `json:"ties"`
	Gain         string   `json:"gain"`
	MaxGrade     float64  `json:"max_grade"`
	RelThreshold *float64 `json:"rel_threshold"`
	Empty        string   `json:"empty"`
	Dedup        string   `json:"dedup"`
	Profile      string   `json:"profile"`
	ScoreFloat32 bool     `json:"score_float32"`
	Columns      columns  `json:"columns"`
	Qrels        string   `json:"qrels"`
	Complete     bool     `json:"complete"`
	SkipUnjudged bool     `json:"skip_unjudged"`
	Slices       []string `json:"slices"`
	MaxSlices    int      `json:"max_slices"`
	Systems      []string `json:"systems"`
	Missing      string   `json:"missing"`
	Bootstrap    int      `json:"bootstrap"`
	Labels       string   `json:"labels"`
	Inputs       []string `json:"inputs"`
}

// columns are the column names a run read, as the file spells them.
type columns struct {
	Query      string   `json:"query"`
	Doc        string   `json:"doc"`
	Score      string   `json:"score"`
	ExtraScore []string `json:"extra_scores"`
	Label      string   `json:"label"`
	Rank       string   `json:"rank"`
}

func headerOf(r *summary.Run) header {
	h := header{Curves: len(r.Curves) > 0, Ties: r.Options.Ties.String(), Gain: r.Options.Gain.String(),
		MaxGrade: r.Options.MaxGrade, Empty: r.Options.Empty.String(), Dedup: "error", Profile: r.Profile,
		ScoreFloat32: r.ScoreFloat32, Qrels: r.Qrels, Labels: r.Labels,
		Columns: columns{Query: r.Columns.Query, Doc: r.Columns.Doc, Score: r.Columns.Score, ExtraScore: r.Columns.ExtraScore,
			Label: r.Columns.Label, Rank: r.Columns.Rank}, Complete: r.Complete, SkipUnjudged: r.SkipUnjudged,
		Slices: r.Slices, MaxSlices: r.MaxSlices, Systems: r.Systems, Missing: r.Missing, Bootstrap: r.Bootstrap, Inputs: r.Inputs}
	for _, m := range r.Metrics {
		h.Metrics = append(h.Metrics, m.Name)
	}
	if r.Options.HasThreshold {
		t := r.Options.RelThreshold
		h.RelThreshold = &t
	}
	if r.DedupFirst {
		h.Dedup = "first"
	}
	if len(r.Slices) == 0 {
		h.MaxSlices = 0 // a limit on nothing: no reason to refuse a merge
	}
	return h
}

// run rebuilds the summary's Run.
func (h *header) run() (*summary.Run, error) {
	ms, err := metrics.ParseList(joinNames(h.Metrics))
	if err != nil {
		return nil, err
	}
	o := metrics.DefaultOptions()
	if o.Ties, err = metrics.ParseTies(h.Ties); err != nil {
		return nil, err
	}
	if o.Gain, err = metrics.ParseGain(h.Gain); err != nil {
		return nil, err
	}
	if o.Empty, err = metrics.ParseEmpty(h.Empty); err != nil {
		return nil, err
	}
	o.MaxGrade = h.MaxGrade
	if h.RelThreshold != nil {
		o.RelThreshold, o.HasThreshold = *h.RelThreshold, true
	}
	cols := reader.Columns{Query: h.Columns.Query, Doc: h.Columns.Doc, Score: h.Columns.Score, ExtraScore: h.Columns.ExtraScore,
		Label: h.Columns.Label, Rank: h.Columns.Rank, DocOptional: o.Ties != metrics.TiesTrec}
	r := &summary.Run{Metrics: ms, Options: o, Columns: cols, Profile: h.Profile, ScoreFloat32: h.ScoreFloat32, Labels: h.Labels,
		DedupFirst: h.Dedup == "first", Qrels: h.Qrels, Complete: h.Complete, SkipUnjudged: h.SkipUnjudged,
		Slices: h.Slices, MaxSlices: h.MaxSlices, Systems: h.Systems, Missing: h.Missing, Bootstrap: h.Bootstrap,
		Inputs: h.Inputs}
	if h.Curves {
		r.Curves = summary.CurvesFor(ms)
	}
	return r, nil
}

func joinNames(ns []string) string {
	b := []byte{}
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n...)
	}
	return string(b)
}

// AppendBinary appends the state file's bytes: Magic, the version, the
// header (JSON), the slice keys, the aggregate, and a CRC-32C of all that.
func (s *State) AppendBinary(b []byte) ([]byte, error) {
	start := len(b)
	b = append(b, Magic...)
	b = binary.AppendUvarint(b, Version)
	h, err := json.Marshal(headerOf(s.Run))
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	b = binary.AppendUvarint(b, uint64(len(s.SliceKeys)))
	for _, key := range s.SliceKeys {
		for _, v := range key {
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	agg, err := s.Agg.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(agg)))
	b = append(b, agg...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli)), nil
}

// Decode reads a state file's bytes.
func Decode(data []byte) (*State, error) {
	if !bytes.HasPrefix(data, []byte(Magic)) {
		return nil, ErrNotState
	}
	if len(data) < len(Magic)+4 {
		return nil, fmt.Errorf("%w: truncated", ErrDamaged)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	d := binread.New(body[len(Magic):], ErrDamaged)
	v := d.Uvarint()
	if d.Err() == nil && v != Version {
		return nil, fmt.Errorf("%w: version %d; this rankeval reads version %d (a newer rankeval wrote it?)", ErrDamaged, v, Version)
	}
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or corrupted)", ErrDamaged)
	}
	var h header
	if err := json.Unmarshal(d.Bytes(), &h); d.Err() == nil && err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrDamaged, err)
	}
	n := d.Uvarint()
	if n > uint64(len(d.Rest())) {
		d.Fail("truncated")
	}
	s := &State{}
	for range n {
		key := make([]string, len(h.Slices))
		for c := range key {
			key[c] = string(d.Bytes())
		}
		s.SliceKeys = append(s.SliceKeys, key)
	}
	aggBytes := d.Bytes()
	if d.Err() != nil {
		return nil, d.Err()
	}
	if len(d.Rest()) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the aggregate", ErrDamaged, len(d.Rest()))
	}
	var err error
	if s.Run, err = h.run(); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrDamaged, err)
	}
	s.Agg = new(aggregate.Analysis)
	if err := s.Agg.UnmarshalBinary(aggBytes); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	return s, nil
}

// check verifies that the aggregate's layout fits the header.
func (s *State) check() error {
	l := s.Agg.L
	want := len(s.Run.Evaluated())
	if l.Metrics != want || len(l.Core) != len(s.Run.Metrics) || l.Systems != max(1, len(s.Run.Systems)) || l.Bootstrap != s.Run.Bootstrap {
		return fmt.Errorf("the aggregate's layout (%d metrics, %d core, %d systems, %d replicates) does not fit the header",
			l.Metrics, len(l.Core), l.Systems, l.Bootstrap)
	}
	if len(s.Agg.Slices) != len(s.SliceKeys) {
		return fmt.Errorf("%d slices for %d slice keys", len(s.Agg.Slices), len(s.SliceKeys))
	}
	for i, sl := range s.Agg.Slices {
		if sl == nil {
			return fmt.Errorf("slice %d has no figures", i)
		}
	}
	return nil
}

// Mismatch names the first difference between what two states hold that
// stops them merging ("" when they merge): the metrics, then each option.
func Mismatch(a, b *State) string {
	ha, hb := headerOf(a.Run), headerOf(b.Run)
	ha.Inputs, hb.Inputs = nil, nil
	ha.Labels, hb.Labels = "", "" // what the rows were, not how they were read
	if !slices.Equal(ha.Metrics, hb.Metrics) {
		return fmt.Sprintf("metrics %s against %s", joinNames(hb.Metrics), joinNames(ha.Metrics))
	}
	ja, _ := json.Marshal(ha)
	jb, _ := json.Marshal(hb)
	if bytes.Equal(ja, jb) {
		if !a.Agg.L.Equal(b.Agg.L) {
			return "the report's histograms (one was made with them, one without)"
		}
		return ""
	}
	var ma, mb map[string]json.RawMessage
	json.Unmarshal(ja, &ma)
	json.Unmarshal(jb, &mb)
	// the header's fields in their order
	var order []string
	dec := json.NewDecoder(bytes.NewReader(ja))
	dec.Token()
	for dec.More() {
		t, _ := dec.Token()
		k, _ := t.(string)
		order = append(order, k)
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	for _, k := range order {
		if !bytes.Equal(ma[k], mb[k]) {
			return fmt.Sprintf("%s %s against %s", k, mb[k], ma[k])
		}
	}
	return "their layout"
}

// Merge adds o into s; both must have been checked with Mismatch. Slices
// are matched by their values; o's inputs follow s's.
func (s *State) Merge(o *State) error {
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
