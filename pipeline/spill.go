package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"

	"github.com/rankeval/rankeval/reader"
)

// The unsorted mode reads logs whose query ids are not contiguous. Phase 1
// validates every row and appends it to one of a fixed number of spill
// files chosen by a hash of its query id, so all rows of a query land in
// one file, in input order. Phase 2 loads one file at a time, groups its
// rows by query and feeds the usual worker pool. Memory is the budget
// whatever the input size: a spill file too large to load is split again
// with another hash seed. The summary is bit-identical to the sorted log's
// because sums are exact; per-query records come out in spill order.

// spillBlock is the uncompressed size at which a partition's buffer is
// compressed and appended to its file as one zstd frame.
const spillBlock = 64 << 10

// maxSplitDepth bounds re-splitting; past it a partition is loaded however
// large (only one query larger than the budget gets there, and
// --max-group-rows catches that).
const maxSplitDepth = 4

// DefaultMemLimit is the budget of the unsorted mode when none is set.
const DefaultMemLimit = 512 << 20

type partition struct {
	path string
	f    *os.File
	buf  []byte
	raw  int64 // uncompressed bytes written
}

type spiller struct {
	dir   string
	parts []partition
	enc   *zstd.Encoder
	seed  maphash.Seed
	frame []byte
}

// partitionsFor chooses how many spill files to write: enough that each
// holds at most a quarter of the budget for inputs up to 64 times the
// budget, beyond which files are split again when loaded.
func partitionsFor(memLimit int64) int {
	return int(min(max(memLimit>>20, 16), 256))
}

func newSpiller(dir string, n int) (*spiller, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		return nil, err
	}
	s := &spiller{dir: dir, parts: make([]partition, n), enc: enc, seed: maphash.MakeSeed()}
	for i := range s.parts {
		s.parts[i].path = filepath.Join(dir, fmt.Sprintf("part-%04d.zst", i))
	}
	return s, nil
}

func (s *spiller) add(rec []byte, qid []byte) error {
	p := &s.parts[maphash.Bytes(s.seed, qid)%uint64(len(s.parts))]
	p.buf = append(p.buf, rec...)
	if len(p.buf) >= spillBlock {
		return s.flush(p)
	}
	return nil
}

func (s *spiller) flush(p *partition) error {
	if len(p.buf) == 0 {
		return nil
	}
	if p.f == nil {
		f, err := os.Create(p.path)
		if err != nil {
			return fmt.Errorf("spill file: %w", err)
		}
		p.f = f
	}
	s.frame = s.enc.EncodeAll(p.buf, s.frame[:0])
	if _, err := p.f.Write(s.frame); err != nil {
		return fmt.Errorf("writing spill file %s: %w", p.path, err)
	}
	p.raw += int64(len(p.buf))
	p.buf = p.buf[:0]
	return nil
}

// finish flushes every buffer and closes the files.
func (s *spiller) finish() error {
	var first error
	for i := range s.parts {
		p := &s.parts[i]
		if err := s.flush(p); err != nil && first == nil {
			first = err
		}
		p.buf = nil
		if p.f != nil {
			if err := p.f.Close(); err != nil && first == nil {
				first = err
			}
			p.f = nil
		}
	}
	s.enc.Close()
	return first
}

// A spilled row: uvarint query length, query, uvarint doc length, doc,
// score and label as IEEE bits, varint rank, uvarint packed position.
func appendRecord(b []byte, qid, doc []byte, score, label float64, rank int64, pos uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(qid)))
	b = append(b, qid...)
	b = binary.AppendUvarint(b, uint64(len(doc)))
	b = append(b, doc...)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(score))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(label))
	b = binary.AppendVarint(b, rank)
	return binary.AppendUvarint(b, pos)
}

var errBadSpill = errors.New("corrupt spill file")

type record struct {
	qid, doc     []byte
	score, label float64
	rank         int64
	pos          uint64
}

// recordReader decodes the records of one spill file.
type recordReader struct {
	br  *bufio.Reader
	dec *zstd.Decoder
	f   *os.File
	buf []byte
}

func openRecords(path string) (*recordReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &recordReader{br: bufio.NewReaderSize(dec, 1<<16), dec: dec, f: f}, nil
}

func (r *recordReader) close() { r.dec.Close(); r.f.Close() }

func (r *recordReader) bytesField() ([]byte, error) {
	n, err := binary.ReadUvarint(r.br)
	if err != nil {
		return nil, err
	}
	if n > 1<<30 {
		return nil, errBadSpill
	}
	start := len(r.buf)
	r.buf = append(r.buf, make([]byte, n)...)
	_, err = io.ReadFull(r.br, r.buf[start:])
	return r.buf[start:], err
}

// next decodes one record; its byte fields stay valid until reset.
func (r *recordReader) next(rec *record) error {
	var err error
	if rec.qid, err = r.bytesField(); err != nil {
		return err // io.EOF at a record boundary is the clean end
	}
	if rec.doc, err = r.bytesField(); err != nil {
		return noEOF(err)
	}
	var w [16]byte
	if _, err = io.ReadFull(r.br, w[:]); err != nil {
		return noEOF(err)
	}
	rec.score = math.Float64frombits(binary.LittleEndian.Uint64(w[:8]))
	rec.label = math.Float64frombits(binary.LittleEndian.Uint64(w[8:]))
	if rec.rank, err = binary.ReadVarint(r.br); err != nil {
		return noEOF(err)
	}
	rec.pos, err = binary.ReadUvarint(r.br)
	return noEOF(err)
}

func noEOF(err error) error {
	if err == io.EOF {
		return fmt.Errorf("%w: ends inside a record", errBadSpill)
	}
	return err
}

// runUnsorted is the producer of the unsorted mode.
func (p *producer) runUnsorted(ctx context.Context, inputs []Source) error {
	dir, err := os.MkdirTemp(p.cfg.TmpDir, "rankeval-spill-")
	if err != nil {
		return fmt.Errorf("spill directory: %w", err)
	}
	if p.cfg.OnSpillDir != nil {
		p.cfg.OnSpillDir(dir, true)
	}
	defer func() {
		os.RemoveAll(dir)
		if p.cfg.OnSpillDir != nil {
			p.cfg.OnSpillDir(dir, false)
		}
	}()
	budget := p.cfg.MemLimit
	if budget <= 0 {
		budget = DefaultMemLimit
	}
	sp, err := newSpiller(dir, partitionsFor(budget))
	if err != nil {
		return err
	}
	if err := p.spillInputs(ctx, sp, inputs); err != nil {
		sp.finish()
		return err
	}
	if err := sp.finish(); err != nil {
		return err
	}
	for i := range sp.parts {
		if err := p.evalPartition(ctx, sp.parts[i].path, sp.parts[i].raw, budget, 0); err != nil {
			return err
		}
	}
	return nil
}

func (p *producer) spillInputs(ctx context.Context, sp *spiller, inputs []Source) error {
	var rec []byte
	for si, in := range inputs {
		// newProducer gave every input its entry in p.srcs
		r, err := in.Open()
		if err != nil {
			return err
		}
		first := true
		for r.Next() {
			if err := ctx.Err(); err != nil {
				r.Close()
				return err
			}
			b := r.Batch()
			if first {
				p.srcs[si] = reader.Batch{Source: b.Source, Locate: b.Locate}
				first = false
			}
			if err := p.validate(b, 0, b.N); err != nil {
				r.Close()
				return err
			}
			for i := 0; i < b.N; i++ {
				var doc []byte
				if len(b.Doc.Off) > 1 {
					doc = b.Doc.At(i)
				}
				score, rank := math.NaN(), int64(0)
				if len(b.Score) > 0 {
					score = b.Score[i]
				}
				if b.Rank != nil {
					rank = b.Rank[i]
				}
				qid := b.Query.At(i)
				rec = appendRecord(rec[:0], qid, doc, score, b.Label[i], rank, pack(si, b.Pos[i]))
				if err := sp.add(rec, qid); err != nil {
					r.Close()
					return err
				}
			}
		}
		err = r.Err()
		cerr := r.Close()
		if err != nil {
			return err
		}
		if cerr != nil {
			return fmt.Errorf("%s: %w", in.Name, cerr)
		}
	}
	return nil
}

// evalPartition groups one spill file's rows by query and emits them, or
// splits the file again when it would not fit the budget.
func (p *producer) evalPartition(ctx context.Context, path string, raw, budget int64, depth int) error {
	if raw == 0 {
		return nil
	}
	// Loaded rows cost about twice their spilled size (arrays, offsets,
	// grouping); half the budget goes to them, the rest to the queries in
	// flight and the runtime.
	if 2*raw > budget/2 && depth < maxSplitDepth {
		return p.resplit(ctx, path, raw, budget, depth)
	}
	rr, err := openRecords(path)
	if err != nil {
		return err
	}
	defer rr.close()
	var (
		rows  spillRows
		rec   record
		table groupTable
	)
	rows.qids.Reset()
	rows.docs.Reset()
	for {
		rr.buf = rr.buf[:0]
		err := rr.next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading spill file %s: %w", path, err)
		}
		rows.add(&rec)
	}
	os.Remove(path) // its rows are in memory; free the disk early
	gid, groups := table.group(&rows)
	order := countingOrder(gid, groups)
	maxRows := p.cfg.maxGroupRows()
	for g := 0; g < groups; g++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		idx := order.rows(g)
		q, err := p.take(ctx)
		if err != nil {
			return err
		}
		first := idx[0]
		q.id = append(q.id[:0], rows.qids.At(int(first))...)
		q.src, q.pos = int(rows.pos[first]>>40), int64(rows.pos[first]&(1<<40-1))
		if len(idx) > maxRows {
			return fmt.Errorf("%s: query %q has more than %d rows (--max-group-rows): %w", p.wherePacked(rows.pos[first]), q.id, maxRows, ErrGroupTooLarge)
		}
		for _, i := range idx {
			q.label = append(q.label, rows.label[i])
			if !math.IsNaN(rows.score[i]) {
				q.score = append(q.score, rows.score[i])
			}
			if rows.hasRank {
				q.rank = append(q.rank, rows.rank[i])
			}
			if rows.hasDoc {
				q.doc.Append(rows.docs.At(int(i)))
			}
			q.where = append(q.where, rows.pos[i])
		}
		if err := p.emit(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// resplit distributes a spill file over new files with a fresh seed.
func (p *producer) resplit(ctx context.Context, path string, raw, budget int64, depth int) error {
	n := int(min(max(4*raw/budget+1, 2), 256))
	sub := filepath.Join(filepath.Dir(path), fmt.Sprintf("%s.%d", filepath.Base(path), depth))
	if err := os.Mkdir(sub, 0o700); err != nil {
		return err
	}
	sp, err := newSpiller(sub, n)
	if err != nil {
		return err
	}
	rr, err := openRecords(path)
	if err != nil {
		return err
	}
	var rec record
	var buf []byte
	for {
		rr.buf = rr.buf[:0]
		err := rr.next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			rr.close()
			sp.finish()
			return fmt.Errorf("reading spill file %s: %w", path, err)
		}
		buf = appendRecord(buf[:0], rec.qid, rec.doc, rec.score, rec.label, rec.rank, rec.pos)
		if err := sp.add(buf, rec.qid); err != nil {
			rr.close()
			sp.finish()
			return err
		}
	}
	rr.close()
	os.Remove(path)
	if err := sp.finish(); err != nil {
		return err
	}
	for i := range sp.parts {
		if err := p.evalPartition(ctx, sp.parts[i].path, sp.parts[i].raw, budget, depth+1); err != nil {
			return err
		}
	}
	return os.Remove(sub)
}

// spillRows holds one loaded spill file by column.
type spillRows struct {
	qids, docs      reader.Strings
	score, label    []float64
	rank            []int64
	pos             []uint64
	hasDoc, hasRank bool
}

func (r *spillRows) add(rec *record) {
	r.qids.Append(rec.qid)
	r.docs.Append(rec.doc)
	r.hasDoc = r.hasDoc || len(rec.doc) > 0
	r.hasRank = r.hasRank || rec.rank != 0
	r.score = append(r.score, rec.score)
	r.label = append(r.label, rec.label)
	r.rank = append(r.rank, rec.rank)
	r.pos = append(r.pos, rec.pos)
}

func (r *spillRows) n() int { return len(r.label) }

// groupTable numbers the distinct query ids of a loaded file in order of
// first appearance.
type groupTable struct {
	seed  maphash.Seed
	slots []int32 // first row of the group + 1; 0 = empty
	gids  []int32
}

func (t *groupTable) group(r *spillRows) (gid []int32, groups int) {
	n := r.n()
	size := 16
	for size < 2*n {
		size <<= 1
	}
	t.seed = maphash.MakeSeed()
	t.slots = make([]int32, size)
	t.gids = make([]int32, 0, 64)
	mask := uint64(size - 1)
	gid = make([]int32, n)
	for i := 0; i < n; i++ {
		id := r.qids.At(i)
		for h := maphash.Bytes(t.seed, id) & mask; ; h = (h + 1) & mask {
			s := t.slots[h]
			if s == 0 {
				t.slots[h] = int32(i + 1)
				gid[i] = int32(groups)
				groups++
				break
			}
			if bytes.Equal(r.qids.At(int(s-1)), id) {
				gid[i] = gid[s-1]
				break
			}
		}
	}
	t.slots = nil
	return gid, groups
}

// grouped lists row indices group by group, each group in input order.
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
