package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/rankeval/rankeval/metrics"
	"github.com/rankeval/rankeval/summary"
)

// TestTrecFormatNameClash: --format trec names a metric as trec_eval
// does, so two metrics that trec_eval names alike (P@5 under the run's
// conventions, P(rel=2)@5 under trec_eval -l 2: both P_5) would print two
// P_5 lines of different values; it is a usage error naming both.
func TestTrecFormatNameClash(t *testing.T) {
	for _, c := range []struct {
		list  string
		clash bool
	}{
		{"P(rel=2)@5,P@5", true},
		{"nDCG@10,ndcg@10", true},
		{"AP,map", true},
		{"P@5,nDCG@10,ndcg@5", false},
		{"SetF,SetF(beta=0.5)", false},
	} {
		t.Run(c.list, func(t *testing.T) {
			ms, err := metrics.ParseList(c.list)
			if err != nil {
				t.Fatal(err)
			}
			err = CheckTrecFormat("trec", &summary.Run{Metrics: ms})
			var se *SettingError
			switch {
			case c.clash && (err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), ms[0].Name) || !strings.Contains(err.Error(), ms[1].Name)):
				t.Errorf("err = %v, want a usage error naming %s and %s", err, ms[0].Name, ms[1].Name)
			case !c.clash && err != nil:
				t.Errorf("err = %v", err)
			}
			if err := CheckTrecFormat("json", &summary.Run{Metrics: ms}); err != nil {
				t.Errorf("json: %v", err)
			}
		})
	}
}
