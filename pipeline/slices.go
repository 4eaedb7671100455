package pipeline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/rankeval/rankeval/reader"
)

// sliceIndex numbers the distinct slices (combinations of the slice
// columns' values) in order of first appearance. Only the producer uses
// it; each query carries its own key to the workers.
type sliceIndex struct {
	cfg   *Config
	where Where
	idx   map[string]int // nil without slices
	keys  [][]string
	buf   []byte
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
	si.buf = si.buf[:0]
	for c := range names {
		v := key.Key.At(c)
		si.buf = binary.AppendUvarint(si.buf, uint64(len(v)))
		si.buf = append(si.buf, v...)
	}
	idx, ok := si.idx[string(si.buf)]
	if !ok {
		idx = len(si.keys)
		if most := si.cfg.maxSlices(); idx >= most {
			return fmt.Errorf("%s: query %q opens slice number %d (%s), more than --max-slices %d; slice by fewer or coarser columns, or raise --max-slices: %w",
				si.where(key.First), key.ID, idx+1, describeKey(names, &key.Key), most, ErrTooManySlices)
		}
		si.idx[string(si.buf)] = idx
		vals := make([]string, len(names))
		for c := range vals {
			vals[c] = string(key.Key.At(c))
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
		fmt.Fprintf(&sb, "%s=%q", n, key.At(c))
	}
	return sb.String()
}
