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
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/rankeval/rankeval/internal/bytesize"
)

// The unsorted mode reads logs whose query ids are not contiguous. Phase 1
// validates each batch and takes each run of rows of one query through
// Taker.AppendPart, and appends the run, encoded (Group.AppendBinary), to one
// of a fixed number of spill files chosen by a hash of its query id, so
// all rows of a query land in one file, in input order. Phase 2 loads one
// file at a time, joins each query's runs (Taker.Decode, which checks the
// query's size against its first row) and feeds the
// usual worker pool. Memory is the budget
// whatever the input size: a spill file too large to load is split again
// by another hash. The summary is bit-identical to the sorted log's
// because sums are exact; per-query records come out in spill order.

// spillBlock is the uncompressed size at which a partition's buffer is
// compressed and appended to its file as one zstd frame.
const spillBlock = 64 << 10

// maxSplitDepth bounds re-splitting; past it a partition is read once per
// query when it holds few, else loaded however large (only queries whose
// ids collide at every level get there).
const maxSplitDepth = 4

// maxStreamed is how many queries a spill file too large to load may hold
// to be read once for each of them (evalStreamed) rather than split again.
const maxStreamed = 16

// DefaultMemLimit is the budget of the unsorted mode when none is set.
const DefaultMemLimit = 512 << 20

// budgetShares splits the unsorted mode's budget: half for the spill file
// loaded (loadCost), a quarter for the large queries in flight (the
// queryPool's room), an eighth for the small ones, and an eighth for the
// query being joined, which is therefore the most one query may hold.
type budgetShares struct{ load, inFlight, smallPool, query int64 }

func (u *Unsorted) budget() int64 {
	if u.MemLimit > 0 {
		return u.MemLimit
	}
	return DefaultMemLimit
}

func (u *Unsorted) shares() budgetShares {
	b := u.budget()
	return budgetShares{load: b / 2, inFlight: b / 4, smallPool: b / 8, query: b / 8}
}

// limitQuery lowers the run's byte limit of one query to its share of the
// budget.
func (u *Unsorted) limitQuery(r *Rules) {
	r.lowerGroupBytes(u.shares().query, fmt.Sprintf("an eighth of --mem-limit %s under --unsorted; raise --mem-limit", bytesize.Format(u.budget())))
}

type partition struct {
	path string
	f    *os.File
	buf  []byte
	raw  int64 // uncompressed bytes written
	recs int64 // records written
	// skewed: the file took most of its spill's bytes, so a few large
	// queries fill it and splitting it again would not spread them
	skewed bool
}

type spiller struct {
	dir   string
	level int // 0 for the first files, then one more each time a file is split
	parts []partition
	enc   *zstd.Encoder
	frame []byte
}

// partitionsFor chooses how many spill files to write: enough that each
// holds at most a quarter of the budget for inputs up to 64 times the
// budget, beyond which files are split again when loaded.
func partitionsFor(memLimit int64) int {
	return int(min(max(memLimit>>20, 16), 256))
}

func newSpiller(dir string, n, level int) (*spiller, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		return nil, err
	}
	s := &spiller{dir: dir, level: level, parts: make([]partition, n), enc: enc}
	for i := range s.parts {
		s.parts[i].path = filepath.Join(dir, fmt.Sprintf("part-%04d.zst", i))
	}
	return s, nil
}

// add appends one record, an encoded group (Group.AppendBinary), to the
// partition of its query id, behind its length.
func (s *spiller) add(rec []byte, qid []byte) error {
	p := &s.parts[spillHash(qid, s.level)%uint64(len(s.parts))]
	p.buf = binary.AppendUvarint(p.buf, uint64(len(rec)))
	p.buf = append(p.buf, rec...)
	p.recs++
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

// spillHash picks a query's spill file: FNV-1a of its id, finished by
// splitmix64 with the level mixed in, so a file split again spreads over
// its new files. It is fixed, not seeded at random, so the order of the
// spill files, and of per-query records and slices with --unsorted, is
// the same from run to run.
func spillHash(id []byte, level int) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range id {
		h = (h ^ uint64(c)) * 1099511628211
	}
	h += uint64(level+1) * 0x9e3779b97f4a7c15
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>27) * 0x94d049bb133111eb
	return h ^ h>>31
}

// finish flushes every buffer and closes the files, and marks a file that
// took more than three quarters of the bytes as skewed.
func (s *spiller) finish() error {
	var first error
	var total int64
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
		total += p.raw
	}
	for i := range s.parts {
		s.parts[i].skewed = s.parts[i].raw > total/4*3
	}
	s.enc.Close()
	return first
}

// runUnsorted is the producer of the unsorted mode.
func (p *producer) runUnsorted(ctx context.Context, inputs []Source) error {
	u := &p.cfg.Unsorted
	dir, err := os.MkdirTemp(u.TmpDir, "rankeval-spill-")
	if err != nil {
		return fmt.Errorf("spill directory: %w", err)
	}
	if u.OnSpillDir != nil {
		u.OnSpillDir(dir, true)
	}
	defer func() {
		os.RemoveAll(dir)
		if u.OnSpillDir != nil {
			u.OnSpillDir(dir, false)
		}
	}()
	budget := u.budget()
	sp, err := newSpiller(dir, partitionsFor(budget), 0)
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
		if err := p.evalPartition(ctx, &sp.parts[i], budget, 0); err != nil {
			return err
		}
	}
	return nil
}

func (p *producer) spillInputs(ctx context.Context, sp *spiller, inputs []Source) error {
	var (
		g   Group
		rec []byte
	)
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
				p.srcs.name(si, b)
				first = false
			}
			// the whole batch first: a bad value is reported before any
			// error about a query, as on the sorted path
			if err := p.taker.Validate(b, 0, b.N); err != nil {
				r.Close()
				return err
			}
			for i := 0; i < b.N; {
				id := b.Query.At(i)
				j := i + 1
				for j < b.N && bytes.Equal(b.Query.At(j), id) {
					j++
				}
				g.Reset()
				if err := p.taker.AppendPart(&g, b, i, j, si); err != nil {
					r.Close()
					return err
				}
				rec = g.AppendBinary(rec[:0])
				if err := sp.add(rec, g.ID); err != nil {
					r.Close()
					return err
				}
				i = j
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
	if id, _, err = PeekGroup(rec); err != nil {
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
		if err := p.send(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// join adds a spill record to q's group; on failure q goes back to the
// pool.
func (p *producer) join(q *query, rec []byte, path string) error {
	err := p.taker.Decode(&q.Group, rec)
	if err == nil {
		return nil
	}
	p.pool.put(q)
	if errors.Is(err, ErrEncoding) {
		err = fmt.Errorf("reading spill file %s: %w", path, err)
	}
	return err
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
		if err := p.send(ctx, q); err != nil {
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
		id, _, err := PeekGroup(rec)
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
			if other, _, _ := PeekGroup(recs[s-1]); bytes.Equal(other, id) {
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
