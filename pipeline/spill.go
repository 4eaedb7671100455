package pipeline

import (
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
// takes each run of rows of one query through Rules.Append, as the sorted
// grouper does, and appends the run, encoded (Group.AppendBinary), to one
// of a fixed number of spill files chosen by a hash of its query id, so
// all rows of a query land in one file, in input order. Phase 2 loads one
// file at a time, joins each query's runs (Rules.Decode) and feeds the
// usual worker pool. Memory is the budget
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

// add appends one record, an encoded group (Group.AppendBinary), to the
// partition of its query id, behind its length.
func (s *spiller) add(rec []byte, qid []byte) error {
	p := &s.parts[maphash.Bytes(s.seed, qid)%uint64(len(s.parts))]
	p.buf = binary.AppendUvarint(p.buf, uint64(len(rec)))
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
			for i := 0; i < b.N; {
				id := b.Query.At(i)
				j := i + 1
				for j < b.N && bytes.Equal(b.Query.At(j), id) {
					j++
				}
				g.Reset()
				if err := p.cfg.Rules.Append(&g, b, i, j, si, p.where); err != nil {
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

var errBadSpill = errors.New("corrupt spill file")

// loadSpill reads a spill file whole and returns its records in order.
func loadSpill(path string, raw int64) (data []byte, recs [][]byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, nil, err
	}
	defer dec.Close()
	// raw is the file's exact decompressed size: read it into one buffer
	data = make([]byte, raw)
	if _, err := io.ReadFull(dec, data); err != nil {
		return nil, nil, fmt.Errorf("reading spill file %s: %w", path, err)
	}
	if n, _ := dec.Read(make([]byte, 1)); n != 0 {
		return nil, nil, fmt.Errorf("reading spill file %s: longer than written: %w", path, errBadSpill)
	}
	for rest := data; len(rest) > 0; {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return nil, nil, fmt.Errorf("reading spill file %s: %w", path, errBadSpill)
		}
		recs = append(recs, rest[k:k+int(n)])
		rest = rest[k+int(n):]
	}
	return data, recs, nil
}

// evalPartition joins one spill file's records by query and emits the
// queries, or splits the file again when it would not fit the budget.
func (p *producer) evalPartition(ctx context.Context, path string, raw, budget int64, depth int) error {
	if raw == 0 {
		return nil
	}
	// Loaded rows cost about twice their spilled size (the file, then the
	// queries in flight); half the budget goes to them, the rest to the
	// runtime.
	if 2*raw > budget/2 && depth < maxSplitDepth {
		return p.resplit(ctx, path, raw, budget, depth)
	}
	_, recs, err := loadSpill(path, raw)
	if err != nil {
		return err
	}
	os.Remove(path) // its rows are in memory; free the disk early
	ids := make([][]byte, len(recs))
	for i, rec := range recs {
		if ids[i], _, err = PeekGroup(rec); err != nil {
			return fmt.Errorf("reading spill file %s: %w", path, err)
		}
	}
	gid, groups := groupIDs(ids)
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
			if err := p.cfg.Rules.Decode(&q.Group, recs[i], p.where); err != nil {
				p.pool.put(q)
				return err
			}
		}
		if err := p.send(ctx, q); err != nil {
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
	// a file is at most a quarter of the budget less than the one it
	// came from: reading it whole keeps within the budget
	_, recs, err := loadSpill(path, raw)
	if err != nil {
		sp.finish()
		return err
	}
	for _, rec := range recs {
		id, _, err := PeekGroup(rec)
		if err == nil {
			err = sp.add(rec, id)
		}
		if err != nil {
			sp.finish()
			return err
		}
	}
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

// groupIDs numbers the distinct ids in order of first appearance.
func groupIDs(ids [][]byte) (gid []int32, groups int) {
	n := len(ids)
	size := 16
	for size < 2*n {
		size <<= 1
	}
	seed := maphash.MakeSeed()
	slots := make([]int32, size) // first index + 1; 0 = empty
	mask := uint64(size - 1)
	gid = make([]int32, n)
	for i, id := range ids {
		for h := maphash.Bytes(seed, id) & mask; ; h = (h + 1) & mask {
			s := slots[h]
			if s == 0 {
				slots[h] = int32(i + 1)
				gid[i] = int32(groups)
				groups++
				break
			}
			if bytes.Equal(ids[s-1], id) {
				gid[i] = gid[s-1]
				break
			}
		}
	}
	return gid, groups
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
