package pipeline

// Phase 2 of the unsorted mode (spill.go has phase 1): each spill file is
// read back, its records grouped by query and the queries emitted; a file
// too large for its share of --mem-limit is split again, or, when it holds
// a few large queries, read once per query.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// spillReader reads a spill file's records one at a time.
type spillReader struct {
	path string
	f    *os.File
	dec  *zstd.Decoder
	br   *bufio.Reader
	rec  []byte
}

func openSpill(path string) (*spillReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &spillReader{path: path, f: f, dec: dec, br: bufio.NewReaderSize(dec, 1<<16)}, nil
}

func (r *spillReader) close() { r.dec.Close(); r.f.Close() }

// next returns the next record, valid until the next call; io.EOF at the
// end.
func (r *spillReader) next() ([]byte, error) {
	n, err := binary.ReadUvarint(r.br)
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil || n > 1<<40 {
		return nil, r.damaged(err)
	}
	if uint64(cap(r.rec)) < n {
		r.rec = make([]byte, n)
	}
	r.rec = r.rec[:n]
	if _, err := io.ReadFull(r.br, r.rec); err != nil {
		return nil, r.damaged(err)
	}
	return r.rec, nil
}

// nextGroup is next with the record's query id.
func (r *spillReader) nextGroup() (rec, id []byte, err error) {
	if rec, err = r.next(); err != nil {
		return nil, nil, err
	}
	if id, err = recordID(rec); err != nil {
		return nil, nil, r.damaged(err)
	}
	return rec, id, nil
}

func (r *spillReader) damaged(err error) error {
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		err = fmt.Errorf("a record is cut short: %w", ErrEncoding)
	}
	return fmt.Errorf("reading spill file %s: %w", r.path, err)
}

// loadSpill reads a spill file of raw bytes whole and returns its records
// in order; they alias one buffer.
func loadSpill(path string, raw int64) ([][]byte, error) {
	r, err := openSpill(path)
	if err != nil {
		return nil, err
	}
	defer r.close()
	// raw is the file's exact decompressed size: read it into one buffer
	data := make([]byte, raw)
	if _, err := io.ReadFull(r.br, data); err != nil {
		return nil, r.damaged(err)
	}
	if _, err := r.br.ReadByte(); err != io.EOF {
		return nil, r.damaged(fmt.Errorf("longer than written: %w", ErrEncoding))
	}
	var recs [][]byte
	for rest := data; len(rest) > 0; {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return nil, r.damaged(nil)
		}
		recs = append(recs, rest[k:k+int(n)])
		rest = rest[k+int(n):]
	}
	return recs, nil
}

// loadCost is the memory a loaded spill file takes: its bytes, and per
// record its place in the record list (a slice header), its group number
// and its place in the grouping.
func loadCost(part *partition) int64 { return part.raw + 32*part.recs }

// evalPartition joins one spill file's records by query and emits the
// queries, or, when the file would not fit its share of the budget, splits
// it again or reads it once per query.
func (p *producer) evalPartition(ctx context.Context, part *partition, budget int64, depth int) error {
	if part.raw == 0 {
		return nil
	}
	if loadCost(part) > budget/2 {
		// A file that most of its spill went to, or one split as often as
		// allowed, is mostly one or a few large queries: joining them one
		// at a time holds only that query, and a query over its limit
		// fails as it grows, where loading the file would hold it whole.
		if part.skewed || depth >= maxSplitDepth {
			ids, err := streamIDs(part.path)
			if err != nil {
				return err
			}
			if ids != nil {
				return p.evalStreamed(ctx, part, ids)
			}
		}
		if depth < maxSplitDepth {
			return p.resplit(ctx, part, budget, depth)
		}
		// More than maxStreamed queries whose ids meet in one file at every
		// level: a log made to collide in the spill hash. Loading the file
		// would pass --mem-limit without bound.
		return fmt.Errorf("spill file %s holds %d bytes of more than %d queries after %d splits, more than --mem-limit allows: their query ids collide in the spill hash at every level (a log made so?); raise --mem-limit: %w",
			part.path, part.raw, maxStreamed, maxSplitDepth, ErrSpillCollide)
	}
	recs, err := loadSpill(part.path, part.raw)
	if err != nil {
		return err
	}
	os.Remove(part.path) // its rows are in memory; free the disk early
	gid, groups, err := groupIDs(recs)
	if err != nil {
		return fmt.Errorf("reading spill file %s: %w", part.path, err)
	}
	order := countingOrder(gid, groups)
	for k := range groups {
		if err := ctx.Err(); err != nil {
			return err
		}
		q, err := p.take(ctx)
		if err != nil {
			return err
		}
		for _, i := range order.rows(k) {
			if err := p.join(q, recs[i], part.path); err != nil {
				return err
			}
		}
		if err := p.sendJoined(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// join adds a spill record to q's group of its log, which is then
// present; on failure q goes back to the pool.
func (p *producer) join(q *query, rec []byte, path string) error {
	l, g, err := splitRecord(rec)
	if err == nil && l >= len(q.present) {
		err = fmt.Errorf("a record names log %d of %d: %w", l, len(q.present), ErrEncoding)
	}
	if err == nil {
		q.present[l] = true
		err = p.taker.Decode(q.log(l), g)
	}
	if err == nil {
		return nil
	}
	p.pool.put(q)
	if errors.Is(err, ErrEncoding) {
		err = fmt.Errorf("reading spill file %s: %w", path, err)
	}
	return err
}

// sendJoined hands on a query joined from the spill files: from one log as
// send does; from several, as the lockstep does: a query absent from a log
// is an error (AbsentError) unless --missing zero, and a query the
// baseline lacks is named after the first log that has it.
func (p *producer) sendJoined(ctx context.Context, q *query) error {
	if len(q.present) == 1 {
		return p.send(ctx, q)
	}
	first := slices.Index(q.present, true)
	if lacks := slices.Index(q.present, false); lacks >= 0 && !p.cfg.Analysis.MissingZero {
		g := q.log(first)
		err := p.cfg.Rules.AbsentError(p.where(g.First), g.ID, first, lacks)
		p.pool.put(q)
		return err
	}
	if first != 0 {
		q.ID = append(q.ID[:0], q.log(first).ID...)
		q.First = q.log(first).First
	}
	if err := p.slices.assign(q); err != nil {
		p.pool.put(q)
		return err
	}
	return p.emit(ctx, q)
}

// streamIDs lists the distinct query ids of a spill file in order of first
// appearance, or nil when it holds more than maxStreamed.
func streamIDs(path string) ([][]byte, error) {
	r, err := openSpill(path)
	if err != nil {
		return nil, err
	}
	defer r.close()
	var ids [][]byte
	for {
		_, id, err := r.nextGroup()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(ids, func(s []byte) bool { return bytes.Equal(s, id) }) {
			if len(ids) == maxStreamed {
				return nil, nil
			}
			ids = append(ids, bytes.Clone(id))
		}
	}
}

// evalStreamed emits the queries ids of a spill file, reading the file
// once for each and joining only its records: memory holds one query at a
// time, and the queries come in the order loading the file would give.
func (p *producer) evalStreamed(ctx context.Context, part *partition, ids [][]byte) error {
	for _, id := range ids {
		q, err := p.take(ctx)
		if err != nil {
			return err
		}
		if err := p.joinStreamed(ctx, q, part.path, id); err != nil {
			return err
		}
		if err := p.sendJoined(ctx, q); err != nil {
			return err
		}
	}
	os.Remove(part.path)
	return nil
}

// joinStreamed joins the records of query id in a spill file into q; on
// failure q goes back to the pool.
func (p *producer) joinStreamed(ctx context.Context, q *query, path string, id []byte) error {
	r, err := openSpill(path)
	if err != nil {
		p.pool.put(q)
		return err
	}
	defer r.close()
	for {
		rec, rid, err := r.nextGroup()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			p.pool.put(q)
			return err
		}
		if bytes.Equal(rid, id) {
			if err := p.join(q, rec, path); err != nil {
				return err
			}
		}
	}
}

// resplit distributes a spill file over new files, one record at a time,
// by another hash of the query id.
func (p *producer) resplit(ctx context.Context, part *partition, budget int64, depth int) error {
	n := int(min(max(4*loadCost(part)/budget+1, 2), 256))
	sub := filepath.Join(filepath.Dir(part.path), fmt.Sprintf("%s.%d", filepath.Base(part.path), depth))
	if err := os.Mkdir(sub, 0o700); err != nil {
		return err
	}
	sp, err := newSpiller(sub, n, depth+1)
	if err != nil {
		return err
	}
	r, err := openSpill(part.path)
	if err != nil {
		sp.finish()
		return err
	}
	for {
		rec, id, err := r.nextGroup()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = sp.add(rec, id)
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			r.close()
			sp.finish()
			return err
		}
	}
	r.close()
	os.Remove(part.path)
	if err := sp.finish(); err != nil {
		return err
	}
	for i := range sp.parts {
		if err := p.evalPartition(ctx, &sp.parts[i], budget, depth+1); err != nil {
			return err
		}
	}
	return os.Remove(sub)
}

// groupIDs numbers the distinct query ids of recs (encoded groups) in
// order of first appearance.
func groupIDs(recs [][]byte) (gid []int32, groups int, err error) {
	n := len(recs)
	size := 16
	for size < 2*n {
		size <<= 1
	}
	seed := maphash.MakeSeed()
	slots := make([]int32, size) // first index + 1; 0 = empty
	mask := uint64(size - 1)
	gid = make([]int32, n)
	for i, rec := range recs {
		id, err := recordID(rec)
		if err != nil {
			return nil, 0, err
		}
		for h := maphash.Bytes(seed, id) & mask; ; h = (h + 1) & mask {
			s := slots[h]
			if s == 0 {
				slots[h] = int32(i + 1)
				gid[i] = int32(groups)
				groups++
				break
			}
			if other, _ := recordID(recs[s-1]); bytes.Equal(other, id) {
				gid[i] = gid[s-1]
				break
			}
		}
	}
	return gid, groups, nil
}

// grouped lists indices group by group, each group in input order.
type grouped struct {
	start []int32
	idx   []int32
}

func (g grouped) rows(k int) []int32 { return g.idx[g.start[k]:g.start[k+1]] }

func countingOrder(gid []int32, groups int) grouped {
	g := grouped{start: make([]int32, groups+1), idx: make([]int32, len(gid))}
	for _, k := range gid {
		g.start[k+1]++
	}
	for k := 0; k < groups; k++ {
		g.start[k+1] += g.start[k]
	}
	next := append([]int32(nil), g.start[:groups]...)
	for i, k := range gid {
		g.idx[next[k]] = int32(i)
		next[k]++
	}
	return g
}
