package trec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/rankeval/rankeval/internal/binread"
)

// ErrEncoding is wrapped when a query's encoded judgments (AppendQuery)
// cannot be decoded: a bug or a damaged shuffle, never bad input.
var ErrEncoding = errors.New("malformed encoded judgments")

// A distributed run (dist/beam) does not hold every judgment on every
// worker: the qrels are loaded once, as ReadQrels loads them (its checks
// and messages), and each query's judgments travel to where its run rows
// are evaluated, in the form AppendQuery writes and SetQuery reads back.

// QueryID returns the id of judged query qn (0 <= qn < Queries()), in
// qrels order.
func (q *Qrels) QueryID(qn int) string { return q.order[qn] }

// AppendQuery appends the judgments of query qn (0 <= qn < Queries()),
// in qrels order, to b.
func (q *Qrels) AppendQuery(b []byte, qn int) []byte {
	id := q.order[qn]
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	lo, hi := q.start[qn], q.start[qn+1]
	b = binary.AppendUvarint(b, uint64(hi-lo))
	for k := lo; k < hi; k++ {
		d := q.doc(k)
		b = binary.AppendUvarint(b, uint64(len(d)))
		b = append(b, d...)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(q.labels[k]))
	}
	return b
}

// SetQuery makes q hold the judgments of one query alone, encoded by
// AppendQuery, reusing q's buffers; a nil data makes q judge nothing.
// Judged and Join then answer as the whole qrels would for that query.
func (q *Qrels) SetQuery(data []byte) error {
	if q.index == nil {
		q.index = map[string]int32{}
	}
	clear(q.index)
	q.order, q.start, q.docs, q.off, q.labels = q.order[:0], q.start[:0], q.docs[:0], q.off[:0], q.labels[:0]
	q.seen = nil
	if data == nil {
		return nil
	}
	d := binread.New(data, ErrEncoding)
	id := string(d.Bytes())
	n := d.Uvarint()
	if d.Err() != nil {
		return d.Err()
	}
	if n > uint64(len(d.Rest())) { // every judgment takes more than a byte
		return fmt.Errorf("%d judgments in %d bytes: %w", n, len(d.Rest()), ErrEncoding)
	}
	q.off = append(q.off, 0)
	for range n {
		q.docs = append(q.docs, d.Bytes()...)
		q.off = append(q.off, int64(len(q.docs)))
		q.labels = append(q.labels, d.Float64())
	}
	if d.Err() != nil {
		return d.Err()
	}
	if len(d.Rest()) != 0 {
		return fmt.Errorf("%d bytes after the judgments: %w", len(d.Rest()), ErrEncoding)
	}
	q.index[id] = 0
	q.order = append(q.order, id)
	q.start = append(q.start, 0, len(q.labels))
	q.seen = make([]atomic.Bool, 1)
	return nil
}
