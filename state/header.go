package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rankeval/rankeval/aggregate"
	"github.com/rankeval/rankeval/config"
	"github.com/rankeval/rankeval/pipeline"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/stats"
	"github.com/rankeval/rankeval/summary"
)

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
	// The comparison's flags, left out at their defaults so that a state
	// written before they existed reads the same.
	Pairs        string `json:"pairs,omitempty"`
	Test         string `json:"test,omitempty"`
	Permutations int    `json:"permutations,omitempty"`
	Seed         uint64 `json:"seed,omitempty"`
	Correction   string `json:"correction,omitempty"`
	// IPS is where the IPS estimates' propensities came from, left out
	// without them (a state written before they existed reads the same).
	IPS *ipsHeader `json:"ips,omitempty"`
	// Teams are the interleaving outcome's team column and teams, left
	// out without it.
	Teams  *teamsHeader `json:"teams,omitempty"`
	Labels string       `json:"labels"`
	Inputs []string     `json:"inputs"`
	// Digests and Undigested are State's; both are absent from a version-1
	// state, which recorded neither.
	Digests    []digestHeader `json:"digests,omitempty"`
	Undigested bool           `json:"undigested,omitempty"`
}

// digestHeader is an InputDigest.
type digestHeader struct {
	Input  string `json:"input"`
	Digest string `json:"digest"`
}

// teamsHeader is summary.Teams.
type teamsHeader struct {
	Col string `json:"team_col"`
	A   string `json:"a"`
	B   string `json:"b"`
}

// ipsHeader is summary.IPS and the clip, as the click flags give them.
type ipsHeader struct {
	PropensityCol string  `json:"propensity_col"`
	PositionCol   string  `json:"position_col"`
	PositionBias  string  `json:"position_bias"`
	Clip          float64 `json:"propensity_clip"`
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

// headerOf is the header of a state of run r, made from the inputs ds.
func headerOf(r *summary.Run, ds []InputDigest, undigested bool) header {
	h := header{Curves: len(r.Curves) > 0, Ties: r.Options.Ties.String(), Gain: r.Options.Gain.String(),
		MaxGrade: r.Options.MaxGrade, Empty: r.Options.Empty.String(), Dedup: "error", Profile: r.Profile,
		ScoreFloat32: r.ScoreFloat32, Qrels: r.Qrels, Labels: r.Labels,
		Columns: columns{Query: r.Columns.Query, Doc: r.Columns.Doc, Score: r.Columns.Score, ExtraScore: r.Columns.ExtraScore,
			Label: r.Columns.Label, Rank: r.Columns.Rank}, Complete: r.Complete, SkipUnjudged: r.SkipUnjudged,
		Slices: r.Slices, MaxSlices: r.MaxSlices, Systems: r.Systems, Missing: r.Missing, Bootstrap: r.Bootstrap}
	if r.Inputs != nil {
		h.Inputs = make([]string, len(r.Inputs))
		for i, in := range r.Inputs {
			h.Inputs[i] = headerName(in)
		}
	}
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
	if r.Compare.AllPairs {
		h.Pairs = "all"
	}
	if r.Compare.Test != stats.TestT {
		h.Test, h.Permutations, h.Seed = r.Compare.Test.String(), r.Compare.Permutations, r.Compare.Seed
	}
	if r.Correction != stats.CorrHolm {
		h.Correction = r.Correction.String()
	}
	if r.IPS.On() {
		h.IPS = &ipsHeader{PropensityCol: r.IPS.PropensityCol, PositionCol: r.IPS.PositionCol, PositionBias: r.IPS.PositionBias,
			Clip: r.Options.PropClip}
	}
	if r.Teams.On() {
		h.Teams = &teamsHeader{Col: r.Teams.Col, A: r.Teams.A, B: r.Teams.B}
	}
	for _, d := range ds {
		h.Digests = append(h.Digests, digestHeader{Input: d.Input, Digest: d.Digest.String()})
	}
	h.Undigested = undigested
	return h
}

// decodeHeader reads the header of a state of version v and rebuilds the
// run that wrote it, the layout its aggregate must have, and the inputs it
// was made from (none of version 1, which recorded none). A state is
// hostile input: the header is read back into the settings (config.Config)
// that made it and resolved by config, whose checks every rankeval
// command applies to its settings
// (metric names and cutoffs, conventions, columns, systems, slice columns,
// bootstrap size); the run rebuilt must then encode to the very bytes
// read, so that a field unknown, repeated, spelt otherwise or at odds with
// the others (a profile's 32-bit scores, curves, the labels seen) is
// refused rather than half understood.
func decodeHeader(b []byte, v uint64) (*summary.Run, *aggregate.Layout, []InputDigest, bool, error) {
	var h header
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, nil, nil, false, err
	}
	run, s, err := h.run()
	if errors.Is(err, stats.ErrFewReplicates) { // an older rankeval's state: not damaged, but no interval
		return nil, nil, nil, false, fmt.Errorf("made with --bootstrap %d: %w; make it again with --bootstrap %d or more (or 0)",
			h.Bootstrap, stats.ErrFewReplicates, stats.MinBootstrap)
	}
	if err != nil {
		return nil, nil, nil, false, err
	}
	ds, err := h.digests(v)
	if err != nil {
		return nil, nil, nil, false, err
	}
	again, err := json.Marshal(headerOf(run, ds, h.Undigested))
	if err != nil {
		return nil, nil, nil, false, err
	}
	if !bytes.Equal(again, b) {
		return nil, nil, nil, false, notCanonical(again, b)
	}
	return run, layout(run, s), ds, h.Undigested, nil
}

// digests reads the inputs the header says the state was made from. A
// version-1 state records none; a later one lists them as SourcesOf and
// Merge do, in the order of their digests (which decodeHeader's
// re-encoding holds it to), none of them the zero digest of no query.
func (h *header) digests(v uint64) ([]InputDigest, error) {
	if v == 1 {
		if h.Digests != nil || h.Undigested {
			return nil, fmt.Errorf("digests in a version-1 state")
		}
		return nil, nil
	}
	return readDigests(h.Digests, "query")
}

// readDigests reads a header's digests, which must be in the order of
// compareDigests, none the zero digest of no item (what: query, row).
func readDigests(hs []digestHeader, what string) ([]InputDigest, error) {
	ds := make([]InputDigest, 0, len(hs))
	for i, d := range hs {
		x, err := aggregate.ParseDigest(d.Digest)
		if err != nil {
			return nil, fmt.Errorf("input %d: %v", i, err)
		}
		if x.IsZero() {
			return nil, fmt.Errorf("input %d %q: the digest of no %s", i, d.Input, what)
		}
		ds = append(ds, InputDigest{Input: d.Input, Digest: x})
	}
	if !slices.IsSortedFunc(ds, compareDigests) {
		return nil, fmt.Errorf("digests not in order")
	}
	return ds, nil
}

// layout is the aggregate's layout of a run with --state (which evaluates
// the report's curves and their histograms), as pipeline makes it.
func layout(run *summary.Run, s *config.Settings) *aggregate.Layout {
	cfg := pipeline.Config{Rules: s.Rules, Analysis: pipeline.Analysis{Core: len(run.Metrics), Bootstrap: s.Bootstrap, Hist: true,
		Compare: s.Compare}}
	cfg.Rules.Metrics = run.Evaluated()
	return cfg.Layout()
}

// run resolves the settings the header describes, as a run with --state
// did; the header records the conventions a profile set, so the profile
// counts as applied.
func (h *header) run() (*summary.Run, *config.Settings, error) {
	v := config.Config{Metrics: joinNames(h.Metrics), Ties: h.Ties, Gain: h.Gain, MaxGrade: h.MaxGrade, Empty: h.Empty,
		Profile: h.Profile, ProfileApplied: h.Profile, Dedup: h.Dedup, Format: "json", InputFormat: "auto", MaxGroupRows: pipeline.DefaultMaxGroupRows,
		Columns: reader.Columns{Query: h.Columns.Query, Doc: h.Columns.Doc, Label: h.Columns.Label, Rank: h.Columns.Rank,
			Score: strings.Join(append([]string{h.Columns.Score}, h.Columns.ExtraScore...), ",")},
		By: strings.Join(h.Slices, ","), MaxSlices: h.MaxSlices, Bootstrap: h.Bootstrap,
		Pairs: h.Pairs, Test: h.Test, Permutations: h.Permutations, Seed: h.Seed, Correction: h.Correction}
	if h.RelThreshold != nil {
		v.RelThreshold = strconv.FormatFloat(*h.RelThreshold, 'g', -1, 64)
	}
	if h.IPS != nil {
		v.Clicks = config.Clicks{PropensityCol: h.IPS.PropensityCol, PositionCol: h.IPS.PositionCol,
			PositionBias: h.IPS.PositionBias, PropensityClip: h.IPS.Clip}
	}
	if h.Teams != nil {
		v.Teams = config.Teams{TeamCol: h.Teams.Col, Teams: h.Teams.A + "," + h.Teams.B}
	}
	if len(h.Slices) == 0 {
		v.MaxSlices = pipeline.DefaultMaxSlices // not recorded without slices
	}
	s, err := v.Resolve()
	if err != nil {
		return nil, nil, err
	}
	src := config.Sources{Qrels: h.Qrels, Complete: h.Complete, Missing: "error"}
	if h.Missing != "" { // the systems were --system logs
		src.Missing = h.Missing
		for _, name := range h.Systems {
			src.System = append(src.System, name+"=log")
		}
	}
	logs, err := src.Apply(s, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := src.CheckState("state"); err != nil {
		return nil, nil, err
	}
	run := s.Summary()
	run.Curves = summary.CurvesFor(run.Metrics) // a state carries the report's figures
	src.Describe(&run, nil, logs)
	run.Inputs = h.Inputs
	if s.Rules.NoteBinaryLabels {
		run.NoteLabels(h.Labels == "binary", h.Labels == "graded")
		run.Warnings = nil // the command that merges says it again
	}
	return &run, s, nil
}

// notCanonical says how the header read (got) differs from the one
// rankeval writes for the same run (want).
func notCanonical(want, got []byte) error {
	k, w, g := firstField(want, got)
	switch {
	case k == "":
		return fmt.Errorf("not as rankeval writes it (a field repeated or spelt otherwise)")
	case w == nil:
		return fmt.Errorf("unknown field %q", k)
	case g == nil:
		return fmt.Errorf("no field %q", k)
	}
	return fmt.Errorf("%s is %s where rankeval writes %s", k, g, w)
}

// firstField names the first field, in a's order then b's, whose JSON
// differs between the header objects a and b, with its value in each (nil
// where absent); "" when they hold the same fields and values.
func firstField(a, b []byte) (key string, va, vb json.RawMessage) {
	var ma, mb map[string]json.RawMessage
	json.Unmarshal(a, &ma)
	json.Unmarshal(b, &mb)
	for _, k := range append(fieldOrder(a), fieldOrder(b)...) {
		if !bytes.Equal(ma[k], mb[k]) {
			return k, ma[k], mb[k]
		}
	}
	return "", nil, nil
}

// fieldOrder lists the keys of a JSON object in their order.
func fieldOrder(b []byte) []string {
	var order []string
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		order = append(order, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return order
}

func joinNames(ns []string) string { return strings.Join(ns, ",") }
