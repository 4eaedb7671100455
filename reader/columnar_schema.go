package reader

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// The columns a columnar reader asks for and how they bind to a file's
// schema: each role's accepted Arrow types, Hive partition values, and the
// messages that list what a file has.

// Kinds of requested columns beyond the five roles fQuery..fRank.
const (
	kExtra      = nFields + iota // a slice column (Columns.Extra), read as text
	kExtraScore                  // a further score column (Columns.ExtraScore)
	kNumber                      // a numeric column of a run's rules (Columns.Numbers)
	kText                        // a text column of a run's rules (Columns.Texts)
)

// colReq is one column a columnar reader must find.
type colReq struct {
	name string
	kind int // fQuery..fRank, kExtra, kExtraScore, kNumber or kText
	x    int // index in Columns.Extra, ExtraScore, Numbers or Texts
	// what and flag name a kNumber or kText column in messages (Named.Role, Flag)
	what, flag string
	optional   bool // may be absent or null (the doc column with DocOptional)
}

func (c Columns) requests() []colReq {
	var rs []colReq
	for f, n := range [nFields]string{c.Query, c.Doc, c.Score, c.Label, c.Rank} {
		if n != "" {
			rs = append(rs, colReq{name: n, kind: f, optional: f == fDoc && c.DocOptional})
		}
	}
	for x, n := range c.Extra {
		rs = append(rs, colReq{name: n, kind: kExtra, x: x})
	}
	for x, n := range c.ExtraScore {
		rs = append(rs, colReq{name: n, kind: kExtraScore, x: x})
	}
	for x, n := range c.Numbers {
		rs = append(rs, colReq{name: n.Name, kind: kNumber, x: x, what: n.Role, flag: n.Flag})
	}
	for x, n := range c.Texts {
		rs = append(rs, colReq{name: n.Name, kind: kText, x: x, what: n.Role, flag: n.Flag})
	}
	return rs
}

// role names the request in messages, as the JSONL reader does.
func (r colReq) role() string {
	switch r.kind {
	case kExtra:
		return "a slice column"
	case kExtraScore:
		return "a score column"
	case kNumber, kText:
		return r.what
	}
	return "the " + fieldRole[r.kind] + " column"
}

// flagName is the flag that names the request's column.
func (r colReq) flagName() string {
	if r.kind == kNumber || r.kind == kText {
		return r.flag
	}
	return kindFlag(r.kind)
}

// types says, for an error message, which Arrow types the request accepts.
func (r colReq) types() string {
	switch r.kind {
	case fQuery, fDoc:
		return "string, large_string, binary, string_view, dictionary of strings, or an integer"
	case fScore, kExtraScore, kNumber:
		return "float, integer or decimal"
	case fLabel:
		return "integer, float or boolean"
	case kExtra, kText:
		return "string, dictionary of strings, integer, float, boolean, date or decimal"
	}
	return "integer, or float of whole numbers"
}

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
	case fQuery, fDoc:
		if d, ok := dt.(*arrow.DictionaryType); ok {
			v := d.ValueType.ID()
			return isStringish(v) || isInt(v)
		}
		return isStringish(id) || isInt(id)
	case fScore, kExtraScore, kNumber:
		return isFloat(id) || isInt(id) || isDecimal(id)
	case fLabel:
		return isFloat(id) || isInt(id) || id == arrow.BOOL
	case kExtra, kText:
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
func bindSchema(name string, sc *arrow.Schema, reqs []colReq, parts [][2]string) ([]binding, error) {
	bs := make([]binding, len(reqs))
	for i, r := range reqs {
		is := sc.FieldIndices(r.name)
		if len(is) == 0 {
			bs[i].col = -1
			if v, ok := partitionValue(parts, r.name); ok && r.kind == kExtra {
				bs[i].konst = []byte(v)
				continue
			}
			if r.optional {
				continue
			}
			return nil, fmt.Errorf("%s: no column %q (%s); the file has %s; name %s with %s: %w",
				name, r.name, r.role(), listColumns(sc), r.role(), r.flagName(), ErrColumn)
		}
		dt := sc.Field(is[0]).Type
		if !accepts(r.kind, dt) {
			return nil, fmt.Errorf("%s: column %q has type %s; %s must be %s; convert it, or name another column with %s: %w",
				name, r.name, dt, r.role(), r.types(), r.flagName(), ErrColumn)
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

// filePartitions are the Hive partitions of a columnar input's path.
func filePartitions(name string) [][2]string {
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
	return listNames(names)
}
