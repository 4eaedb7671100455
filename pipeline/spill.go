package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rankeval/rankeval/internal/splitmix"

	"github.com/klauspost/compress/zstd"

	"github.com/rankeval/rankeval/internal/bytesize"
)

// The unsorted mode reads logs whose query ids are not contiguous. Phase 1
// validates each batch and takes each run of rows of one query through
// Taker.AppendPart, and appends the run, encoded (Group.AppendBinary) behind
// the number of its log (appendRecord), to one of a fixed number of spill
// files chosen by a hash of its query id, so all rows of a query, from
// every log, land in one file, in input order. Several logs (--system) are
// so joined by query id in any order, as the lockstep joins sorted ones. Phase 2 loads one
// file at a time, joins each query's runs (Taker.Decode, which checks the
// query's size against its first row) and feeds the
// usual worker pool. Memory is the budget
// whatever the input size: a spill file too large to load is split again
// by another hash. The summary is bit-identical to the sorted log's
// because sums are exact; per-query records come out in spill order.

// spillBlock is the uncompressed size at which a partition's buffer is
// compressed and appended to its file as one zstd frame.
const spillBlock = 64 << 10

// maxSplitDepth bounds re-splitting; past it a partition too large to load
// is read once per query when it holds few, else an error
// (ErrSpillCollide: only queries whose ids collide at every level get
// there). A variable so that tests can reach it.
var maxSplitDepth = 4

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

// appendRecord appends a spill record: the number of log l, then the
// group g encoded.
func appendRecord(rec []byte, l int, g *Group) []byte {
	return g.AppendBinary(binary.AppendUvarint(rec, uint64(l)))
}

// splitRecord splits a spill record into the number of its log and its
// encoded group.
func splitRecord(rec []byte) (l int, g []byte, err error) {
	n, k := binary.Uvarint(rec)
	if k <= 0 || n > 1<<20 {
		return 0, nil, fmt.Errorf("a record's log number is damaged: %w", ErrEncoding)
	}
	return int(n), rec[k:], nil
}

// recordID is the query id of a spill record.
func recordID(rec []byte) ([]byte, error) {
	_, g, err := splitRecord(rec)
	if err != nil {
		return nil, err
	}
	id, _, err := PeekGroup(g)
	return id, err
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
	return splitmix.Mix64(h)
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

// runUnsorted is the producer of the unsorted mode: it spills every log,
// then joins the spill files.
func (p *producer) runUnsorted(ctx context.Context, logs [][]Source) error {
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
	base := 0
	for l, inputs := range logs {
		if err := p.spillInputs(ctx, sp, inputs, l, base); err != nil {
			sp.finish()
			return err
		}
		base += len(inputs)
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

// spillInputs spills the inputs of log l, whose first input is input
// number base of the run.
func (p *producer) spillInputs(ctx context.Context, sp *spiller, inputs []Source, l, base int) error {
	var (
		g   Group
		rec []byte
	)
	for i, in := range inputs {
		si := base + i
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
				rec = appendRecord(rec[:0], l, &g)
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
