package pipeline

import (
	"bytes"

	"github.com/rankeval/rankeval/internal/idhash"
)

// docSet finds a document id repeated within one query. Each worker owns
// one; its table is reused from query to query, so checking allocates only
// when a larger query than any before arrives.
type docSet struct {
	ids idhash.Hasher
	// row index + 1 in the low 32 bits (0 = empty), the top 32 bits of
	// the doc id's hash in the high ones: a probe that meets another id
	// is mostly told apart by them, without comparing the ids' bytes
	slots []uint64
	mask  uint64
	docs  [][]byte // the doc ids the table holds, for find
	// lookup is find as a func value, made once: a method value passed
	// per query would be allocated per query
	lookup func(d []byte) int
}

func newDocSet() *docSet {
	s := &docSet{ids: idhash.New()}
	s.lookup = s.find
	return s
}

// reset empties the table for the doc ids docs of one query.
func (s *docSet) reset(docs [][]byte) {
	s.docs = docs
	// a quarter full at most: a TREC query's table (1,000 ids: 32 KiB)
	// still fits the core's L1 cache, and fewer probes meet another id
	// (docs/performance.md, "Measured choices"); half full
	// for a query too large for any cache, whose table would otherwise
	// double its memory for nothing
	load := 4
	if len(docs) > 1<<16 {
		load = 2
	}
	size := 16
	for size < load*len(docs) {
		size <<= 1
	}
	if cap(s.slots) < size {
		s.slots = make([]uint64, size)
	} else {
		s.slots = s.slots[:size]
		clear(s.slots)
	}
	s.mask = uint64(size - 1)
}

// find returns the row of doc id d after a check that found no duplicate
// (firstDuplicate) or dropped them (keepFirst), or -1. It serves
// Judgments.Join, so a TREC run's doc ids are hashed once, here, and not
// again by the reader.
func (s *docSet) find(d []byte) int {
	hash, short := s.ids.Short(d)
	if !short {
		hash = s.ids.Hash(d)
	}
	tag := hash &^ (1<<32 - 1)
	for h := hash & s.mask; ; h = (h + 1) & s.mask {
		v := s.slots[h]
		if v == 0 {
			return -1
		}
		if j := uint32(v); v&^(1<<32-1) == tag && bytes.Equal(s.docs[j-1], d) {
			return int(j - 1)
		}
	}
}

// seen looks up row i's doc id among those recorded and returns the
// position recorded for it, or records at as its position and returns -1.
// Rows without a doc id (empty) are never duplicates.
func (s *docSet) seen(i, at int) int {
	d := s.docs[i]
	if len(d) == 0 {
		return -1
	}
	hash, short := s.ids.Short(d)
	if !short {
		hash = s.ids.Hash(d)
	}
	tag := hash &^ (1<<32 - 1)
	for h := hash & s.mask; ; h = (h + 1) & s.mask {
		v := s.slots[h]
		if v == 0 {
			s.slots[h] = tag | uint64(at+1)
			return -1
		}
		if j := uint32(v); v&^(1<<32-1) == tag && bytes.Equal(s.docs[j-1], d) {
			return int(j - 1)
		}
	}
}

// firstDuplicate returns the row that repeats an earlier row's doc id and
// that earlier row, or -1, -1.
func (s *docSet) firstDuplicate(docs [][]byte) (dup, first int) {
	s.reset(docs)
	for i := range docs {
		if j := s.seen(i, i); j >= 0 {
			return i, j
		}
	}
	return -1, -1
}

// keepFirst drops every row of g whose doc id an earlier row has (--dedup
// first), in every column including the extra scores, and returns how
// many it dropped. docs holds g's doc ids and is compacted alike.
func (s *docSet) keepFirst(g *Group, docs *[][]byte) int {
	ds := *docs
	s.reset(ds)
	kept := 0
	for i := range ds {
		// The table records where a kept row lands, not where it was: rows
		// move down over dropped ones (in the same array the table reads),
		// and a landing place is final.
		if s.seen(i, kept) >= 0 {
			continue
		}
		ds[kept] = ds[i]
		g.moveRow(kept, i)
		kept++
	}
	dropped := len(ds) - kept
	*docs, g.Label, g.Where = ds[:kept], g.Label[:kept], g.Where[:kept]
	s.docs = *docs
	if len(g.Score) > 0 {
		g.Score = g.Score[:kept]
	}
	if len(g.Rank) > 0 {
		g.Rank = g.Rank[:kept]
	}
	if len(g.Prop) > 0 {
		g.Prop = g.Prop[:kept]
	}
	if len(g.Logged) > 0 {
		g.Logged = g.Logged[:kept]
	}
	if len(g.Team) > 0 {
		g.Team = g.Team[:kept]
	}
	for c := range g.XScore {
		g.XScore[c] = g.XScore[c][:kept]
	}
	return dropped
}
