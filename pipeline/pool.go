package pipeline

import (
	"context"
	"math"

	"golang.org/x/sync/semaphore"

	"github.com/rankeval/rankeval/aggregate"
)

// query is one group of rows on its way through the pool, with the same
// query's groups from the other logs when systems are read in lockstep.
// Queries are recycled through a queryPool, so their buffers grow to the
// largest small group they have held and are then reused.
type query struct {
	seq    int64
	weight int64 // the bytes it holds of the pool's room for large queries
	Group
	alt      []Group  // logs 2.. in lockstep
	present  []bool   // per log: the query is in it
	logs     []*Group // groups' result
	slice    int
	sliceKey []string // the values of slice, for per-query lines
	res      aggregate.Query
	line     []byte // the per-query record, when asked for
}

// queryPool recycles queries and bounds their memory by the bytes they
// hold (query.bytes). Small queries (up to small bytes) travel in a pool
// of smallPool, so that the producer and the workers do not stop and wake
// each other every few queries, as they do with only 2×workers+2 (figures
// in docs/performance.md, "Measured choices"). A larger query also takes its bytes, and at least a
// (2×workers+2)th, of the room for large queries until it is put back, and
// comes back without its buffers. So memory stays within the room plus
// smallPool small queries (and their buffers' growth, at most as much
// again): sorted, the room is (2×workers+2) × --max-group-bytes, today's
// bound of that many of the largest queries; under --unsorted it is a
// share of --mem-limit (budgetShares).
type queryPool struct {
	free  chan *query
	big   *semaphore.Weighted
	room  int64 // big's size
	least int64 // the least a large query takes of it
	small int64
}

const (
	smallPool = 64
	// smallBytes is the most a small query holds on the sorted path: about
	// 4,000 rows of the common columns, a short doc id each.
	smallBytes = 512 << 10
)

func newQueryPool(cfg *Config, logs, workers int) *queryPool {
	n := max(2*workers+2, smallPool)
	tokens := int64(2*workers + 2)
	qp := &queryPool{free: make(chan *query, n), small: smallBytes}
	if cfg.Unsorted.On {
		sh := cfg.Unsorted.shares()
		qp.room, qp.small = sh.inFlight, min(smallBytes, sh.smallPool/(2*smallPool))
	} else {
		most, _ := cfg.Rules.maxGroupBytes()
		qp.room = math.MaxInt64
		if most < math.MaxInt64/tokens {
			qp.room = most * tokens
		}
	}
	qp.least = qp.room / tokens
	qp.big = semaphore.NewWeighted(qp.room)
	for range n {
		qp.free <- newQuery(cfg, logs)
	}
	return qp
}

func (qp *queryPool) size() int { return cap(qp.free) }

// acquire holds q's share of the room for large queries when it is one
// (more than small bytes), until put gives it back.
func (qp *queryPool) acquire(ctx context.Context, q *query) error {
	b := q.bytes()
	if b <= qp.small {
		return nil
	}
	w := min(qp.room, max(qp.least, b))
	if err := qp.big.Acquire(ctx, w); err != nil {
		return err
	}
	q.weight = w
	return nil
}

// put returns q; the pool has room for every query. A large query's
// buffers are dropped, so that idle queries stay small whatever they held.
func (qp *queryPool) put(q *query) {
	if q.weight > 0 {
		qp.big.Release(q.weight)
		q.weight = 0
		for l := range q.present {
			*q.log(l) = Group{}
		}
	}
	if int64(cap(q.line)) > 2*qp.small {
		q.line = nil
	}
	qp.free <- q
}

// bytes is what q's groups hold (Group.Bytes), in every log.
func (q *query) bytes() int64 {
	b := q.Bytes()
	for l := range q.alt {
		b += q.alt[l].Bytes()
	}
	return b
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
	cfg.Rules.ClickWeights(&q.res)
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
