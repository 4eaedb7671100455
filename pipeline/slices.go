package pipeline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/rankeval/rankeval/internal/bytesize"
	"github.com/rankeval/rankeval/reader"
)

// sliceIndex numbers the distinct slices (combinations of the slice
// columns' values) in order of first appearance. Only the producer uses
// it; each query carries its own key to the workers.
type sliceIndex struct {
	cfg   *Config
	where Where
	idx   map[string]int // nil without slices
	keys  [][]string     // substrings of idx's keys: the values are held once
	held  int64          // the bytes of every slice's values
	buf   []byte
	ends  []int // where each value ends in buf
}

func newSliceIndex(cfg *Config, where Where) sliceIndex {
	si := sliceIndex{cfg: cfg, where: where}
	if len(cfg.Rules.Slices) > 0 {
		si.idx = map[string]int{}
	}
	return si
}

// assign numbers the query's slice, from its first present log, and
// checks the other logs agree.
func (si *sliceIndex) assign(q *query) error {
	if si.idx == nil {
		return nil
	}
	names := si.cfg.Rules.Slices
	key, err := si.cfg.Rules.SliceSource(q.groups(), si.where)
	if err != nil {
		return err
	}
	si.buf, si.ends = si.buf[:0], si.ends[:0]
	for c := range names {
		v := key.Key.At(c)
		si.buf = binary.AppendUvarint(si.buf, uint64(len(v)))
		si.buf = append(si.buf, v...)
		si.ends = append(si.ends, len(si.buf))
	}
	idx, ok := si.idx[string(si.buf)]
	if !ok {
		idx = len(si.keys)
		if most := si.cfg.maxSlices(); idx >= most {
			return fmt.Errorf("%s: query %s opens slice number %d (%s), more than --max-slices %d; slice by fewer or coarser columns, or raise --max-slices: %w",
				si.where(key.First), quoteShort(key.ID), idx+1, describeKey(names, &key.Key), most, ErrTooManySlices)
		}
		vb := int64(len(key.Key.Buf))
		if most := si.cfg.maxSliceBytes(); si.held+vb > most {
			return fmt.Errorf("%s: query %s opens slice number %d (%s), whose values bring those of the slices past %s (--max-slice-bytes); slice by columns of shorter values, or raise --max-slice-bytes: %w",
				si.where(key.First), quoteShort(key.ID), idx+1, describeKey(names, &key.Key), bytesize.Format(most), ErrSliceBytes)
		}
		si.held += vb
		k := string(si.buf)
		si.idx[k] = idx
		vals := make([]string, len(names))
		for c := range vals {
			vals[c] = k[si.ends[c]-len(key.Key.At(c)) : si.ends[c]]
		}
		si.keys = append(si.keys, vals)
	}
	// the query carries its key: workers must not read keys, which the
	// producer is still growing
	q.slice, q.sliceKey = idx, si.keys[idx]
	return nil
}

func firstDiff(a, b *reader.Strings) int {
	for c := 0; c+1 < len(a.Off); c++ {
		if !bytes.Equal(a.At(c), b.At(c)) {
			return c
		}
	}
	return 0
}

func describeKey(names []string, key *reader.Strings) string {
	var sb strings.Builder
	for c, n := range names {
		if c > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%s=%s", n, quoteShort(key.At(c)))
	}
	return sb.String()
}

// CheckSliceBytes applies --max-slice-bytes (most) to the slices' keys of
// a run that gathers them after the fact (rankeval-beam), where assign
// applies it to each slice as it opens.
func CheckSliceBytes(keys [][]string, most int64) error {
	var n int64
	for _, k := range keys {
		for _, v := range k {
			n += int64(len(v))
		}
	}
	if n > most {
		return fmt.Errorf("the values of the %d slices take %d bytes, more than --max-slice-bytes %s; slice by columns of shorter values, or raise --max-slice-bytes: %w",
			len(keys), n, bytesize.Format(most), ErrSliceBytes)
	}
	return nil
}
