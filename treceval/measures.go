package treceval

import (
	"slices"
	"strings"

	"github.com/rankeval/rankeval/metrics"
)

// measure is one measure of trec_eval's table (metrics.TrecMeasures:
// its name, release, judgments, parameters and help), with init, which
// reads the parameters of the first "-m name.PARAM" that gave some (param
// is "" when none did) as trec_eval's init_meas does, and returns the
// measure's values.
type measure struct {
	*metrics.TrecMeasure
	init initFunc
}

// initContext is what a measure's init reads besides its parameters.
type initContext struct {
	release string
}

// value is one value a measure prints (one TREC_EVAL_VALUE of trec_eval):
// its name and how it is computed, printed and summarized.
type value struct {
	name string
	rule rule
	// metrics compute it for a query: one metric, or one per character of
	// relstring; none for runid and num_q
	metrics []metrics.Metric
	// own: its family computes it from judgments of another -R format
	// than qrels, without a metric (the prefs measures)
	own bool
}

// width is how many of a query's values v takes: one per metric, one when
// its family computes it (own).
func (v value) width() int {
	if v.own {
		return 1
	}
	return len(v.metrics)
}

// rule is how a value prints per query and sums up in the summary.
type rule uint8

const (
	ruleMean   rule = iota // "%6.4f"; the summary is the mean
	ruleCount              // "%ld"; the summary is the sum
	ruleNumRel             // a count; under -c the summary counts every judgment above 0
	ruleNumQ               // the summary only: the number of queries
	ruleGeo                // the summary only: exp of the mean of logarithms
	ruleString             // per query only: relstring's characters
	ruleRunID              // the summary only: the run's tag
)

// table is metrics.TrecMeasures, each with its init, in trec_eval's
// order.
var table = func() []*measure {
	t := make([]*measure, len(metrics.TrecMeasures))
	for i := range metrics.TrecMeasures {
		tm := &metrics.TrecMeasures[i]
		t[i] = &measure{TrecMeasure: tm, init: initOf(tm)}
	}
	return t
}()

// nickname is the set name names under release, or nil.
func nickname(name, release string) []string { return metrics.TrecNickname(name, release) }

// lookup is the measure of the table named name under release, or nil.
func lookup(name, release string) *measure {
	for _, m := range table {
		if m.Name == name && (m.Since == "" || release != "9.0.8") {
			return m
		}
	}
	return nil
}

// selection is what -m asked for: the values in trec_eval's order.
type selection struct {
	values []value
	// metrics are the values' metrics in order: a query's record holds
	// one value per metric (slots)
	metrics []metrics.Metric
	marked  []*measure // the measures, for -h
}

// measureArg is one -m's parameters, kept under the name before its '.'.
type measureArg struct{ name, param string }

// selectMeasures resolves -m arguments as trec_eval's mark_measure and
// init functions do: each measure (or set) is marked; a measure's
// parameters come from the first -m that names it with some (later ones,
// and a bare -m of it, do not change them; parameters of a set are
// ignored); the measures come out in the table's order, whatever the
// order of -m. With no -m, official.
func selectMeasures(args []string, release string) (*selection, error) {
	if len(args) == 0 {
		args = []string{"official"}
	}
	marked := map[*measure]bool{}
	var params []measureArg
	for _, arg := range args {
		name, param, hasParam := strings.Cut(arg, ".")
		if hasParam {
			if param == "" {
				return nil, trecUsagef("trec_eval: improper measure in parameter '%s'", name)
			}
			params = append(params, measureArg{name, param})
		}
		if set := nickname(name, release); set != nil {
			for _, n := range set {
				marked[lookup(n, release)] = true
			}
			continue
		}
		m := lookup(name, release)
		if m == nil {
			if lookup(name, "10.0") != nil {
				return nil, trecUsagef("trec_eval: illegal measure '%s' (trec_eval %s has no %s; --release 10.0 has)", name, release, name)
			}
			return nil, trecUsagef("trec_eval: illegal measure '%s'", name)
		}
		marked[m] = true
	}
	if err := checkSharedGains(marked, params, release); err != nil {
		return nil, err
	}
	sel := &selection{}
	c := &initContext{release: release}
	for _, m := range table {
		if !marked[m] {
			continue
		}
		param := ""
		if i := slices.IndexFunc(params, func(a measureArg) bool { return a.name == m.Name }); i >= 0 {
			param = params[i].param
		}
		vals, err := m.init(c, param)
		if err != nil {
			return nil, UsageError{Err: err}
		}
		for _, v := range vals {
			for _, mt := range v.metrics {
				if err := metrics.CheckParam(mt); err != nil {
					return nil, UsageError{Err: err}
				}
			}
			sel.metrics = append(sel.metrics, v.metrics...)
		}
		sel.values = append(sel.values, vals...)
		sel.marked = append(sel.marked, m)
	}
	return sel, nil
}
