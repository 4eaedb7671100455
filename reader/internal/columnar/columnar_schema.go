package columnar

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rankeval/rankeval/reader/internal/batch"
)

// The columns a columnar reader asks for and how they bind to a file's
// schema: each role's accepted Arrow types, Hive partition values, and the
// messages that list what a file has.

func isInt(id arrow.Type) bool {
	switch id {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

func isFloat(id arrow.Type) bool {
	return id == arrow.FLOAT16 || id == arrow.FLOAT32 || id == arrow.FLOAT64
}

func isDecimal(id arrow.Type) bool {
	switch id {
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}

func isStringish(id arrow.Type) bool {
	switch id {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return true
	}
	return false
}

// accepts reports whether a column of type dt can serve as kind.
func accepts(kind int, dt arrow.DataType) bool {
	id := dt.ID()
	switch kind {
	case batch.FQuery, batch.FDoc:
		if d, ok := dt.(*arrow.DictionaryType); ok {
			v := d.ValueType.ID()
			return isStringish(v) || isInt(v)
		}
		return isStringish(id) || isInt(id)
	case batch.FScore, batch.KExtraScore, batch.KNumber:
		return isFloat(id) || isInt(id) || isDecimal(id)
	case batch.FLabel:
		return isFloat(id) || isInt(id) || id == arrow.BOOL
	case batch.KExtra, batch.KText:
		if d, ok := dt.(*arrow.DictionaryType); ok {
			v := d.ValueType.ID()
			return isStringish(v) || isInt(v)
		}
		return isStringish(id) || isInt(id) || isFloat(id) || isDecimal(id) ||
			id == arrow.BOOL || id == arrow.DATE32 || id == arrow.DATE64
	default: // fRank: only the order matters, so 0-based ranks and whole floats do
		return isInt(id) || isFloat(id)
	}
}

// binding says where one request's values come from in a schema.
type binding struct {
	col   int    // field index, or -1: absent (optional) or a partition value
	konst []byte // the Hive partition value, when konst != nil
}

// bindSchema finds every requested column in sc and checks its type. A
// slice column the file lacks may come from a Hive partition directory of
// its path (parts).
func bindSchema(name string, sc *arrow.Schema, reqs []batch.ColReq, parts [][2]string) ([]binding, error) {
	bs := make([]binding, len(reqs))
	for i, r := range reqs {
		is := sc.FieldIndices(r.Name)
		if len(is) == 0 {
			bs[i].col = -1
			if v, ok := partitionValue(parts, r.Name); ok && r.Kind == batch.KExtra {
				bs[i].konst = []byte(v)
				continue
			}
			if r.Optional {
				continue
			}
			return nil, fmt.Errorf("%s: no column %q (%s); the file has %s; name %s with %s: %w",
				name, r.Name, r.Role(), listColumns(sc), r.Role(), r.FlagName(), batch.ErrColumn)
		}
		dt := sc.Field(is[0]).Type
		if !accepts(r.Kind, dt) {
			return nil, fmt.Errorf("%s: column %q has type %s; %s must be %s; convert it, or name another column with %s: %w",
				name, r.Name, dt, r.Role(), r.Types(), r.FlagName(), batch.ErrColumn)
		}
		bs[i].col = is[0]
	}
	return bs, nil
}

func partitionValue(parts [][2]string, key string) (string, bool) {
	for i := len(parts) - 1; i >= 0; i-- { // the innermost directory wins
		if parts[i][0] == key {
			return parts[i][1], true
		}
	}
	return "", false
}

// FilePartitions are the Hive partitions of a columnar input's path.
func FilePartitions(name string) [][2]string {
	if name == "<stdin>" {
		return nil
	}
	return partitions(name)
}

func listColumns(sc *arrow.Schema) string {
	names := make([]string, sc.NumFields())
	for i, fl := range sc.Fields() {
		names[i] = strconv.Quote(fl.Name)
	}
	return batch.ListNames(names)
}

// partitions are the Hive-style key=value directory names on path
// (dt=2026-11-20/part-00000.parquet gives {"dt", "2026-11-20"}), outermost
// first, values unescaped: columns of every row of the file.
func partitions(path string) [][2]string {
	var parts [][2]string
	dir := filepath.Dir(filepath.Clean(path))
	for _, el := range strings.Split(filepath.ToSlash(dir), "/") {
		k, v, ok := strings.Cut(el, "=")
		if !ok || k == "" {
			continue
		}
		// Hive escapes special characters as %XX.
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
		if k2, err := url.PathUnescape(k); err == nil {
			k = k2
		}
		parts = append(parts, [2]string{k, v})
	}
	return parts
}
