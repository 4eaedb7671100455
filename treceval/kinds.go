package treceval

import (
	"math"
	"strconv"

	"github.com/rankeval/rankeval/metrics"
)

// The shapes of trec_eval's measures (metrics.TrecShape), by the
// init_meas function that reads their parameters (meas_init.c): one value
// and no parameters; a value per whole cutoff; a value per real cutoff;
// one value under a list of reals; one value under name=real pairs; and
// relstring, runid, num_q and the prefs measures. initOf builds a
// measure's init from its shape.

// initFunc is measure.init.
type initFunc func(c *initContext, param string) ([]value, error)

// initOf is the init of the measure t of metrics.TrecMeasures.
func initOf(t *metrics.TrecMeasure) initFunc {
	switch t.Shape {
	case metrics.TrecSingle:
		return single(t.Name, t.Kind, ruleOf(t.Kind))
	case metrics.TrecCutoffs:
		return wholeCutoffs(t.Name, t.Kind, t.Cutoffs...)
	case metrics.TrecLevels:
		return realCutoffs(t.Name, t.Kind, t.Reals...)
	case metrics.TrecReals:
		return reals(t.Name, t.Kind, t.Reals)
	case metrics.TrecGains:
		var plain *metrics.Metric
		if t.Plain != metrics.NoKind {
			plain = &metrics.Metric{Kind: t.Plain}
		}
		return gainPairs(t.Name, t.Kind, plain)
	case metrics.TrecRelstring:
		return relstringInit(t.Name, t.Cutoffs[0])
	case metrics.TrecRunID:
		return summaryOnly(t.Name, ruleRunID)
	case metrics.TrecNumQ:
		return summaryOnly(t.Name, ruleNumQ)
	case metrics.TrecPrefs:
		r := ruleMean
		if t.Count {
			r = ruleCount
		}
		return prefsInit(t.Name, r)
	}
	panic("treceval: measure " + t.Name + " of no shape")
}

// ruleOf is how a value of family k prints and sums up: a count (the
// family's summary a total) as "%ld", num_rel's under -c apart, a
// geometric mean's in the summary only, the others as a mean.
func ruleOf(k metrics.Kind) rule {
	m := metrics.Metric{Kind: k}
	switch {
	case k == metrics.KindNumRel:
		return ruleNumRel
	case m.Count():
		return ruleCount
	case m.Geometric():
		return ruleGeo
	}
	return ruleMean
}

// summaryOnly is a measure of one value that no metric computes (runid,
// num_q): parameters given are ignored.
func summaryOnly(name string, r rule) initFunc {
	return func(*initContext, string) ([]value, error) { return []value{{name: name, rule: r}}, nil }
}

// metricOf is one metric of kind k, named as trec_eval names its value.
func metricOf(name string, k metrics.Kind) metrics.Metric {
	return metrics.Metric{Name: name, Kind: k}
}

// one is a single value computed by one metric.
func one(name string, r rule, m metrics.Metric) []value {
	return []value{{name: name, rule: r, metrics: []metrics.Metric{m}}}
}

// single is a measure of one value and no parameters (te_init_meas_s_double,
// te_init_meas_s_long): parameters given are ignored, as trec_eval ignores
// them.
func single(name string, k metrics.Kind, r rule) initFunc {
	return func(*initContext, string) ([]value, error) {
		return one(name, r, metricOf(name, k)), nil
	}
}

// wholeCutoffs is a measure of one value per cutoff k, named name_k
// (te_init_meas_a_double_cut_long): def unless -m gives others.
func wholeCutoffs(name string, k metrics.Kind, def ...int64) initFunc {
	return func(_ *initContext, param string) ([]value, error) {
		cuts := def
		if param != "" {
			var err error
			if cuts, err = longCutoffs(param); err != nil {
				return nil, err
			}
		}
		var vals []value
		for _, c := range cuts {
			n := cutName(name, c)
			m := metricOf(n, k)
			m.K = int(c)
			vals = append(vals, one(n, ruleMean, m)...)
		}
		return vals, nil
	}
}

// realCutoffs is a measure of one value per real cutoff x, named
// name_x with x as "%3.2f" (te_init_meas_a_double_cut_double), its metric
// the Level x.
func realCutoffs(name string, k metrics.Kind, def ...float64) initFunc {
	return func(_ *initContext, param string) ([]value, error) {
		cuts := def
		if param != "" {
			var err error
			if cuts, err = doubleCutoffs(param); err != nil {
				return nil, err
			}
			if err := walkableCutoffs(name, cuts); err != nil {
				return nil, err
			}
		}
		var vals []value
		for _, x := range cuts {
			n := levelName(name, x)
			m := metricOf(n, k)
			m.Level = x
			vals = append(vals, one(n, ruleMean, m)...)
		}
		return vals, nil
	}
}

// maxRealCutoff bounds a real cutoff x of several: x·R stays within a
// long for any R below 2^31.
const maxRealCutoff = 1 << 32

// walkableCutoffs refuses, among several real cutoffs, one that is NaN or
// so large that x·R leaves a long's range: trec_eval computes all of a
// measure's cutoffs in one walk down the ranking, which never meets such a
// cut, and the values it prints for the cutoffs before it are then those
// of another cutoff. One such cutoff alone is evaluated as trec_eval does.
func walkableCutoffs(name string, cuts []float64) error {
	if len(cuts) < 2 {
		return nil
	}
	for _, x := range cuts {
		if !(math.Abs(x) < maxRealCutoff) {
			return paramError("%s: cutoff %g among others: trec_eval's values for the other cutoffs then depend on the order of its walk; give it alone", name, x)
		}
	}
	return nil
}

// named is a measure's value name under parameters: name_PARAM as typed
// (te_init_meas_s_double_p_double and _p_pair), name without.
func named(name, param string) string {
	if param == "" {
		return name
	}
	return paramName(name, param)
}

// reals is a measure of one value under a list of reals
// (te_init_meas_s_double_p_double), def when -m gives none: set_F's β
// (Metric.Beta), or the Param of the others (utility's coefficients,
// 11pt_avg's levels; none, the family's own, when def is nil).
func reals(name string, k metrics.Kind, def []float64) initFunc {
	return func(_ *initContext, param string) ([]value, error) {
		xs := def
		if param != "" {
			xs = doubleParams(param)
		}
		n := named(name, param)
		m := metricOf(n, k)
		switch {
		case k == metrics.KindSetF:
			m.Beta = xs[0]
		case xs != nil:
			m.Param = metrics.FloatsParam(xs)
		}
		return one(n, ruleMean, m), nil
	}
}

// gainPairs is a measure of one value under name=real pairs
// (te_init_meas_s_double_p_pair): its metric gets the gain table of the
// pairs whose name is a level, and p its persistence (rbp's "p" pair,
// 0.9 when none). Without parameters, plain is its metric when not nil
// (the ordinary ndcg and dcg, which the same gains give).
func gainPairs(name string, k metrics.Kind, plain *metrics.Metric) initFunc {
	return func(c *initContext, param string) ([]value, error) {
		if param == "" && plain != nil {
			m := *plain
			m.Name = name
			return one(name, ruleMean, m), nil
		}
		m := metricOf(named(name, param), k)
		m.Beta = 0.9
		if param != "" {
			pairs, err := paramPairs(param)
			if err != nil {
				return nil, err
			}
			m.Param = metrics.GainParam(gainTable(pairs, c.release))
			for _, p := range pairs {
				if p.name == "p" {
					m.Beta = p.value
				}
			}
		}
		return one(m.Name, ruleMean, m), nil
	}
}

// gainTable is the gains of pairs: 10.0 takes the pairs whose name is a
// whole number (gain_init.c's valid_int), 9.0.8 every pair, its level the
// name's atol ("p" is level 0).
func gainTable(pairs []pair, release string) []metrics.GainPair {
	var g []metrics.GainPair
	for _, p := range pairs {
		if release != "9.0.8" && !validInt(p.name) {
			continue
		}
		g = append(g, metrics.GainPair{Level: cAtol(p.name), Gain: p.value})
	}
	return g
}

// validInt is gain_init.c's valid_int: a sign, then digits only.
func validInt(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil || isDigits(s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
