package rankeval_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rankeval/rankeval"
	"github.com/rankeval/rankeval/propensity"
	"github.com/rankeval/rankeval/state"
)

// TestEstimatePropensitiesStreams estimates from streams, one a ranker
// (Config.Sources.System is for paths; a ranker column names them here):
// the same file as from one stream of both, and ErrNoEstimate from a log
// of one order.
func TestEstimatePropensitiesStreams(t *testing.T) {
	var a, b, both bytes.Buffer
	for q := range 200 {
		for i := range 20 {
			// ranker A shows d1 then d2, B the other way round; clicks 1/2 of
			// examinations, examination 1 at the top and 1/2 below
			fmt.Fprintf(&a, `{"query_id":"q%d","doc_id":"d1","position":1,"label":%v,"ranker":"A"}`+"\n", q, i%2 == 0)
			fmt.Fprintf(&a, `{"query_id":"q%d","doc_id":"d2","position":2,"label":%v,"ranker":"A"}`+"\n", q, i%4 == 0)
			fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d2","position":1,"label":%v,"ranker":"B"}`+"\n", q, i%2 == 1)
			fmt.Fprintf(&b, `{"query_id":"q%d","doc_id":"d1","position":2,"label":%v,"ranker":"B"}`+"\n", q, i%4 == 1)
		}
	}
	both.Write(a.Bytes())
	both.Write(b.Bytes())
	cfg := rankeval.DefaultConfig()
	cfg.Clicks.PositionCol = "position"
	cfg.Propensities.RankerCol = "ranker"
	var files []string
	for _, srcs := range [][]rankeval.Source{
		{rankeval.Stream("a", bytes.NewReader(a.Bytes())), rankeval.Stream("b", bytes.NewReader(b.Bytes()))},
		{rankeval.Stream("both", bytes.NewReader(both.Bytes()))},
	} {
		p, err := rankeval.EstimatePropensities(context.Background(), cfg, srcs...)
		if err != nil {
			t.Fatal(err)
		}
		var f bytes.Buffer
		if err := p.WriteFile(&f); err != nil {
			t.Fatal(err)
		}
		files = append(files, f.String())
		if got := p.Estimate.Positions[1].Propensity; got < 0.49999 || got > 0.50001 {
			t.Errorf("position 2: %v, want 0.5", got)
		}
		// p(2) = 0.5 is pow:1 exactly; the page says so, naming the streams
		if fit := p.Fits(); fit.Best.Eta < 0.9999 || fit.Best.Eta > 1.0001 || fit.Model() != "pow:1" {
			t.Errorf("fit %+v, model %s", fit.Best, fit.Model())
		}
		var page bytes.Buffer
		if err := p.WriteReport(&page); err != nil {
			t.Fatal(err)
		}
		// the fitted law is named to its error's digits, apart from pow:1
		if s := page.String(); !strings.Contains(s, "k^−η with η = 1.0000 ± 0.0014") || !strings.Contains(s, "<title>pow:1.0000 (fitted)</title>") || !strings.Contains(s, "--position-bias pow:1 is the power law nearest the file") ||
			!strings.Contains(s, "<p class=\"meta\">"+strconv.Itoa(len(srcs))+" inputs: ") && !strings.Contains(s, "<p class=\"meta\">Input: both</p>") {
			t.Errorf("page %s", s)
		}
	}
	if files[0] != files[1] || !strings.HasPrefix(files[0], propensity.FileHeader+"\n1,1,1,1,400,4000\n2,0.5,") {
		t.Errorf("files %q", files)
	}
	_, err := rankeval.EstimatePropensities(context.Background(), cfg, rankeval.Stream("a", bytes.NewReader(a.Bytes())))
	if !errors.Is(err, propensity.ErrNoEstimate) {
		t.Errorf("one order: %v", err)
	}

	// the states of a and of b (neither has an estimate alone, and each
	// is saved) merge into the estimate and the state of both
	if err := (&rankeval.Propensities{}).WriteState(&bytes.Buffer{}); !errors.Is(err, rankeval.ErrNotKept) {
		t.Errorf("WriteState of no state: %v", err)
	}
	cfg.Outputs.State = "kept"
	var states [][]byte
	for _, in := range []struct {
		name string
		log  []byte
	}{{"a", a.Bytes()}, {"b", b.Bytes()}, {"both", both.Bytes()}} {
		p, err := rankeval.EstimatePropensities(context.Background(), cfg, rankeval.Stream(in.name, bytes.NewReader(in.log)))
		if in.name != "both" && (!errors.Is(err, propensity.ErrNoEstimate) || p == nil || p.Estimate != nil) {
			t.Fatalf("%s: %v", in.name, err)
		}
		var st bytes.Buffer
		if err := p.WriteState(&st); err != nil {
			t.Fatal(err)
		}
		states = append(states, st.Bytes())
	}
	p, err := rankeval.MergePropensities(context.Background(), rankeval.MergeConfig{},
		rankeval.Stream("a.state", bytes.NewReader(states[0])), rankeval.Stream("b.state", bytes.NewReader(states[1])))
	if err != nil {
		t.Fatal(err)
	}
	var f bytes.Buffer
	if err := p.WriteFile(&f); err != nil || f.String() != files[0] {
		t.Errorf("merged: %v\n%s", err, f.String())
	}
	// Merge, of runs' states, refuses a propensity state
	if _, err := rankeval.Merge(context.Background(), rankeval.MergeConfig{}, rankeval.Stream("a.state", bytes.NewReader(states[0]))); !errors.Is(err, state.ErrKind) {
		t.Errorf("Merge of a propensity state: %v", err)
	}
}

// TestEstimatePropensitiesOneLogTwice gives one log's rows twice, under
// two names: rankeval merge refuses the states of such inputs
// (state.ErrSharedInput: "its rows would count twice"), so one run over
// both refuses them too, with or without --state, rather than doubling
// every click count (which --min-clicks reads) and writing a state that
// holds the digest twice.
func TestEstimatePropensitiesOneLogTwice(t *testing.T) {
	t.Skip("open: EstimatePropensities counts two inputs with the same rows twice (digests are made only with --state, and never compared among a run's own inputs), while rankeval merge refuses their states with state.ErrSharedInput")
	var log bytes.Buffer
	for q := range 200 {
		for i := range 20 {
			fmt.Fprintf(&log, `{"query_id":"q%d","doc_id":"d1","position":1,"label":%v,"ranker":"A"}`+"\n", q, i%2 == 0)
			fmt.Fprintf(&log, `{"query_id":"q%d","doc_id":"d2","position":2,"label":%v,"ranker":"A"}`+"\n", q, i%4 == 0)
			fmt.Fprintf(&log, `{"query_id":"q%d","doc_id":"d2","position":1,"label":%v,"ranker":"B"}`+"\n", q, i%2 == 1)
			fmt.Fprintf(&log, `{"query_id":"q%d","doc_id":"d1","position":2,"label":%v,"ranker":"B"}`+"\n", q, i%4 == 1)
		}
	}
	for _, keep := range []string{"", "kept"} {
		t.Run("state="+keep, func(t *testing.T) {
			cfg := rankeval.DefaultConfig()
			cfg.Clicks.PositionCol = "position"
			cfg.Propensities.RankerCol = "ranker"
			cfg.Outputs.State = keep
			_, err := rankeval.EstimatePropensities(context.Background(), cfg,
				rankeval.Stream("day1.jsonl", bytes.NewReader(log.Bytes())), rankeval.Stream("day1-copy.jsonl", bytes.NewReader(log.Bytes())))
			if !errors.Is(err, state.ErrSharedInput) {
				t.Errorf("one log twice: %v, want state.ErrSharedInput", err)
			}
		})
	}
}
