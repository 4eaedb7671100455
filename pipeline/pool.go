package pipeline

import "github.com/rankeval/rankeval/aggregate"

// query is one group of rows on its way through the pool, with the same
// query's groups from the other logs when systems are read in lockstep.
// Queries are recycled through a queryPool, so their buffers grow to the
// largest group they have held and are then reused.
type query struct {
	seq int64
	big bool // holds one of the pool's tokens for large queries
	Group
	alt      []Group  // logs 2.. in lockstep
	present  []bool   // per log: the query is in it
	logs     []*Group // groups' result
	slice    int
	sliceKey []string // the values of slice, for per-query lines
	res      aggregate.Query
	line     []byte // the per-query record, when asked for
}

// queryPool recycles queries and bounds their memory. Small queries (up to
// smallRows rows in each log) travel in a pool of smallPool: with only
// 2×workers+2 the producer and the workers stopped and woke each other
// every few queries, and a pool of 64 made a 10M-row Parquet run of
// 100-row queries 13% faster (1.24 s against 1.08 s, mean of 8). A larger
// query also takes one of 2×workers+2 tokens until it is put back, and a
// query put back drops buffers grown past 2×smallRows rows, so memory stays
// (2×workers+2) × the largest query, plus smallPool small ones.
type queryPool struct {
	free chan *query
	big  chan struct{}
}

const (
	smallPool = 64
	smallRows = 4096
)

func newQueryPool(cfg *Config, logs, workers int) *queryPool {
	n := max(2*workers+2, smallPool)
	qp := &queryPool{free: make(chan *query, n), big: make(chan struct{}, 2*workers+2)}
	for range n {
		qp.free <- newQuery(cfg, logs)
	}
	return qp
}

func (qp *queryPool) size() int { return cap(qp.free) }

// put returns q; the pool has room for every query.
func (qp *queryPool) put(q *query) {
	if q.big {
		q.big = false
		<-qp.big
	}
	q.trim()
	qp.free <- q
}

// large reports whether q needs a token: more than smallRows rows in a log.
func (q *query) large() bool {
	if q.N() > smallRows {
		return true
	}
	for l := range q.alt {
		if q.alt[l].N() > smallRows {
			return true
		}
	}
	return false
}

// trim drops buffers grown past what a small query needs (twice smallRows
// rows: appends overshoot), so that idle queries stay small whatever they
// held.
func (q *query) trim() {
	const most = 2 * smallRows
	for l := range q.present {
		if g := q.log(l); cap(g.Label) > most || cap(g.Doc.Buf) > 64*most {
			*g = Group{}
		}
	}
	if cap(q.line) > 64*most {
		q.line = nil
	}
}

// log returns the query's group from log l.
func (q *query) log(l int) *Group {
	if l == 0 {
		return &q.Group
	}
	return &q.alt[l-1]
}

// groups returns the query's group in each log, nil where it is absent,
// as EvalSystems and SliceSource take them.
func (q *query) groups() []*Group {
	q.logs = q.logs[:0]
	for l, ok := range q.present {
		g := q.log(l)
		if !ok {
			g = nil
		}
		q.logs = append(q.logs, g)
	}
	return q.logs
}

func newQuery(cfg *Config, logs int) *query {
	S := cfg.systems()
	q := &query{alt: make([]Group, logs-1), present: make([]bool, logs), slice: -1}
	q.res = aggregate.Query{Slice: -1, Rows: make([]int, S), Vals: make([][]float64, S),
		Empty: make([]bool, S), Missing: make([]bool, S)}
	for s := range q.res.Vals {
		q.res.Vals[s] = make([]float64, len(cfg.Rules.Metrics))
	}
	return q
}

// reset readies q for another query.
func (q *query) reset() {
	q.Group.Reset()
	for l := range q.alt {
		q.alt[l].Reset()
	}
	clear(q.present)
	q.slice, q.sliceKey = -1, nil
}
