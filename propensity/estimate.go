package propensity

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/rankeval/rankeval/stats"
)

// Method is an estimator of the propensities.
type Method string

// The estimators.
const (
	// Harvest is all-pairs intervention harvesting (Agarwal et al., WSDM
	// 2019): the documents of a query shown at two positions k and k'
	// form the intervention set of (k, k'); each contributes its click
	// rate at k and at k' (the paper's weighting, w(q,d,k) = Σ_i n_i(q)
	// 1[d at k under ranker i], the impressions of d at k), and the
	// propensities and each set's relevance maximize the paper's
	// likelihood over every pair.
	Harvest Method = "harvest"
	// EM is the position-based model fitted by EM to the count table
	// (Wang et al., WSDM 2018, without the regression): a propensity per
	// position, an attractiveness per query and document.
	EM Method = "em"
)

// ErrMethod is wrapped by the error of an unknown method.
var ErrMethod = errors.New("unknown propensity method")

// ParseMethod reads a method's name.
func ParseMethod(s string) (Method, error) {
	switch m := Method(s); m {
	case Harvest, EM:
		return m, nil
	}
	return "", fmt.Errorf("%q: want harvest or em: %w", s, ErrMethod)
}

// DefaultReplicates and DefaultMinClicks are --replicates and
// --min-clicks when not given.
const (
	DefaultReplicates = 200
	DefaultMinClicks  = 20
)

// Options say how to estimate.
type Options struct {
	Method Method
	// Replicates is the Poisson-bootstrap resamples of the queries (at
	// least stats.MinBootstrap).
	Replicates int
	// MinClicks is the least clicks at a position, on documents shown
	// there and at another position, for an estimate there.
	MinClicks int64
	// Workers fit the replicates (0: one per CPU); the result does not
	// depend on it.
	Workers int
}

// Position is the estimate at one position.
type Position struct {
	Position int
	// Propensity is relative to position 1; Lower and Upper bound its 95%
	// percentile interval. All are NaN when Refused.
	Propensity, Lower, Upper float64
	// Impressions counts the rows at this position; Pairs the (query,
	// document) pairs shown here and at another position, Clicks their
	// clicks here: the evidence of the estimate.
	Impressions, Pairs, Clicks int64
	// Refused says why the position has no estimate ("" when it has).
	Refused string
}

// Estimate is the propensity of every position 1 to the table's
// MaxPosition.
type Estimate struct {
	Method     Method
	Replicates int
	Positions  []Position
	Totals     Totals
}

// Estimate fits the propensities of t.
func (t *Table) Estimate(opt Options) (*Estimate, error) {
	if opt.Replicates < stats.MinBootstrap {
		return nil, fmt.Errorf("%d replicates: want at least %d: %w", opt.Replicates, stats.MinBootstrap, stats.ErrFewReplicates)
	}
	if opt.Method != Harvest && opt.Method != EM {
		return nil, fmt.Errorf("%q: want harvest or em: %w", opt.Method, ErrMethod)
	}
	o, totals, err := newOverlap(t)
	if err != nil {
		return nil, err
	}
	m, B := o.m, opt.Replicates
	w := o.weights(B)
	// resample B is the log itself (every weight 1), fitted first so
	// that the resamples start from its fit
	fits := make([][]float64, B+1)
	var full fitter
	if opt.Method == Harvest {
		full = newHarvestFit(m)
	} else {
		full = newEMFit(o)
	}
	fits[B] = full.fit(o, func(int) int64 { return 1 }, nil)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, B) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := full.clone()
			for b := range next {
				fits[b] = f.fit(o, func(j int) int64 { return int64(w[j*B+b]) }, full)
			}
		}()
	}
	for b := range B {
		next <- b
	}
	close(next)
	wg.Wait()
	e := &Estimate{Method: opt.Method, Replicates: B, Positions: o.evidence, Totals: totals}
	reps := make([]float64, 0, B)
	for k := range m {
		p := &e.Positions[k]
		p.Propensity, p.Lower, p.Upper = math.NaN(), math.NaN(), math.NaN()
		est := fits[B][k]
		reps = reps[:0]
		undefined := 0
		for b := range B {
			if r := fits[b][k]; math.IsNaN(r) {
				undefined++
			} else {
				reps = append(reps, r)
			}
		}
		switch {
		case p.Impressions == 0:
			p.Refused = "no row at this position"
		case p.Pairs == 0:
			p.Refused = "no document of a query shown here was shown at another position"
		case math.IsNaN(est):
			p.Refused = "no chain of documents clicked here and at another position leads to position 1"
		case p.Clicks < opt.MinClicks:
			p.Refused = fmt.Sprintf("%d clicks on documents also shown elsewhere, fewer than --min-clicks %d", p.Clicks, opt.MinClicks)
		case k == 0: // the reference: 1 wherever another position is estimated
			p.Propensity, p.Lower, p.Upper = 1, 1, 1
		case undefined > 0:
			p.Refused = fmt.Sprintf("%d of %d resamples of the queries leave it without overlapping clicks", undefined, B)
		case est > 1:
			p.Refused = fmt.Sprintf("estimated at %.4g, above position 1's, which a propensity relative to position 1 cannot be", est)
		case !(est > 0):
			p.Refused = "estimated at 0"
		default:
			p.Propensity = est
			p.Lower, p.Upper = stats.PercentileCI95(reps)
		}
	}
	return e, nil
}
