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

	"github.com/klauspost/compress/zstd"
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
	recs int64 // records written
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
	budget := u.MemLimit
	if budget <= 0 {
		budget = DefaultMemLimit
	}
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
// queries, or splits the file again when it would not fit the budget.
func (p *producer) evalPartition(ctx context.Context, part *partition, budget int64, depth int) error {
	if part.raw == 0 {
		return nil
	}
	// Half the budget goes to the loaded file, the rest to the queries in
	// flight and the runtime.
	if loadCost(part) > budget/2 && depth < maxSplitDepth {
		return p.resplit(ctx, part, budget, depth)
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
			if err := p.taker.Decode(&q.Group, recs[i]); err != nil {
				p.pool.put(q)
				if errors.Is(err, ErrEncoding) {
					err = fmt.Errorf("reading spill file %s: %w", part.path, err)
				}
				return err
			}
		}
		if err := p.send(ctx, q); err != nil {
			return err
		}
	}
	return nil
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
		rec, err := r.next()
		if err == io.EOF {
			break
		}
		var id []byte
		if err == nil {
			if id, _, err = PeekGroup(rec); err != nil {
				err = r.damaged(err)
			}
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
